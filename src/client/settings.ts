import type { Credentials } from './credentials';

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
} as const;

export interface ClientSettings {
  baseUrl: string;
  credentials: Credentials;
  /** The client's rate budget: `requests/windowMs`, `off`, or the client's default (1200/300000) when unset. */
  rateBudget?: { requests: number; windowMs: number } | false;
}

/** Reads a rate budget setting: `requests/windowMs` (e.g. `1200/300000`) or `off`. */
export function parseRateBudget(text: string): { requests: number; windowMs: number } | false {
  if (text === 'off') return false;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const requests = Number(match?.[1]);
  const windowMs = Number(match?.[2]);
  if (!match || requests < 1 || windowMs < 1) {
    throw new SettingsError(
      `zoneguard: ${SETTING_SOURCES.rateBudget.config} (or ${SETTING_SOURCES.rateBudget.env}) must be "requests/windowMs", ` +
        `for example "1200/300000", or "off"; got ${JSON.stringify(text)}`,
    );
  }
  return { requests, windowMs };
}

/** A setting is missing, half given or malformed; the message names the config keys and variables to set. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

type Lookup = (key: string) => string | undefined;

/**
 * Resolves the base URL and credentials from the stack config (set by `configure`), falling back to the
 * environment. Pure: the config lookup and the environment are passed in.
 */
export function resolveSettings(config: Lookup, env: Record<string, string | undefined>): ClientSettings {
  const read = (name: keyof typeof SETTING_SOURCES) => {
    const source = SETTING_SOURCES[name];
    const value = config(source.config) ?? env[source.env];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const baseUrl = read('baseUrl') ?? DEFAULT_BASE_URL;
  const budget = read('rateBudget');
  const rateBudget = budget === undefined ? {} : { rateBudget: parseRateBudget(budget) };
  const apiToken = read('apiToken');
  if (apiToken) return { baseUrl, credentials: { apiToken }, ...rateBudget };
  const apiEmail = read('apiEmail');
  const apiKey = read('apiKey');
  if (apiEmail && apiKey) return { baseUrl, credentials: { apiEmail, apiKey }, ...rateBudget };
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
