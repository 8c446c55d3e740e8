import { baseUrlProblem, checkBaseUrl, credentialProblem, type Credentials } from './credentials';
import { quoteExcerpt } from '../schemas/common';
import { rateBudgetProblem, requestsPerSecondProblem } from './rate-budget';

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
  rateBudgetPerSecond: { config: 'zoneguard:rateBudgetPerSecond', env: 'ZONEGUARD_RATE_BUDGET_PER_SECOND' },
} as const;

export interface ClientSettings {
  baseUrl: string;
  credentials: Credentials;
  /** The client's rate budget: `requests/windowMs`, `off`, or the client's default (1200/300000) when unset. */
  rateBudget?: { requests: number; windowMs: number } | false;
  /** A `redis://` or `rediss://` URL: the budget is then shared by every process using the same credentials. */
  rateBudgetStore?: string;
  /** Requests a second from the process to the service's host: a whole number, `off`, or the client's default (200) when unset. */
  rateBudgetPerSecond?: number | false;
}

/** The name of a setting, a key of `SETTING_SOURCES`. */
export type SettingName = keyof typeof SETTING_SOURCES;

/**
 * One thing wrong with the settings. `reason` is `missing` for a setting that must be given and is not (`apiToken`
 * when no credential is given at all; `apiEmail` or `apiKey`, the half of a key pair that is missing), otherwise
 * what is wrong with the value, worded to follow the setting's name after a colon. Never quotes a secret.
 */
export interface SettingProblem {
  field: SettingName;
  reason: string;
}

/** The `reason` of a setting that must be given and is not. */
export const MISSING = 'missing';

/**
 * The settings cannot be used: `problems` says which and why, for each caller to word with its own names of the
 * settings (the CLI names its flags). The message is the providers' wording: the stack config keys and variables.
 */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
  readonly problems: readonly SettingProblem[];

  constructor(problems: readonly SettingProblem[]) {
    super(`zoneguard: ${problems.map(describeForStack).join('; ')}`);
    this.problems = problems;
  }
}

/** How a provider names a setting: `zoneguard:baseUrl (or ZONEGUARD_BASE_URL)`. */
function stackName(field: SettingName): string {
  const source = SETTING_SOURCES[field];
  return `${source.config} (or ${source.env})`;
}

/** One problem in the providers' words: the config key to set, with the `pulumi config set` command for a missing one. */
function describeForStack({ field, reason }: SettingProblem): string {
  if (reason !== MISSING) return `${stackName(field)}: ${reason}`;
  const { apiToken, apiEmail, apiKey } = SETTING_SOURCES;
  if (field === 'apiToken') {
    return (
      `no credentials; set ${apiToken.config} (pulumi config set --secret ${apiToken.config} <token>) or ${apiToken.env}, ` +
      `or both ${apiEmail.config} and ${apiKey.config} (or ${apiEmail.env} and ${apiKey.env})`
    );
  }
  const missing = SETTING_SOURCES[field];
  return (
    `the key form of credentials needs both an email and an API key; set ${missing.config} ` +
    `(pulumi config set ${field === 'apiKey' ? '--secret ' : ''}${missing.config} ...) or ${missing.env}`
  );
}

/** Reads a rate budget setting: `requests/windowMs` (e.g. `1200/300000`) or `off`, within the client's bounds. */
export function parseRateBudget(text: string): { requests: number; windowMs: number } | false {
  if (text === 'off') return false;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) {
    throw new SettingsError([
      { field: 'rateBudget', reason: `must be "requests/windowMs", for example "1200/300000", or "off"; got ${quoteExcerpt(text)}` },
    ]);
  }
  const limits = { requests: Number(match[1]), windowMs: Number(match[2]) };
  const problem = rateBudgetProblem(limits);
  if (problem) throw new SettingsError([{ field: 'rateBudget', reason: problem }]);
  return limits;
}

/** Reads a per-second cap: a whole number of requests (e.g. `200`) or `off`, within the client's bounds. */
export function parseRateBudgetPerSecond(text: string): number | false {
  if (text === 'off') return false;
  if (!/^\d+$/.test(text)) {
    throw new SettingsError([
      { field: 'rateBudgetPerSecond', reason: `must be a whole number of requests a second, for example "200", or "off"; got ${quoteExcerpt(text)}` },
    ]);
  }
  const problem = requestsPerSecondProblem(Number(text));
  if (problem) throw new SettingsError([{ field: 'rateBudgetPerSecond', reason: problem }]);
  return Number(text);
}

/**
 * Reads the rate budget store setting: a `redis://` or `rediss://` URL with a host. A password in it never reaches
 * a message.
 */
export function parseRateBudgetStore(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    const shown = redactStoreUrl(text);
    throw new SettingsError([
      {
        field: 'rateBudgetStore',
        reason: `must be a redis:// or rediss:// URL with a host, for example "redis://redis.internal:6379" (percent-encode a / : or @ of the password); got ${quoteExcerpt(shown)}`,
      },
    ]);
  }
  return text;
}

/**
 * Text with the user and password of every URL in it masked (`redis://***@host`). Up to the LAST `@` of the URL: a
 * password that holds `/` or `@` not percent-encoded is not a valid URL, and a parser would stop at its first `/`
 * and show the rest. The one redaction of a store URL, for every message that may quote one.
 */
export function redactStoreUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s"']*@/gi, '$1***@');
}

/** Throws a SettingsError for `field` when `problem` says something is wrong. */
function check(field: SettingName, problem: string | undefined): void {
  if (problem !== undefined) throw new SettingsError([{ field, reason: problem }]);
}

type Lookup = (key: string) => string | undefined;

/**
 * Resolves the base URL and credentials from the stack config (set by `configure`), falling back to the
 * environment. Pure: the config lookup and the environment are passed in. Throws a SettingsError.
 */
export function resolveSettings(config: Lookup, env: Record<string, string | undefined>): ClientSettings {
  const read = (name: SettingName) => {
    const source = SETTING_SOURCES[name];
    const value = config(source.config) ?? env[source.env];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  // Checked here, so a provider's `check` fails at preview on a bad value instead of `up` failing on every call.
  const baseUrl = read('baseUrl') ?? DEFAULT_BASE_URL;
  check('baseUrl', baseUrlProblem(baseUrl));
  const budget = read('rateBudget');
  const store = read('rateBudgetStore');
  const perSecond = read('rateBudgetPerSecond');
  const rest = {
    baseUrl: checkBaseUrl(baseUrl),
    ...(budget === undefined ? {} : { rateBudget: parseRateBudget(budget) }),
    ...(store === undefined ? {} : { rateBudgetStore: parseRateBudgetStore(store) }),
    ...(perSecond === undefined ? {} : { rateBudgetPerSecond: parseRateBudgetPerSecond(perSecond) }),
  };
  const apiToken = read('apiToken');
  if (apiToken) {
    check('apiToken', credentialProblem(apiToken));
    return { ...rest, credentials: { apiToken } };
  }
  const apiEmail = read('apiEmail');
  const apiKey = read('apiKey');
  if (apiEmail && apiKey) {
    check('apiEmail', credentialProblem(apiEmail));
    check('apiKey', credentialProblem(apiKey));
    return { ...rest, credentials: { apiEmail, apiKey } };
  }
  if (apiEmail || apiKey) throw new SettingsError([{ field: apiEmail ? 'apiKey' : 'apiEmail', reason: MISSING }]);
  throw new SettingsError([{ field: 'apiToken', reason: MISSING }]);
}
