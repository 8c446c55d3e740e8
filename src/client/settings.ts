import { checkBaseUrl, checkCredential, type Credentials } from './credentials';
import { quoteExcerpt } from '../schemas/common';
import { rateBudgetProblem } from './rate-budget';

/** Where the providers and the CLI send requests when neither `zoneguard:baseUrl` nor ZONEGUARD_BASE_URL is set: the
 * local emulator started by `npx zoneguard emulator`, the embedded default of the examples. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787/client/v4';

/** Stack config keys and environment variables the providers and the CLI read, in order of precedence. */
export const SETTING_SOURCES = {
  apiToken: { config: 'zoneguard:apiToken', env: 'ZONEGUARD_API_TOKEN' },
  apiEmail: { config: 'zoneguard:apiEmail', env: 'ZONEGUARD_API_EMAIL' },
  apiKey: { config: 'zoneguard:apiKey', env: 'ZONEGUARD_API_KEY' },
  baseUrl: { config: 'zoneguard:baseUrl', env: 'ZONEGUARD_BASE_URL' },
  rateBudget: { config: 'zoneguard:rateBudget', env: 'ZONEGUARD_RATE_BUDGET' },
  rateBudgetStore: { config: 'zoneguard:rateBudgetStore', env: 'ZONEGUARD_RATE_BUDGET_STORE' },
} as const;

export interface ClientSettings {
  baseUrl: string;
  credentials: Credentials;
  /** The client's rate budget: `requests/windowMs`, `off`, or the client's default (1200/300000) when unset. */
  rateBudget?: { requests: number; windowMs: number } | false;
  /** A `redis://` or `rediss://` URL: the budget is then shared by every process using the same credentials. */
  rateBudgetStore?: string;
}

/** One setting's two sources, as `SETTING_SOURCES` lists them. */
export type SettingSource = (typeof SETTING_SOURCES)[keyof typeof SETTING_SOURCES];

/** How a message names a setting: `zoneguard:baseUrl (or ZONEGUARD_BASE_URL)`; the CLI names its flag instead. */
export type NameSetting = (source: SettingSource) => string;

const configAndVariable: NameSetting = (source) => `${source.config} (or ${source.env})`;

/** Reads a rate budget setting: `requests/windowMs` (e.g. `1200/300000`) or `off`, within the client's bounds. */
export function parseRateBudget(text: string, name: NameSetting = configAndVariable): { requests: number; windowMs: number } | false {
  if (text === 'off') return false;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const setting = name(SETTING_SOURCES.rateBudget);
  if (!match) {
    throw new SettingsError(
      `zoneguard: ${setting} must be "requests/windowMs", for example "1200/300000", or "off"; got ${quoteExcerpt(text)}`,
      { setting: 'rateBudget' },
    );
  }
  const limits = { requests: Number(match[1]), windowMs: Number(match[2]) };
  const problem = rateBudgetProblem(limits);
  if (problem) throw new SettingsError(`zoneguard: ${setting}: ${problem}`, { setting: 'rateBudget' });
  return limits;
}

/**
 * Reads the rate budget store setting: a `redis://` or `rediss://` URL with a host. A password in it never reaches
 * a message.
 */
export function parseRateBudgetStore(text: string, name: NameSetting = configAndVariable): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    const shown = text.replace(/\/\/[^@/]*@/, '//***@');
    throw new SettingsError(
      `zoneguard: ${name(SETTING_SOURCES.rateBudgetStore)} must be a redis:// or rediss:// URL with a host, ` +
        `for example "redis://redis.internal:6379"; got ${quoteExcerpt(shown)}`,
      { setting: 'rateBudgetStore' },
    );
  }
  return text;
}

/** A setting is missing, half given or malformed; the message names the config keys and variables to set. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
  /** The setting that is malformed; undefined when credentials are missing or half given. */
  readonly setting: keyof typeof SETTING_SOURCES | undefined;

  constructor(message: string, options: { setting?: keyof typeof SETTING_SOURCES } = {}) {
    super(message);
    this.setting = options.setting;
  }
}

/**
 * Runs the client's own check of a setting (checkBaseUrl, authHeaders), turning its TypeError into a SettingsError
 * that names the config key and variable instead of the client's option (`baseUrl must ...`, `credentials.apiToken has ...`).
 */
function checkedBy<T>(setting: keyof typeof SETTING_SOURCES, name: NameSetting, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const option = /^(baseUrl|credentials\.\w+) /.exec(error.message);
    const what = option ? error.message.slice(option[0].length) : `: ${error.message}`;
    throw new SettingsError(`zoneguard: ${name(SETTING_SOURCES[setting])}${option ? ' ' : ''}${what}`, { setting });
  }
}

type Lookup = (key: string) => string | undefined;

/**
 * Resolves the base URL and credentials from the stack config (set by `configure`), falling back to the
 * environment. Pure: the config lookup and the environment are passed in.
 */
export function resolveSettings(config: Lookup, env: Record<string, string | undefined>, name: NameSetting = configAndVariable): ClientSettings {
  const read = (name: keyof typeof SETTING_SOURCES) => {
    const source = SETTING_SOURCES[name];
    const value = config(source.config) ?? env[source.env];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  // Checked here, so a provider's `check` fails at preview on a bad value instead of `up` failing on every call.
  const baseUrl = checkedBy('baseUrl', name, () => checkBaseUrl(read('baseUrl') ?? DEFAULT_BASE_URL));
  const budget = read('rateBudget');
  const store = read('rateBudgetStore');
  const rateBudget = {
    ...(budget === undefined ? {} : { rateBudget: parseRateBudget(budget, name) }),
    ...(store === undefined ? {} : { rateBudgetStore: parseRateBudgetStore(store, name) }),
  };
  const apiToken = read('apiToken');
  if (apiToken) {
    checkedBy('apiToken', name, () => checkCredential('apiToken', apiToken));
    return { baseUrl, credentials: { apiToken }, ...rateBudget };
  }
  const apiEmail = read('apiEmail');
  const apiKey = read('apiKey');
  if (apiEmail && apiKey) {
    checkedBy('apiEmail', name, () => checkCredential('apiEmail', apiEmail));
    checkedBy('apiKey', name, () => checkCredential('apiKey', apiKey));
    return { baseUrl, credentials: { apiEmail, apiKey }, ...rateBudget };
  }
  if (apiEmail || apiKey) {
    const missing = apiEmail ? SETTING_SOURCES.apiKey : SETTING_SOURCES.apiEmail;
    throw new SettingsError(
      `zoneguard: the key form of credentials needs both an email and an API key; set ${missing.config} ` +
        `(pulumi config set ${missing.config === SETTING_SOURCES.apiKey.config ? '--secret ' : ''}${missing.config} ...) or ${missing.env}`,
    );
  }
  throw new SettingsError(
    `zoneguard: no credentials; set ${SETTING_SOURCES.apiToken.config} (pulumi config set --secret ${SETTING_SOURCES.apiToken.config} <token>) ` +
      `or ${SETTING_SOURCES.apiToken.env}, or both ${SETTING_SOURCES.apiEmail.config} and ${SETTING_SOURCES.apiKey.config} ` +
      `(or ${SETTING_SOURCES.apiEmail.env} and ${SETTING_SOURCES.apiKey.env})`,
  );
}
