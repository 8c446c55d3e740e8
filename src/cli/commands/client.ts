import { ZoneGuardClient } from '../../client';
import { secretValuesOf } from '../../client/credentials';
import { MISSING, SettingsError, resolveSettings, SETTING_SOURCES, type SettingName, type SettingProblem } from '../../client/settings';
import { UsageError } from './io';

/** Flags every command that talks to the service takes. */
export interface ConnectionOptions {
  baseUrl?: string;
  apiToken?: string;
  apiEmail?: string;
  apiKey?: string;
}

/**
 * The client, from the flags first and the providers' environment variables second (resolveSettings, the same
 * rules as the providers). Credential flags are taken as a set: any of them given, the environment's credentials
 * are ignored, so a flag never mixes with a variable into a half-pair. ZONEGUARD_RATE_BUDGET,
 * ZONEGUARD_RATE_BUDGET_STORE and ZONEGUARD_RATE_BUDGET_PER_SECOND apply as they do to the providers.
 */
export function clientFrom(options: ConnectionOptions, env: Record<string, string | undefined>): { client: ZoneGuardClient; secrets: string[] } {
  const flags: Record<string, string | undefined> = {
    [SETTING_SOURCES.baseUrl.config]: options.baseUrl,
    [SETTING_SOURCES.apiToken.config]: options.apiToken,
    [SETTING_SOURCES.apiEmail.config]: options.apiEmail,
    [SETTING_SOURCES.apiKey.config]: options.apiKey,
  };
  const anyCredentialFlag = options.apiToken !== undefined || options.apiEmail !== undefined || options.apiKey !== undefined;
  const kept = [SETTING_SOURCES.baseUrl.env, SETTING_SOURCES.rateBudget.env, SETTING_SOURCES.rateBudgetStore.env, SETTING_SOURCES.rateBudgetPerSecond.env];
  const environment = anyCredentialFlag ? Object.fromEntries(kept.map((name) => [name, env[name]])) : env;
  let settings;
  try {
    settings = resolveSettings((key) => flags[key], environment);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    throw new UsageError(error.problems.map(describeForCli).join('; '));
  }
  const secrets = secretValuesOf(settings.credentials);
  return { client: new ZoneGuardClient(settings), secrets };
}

/** The CLI's name of a setting: its flag, and the variable (`--base-url (or ZONEGUARD_BASE_URL)`); the rate budget has no flag. */
function cliName(field: SettingName): string {
  const flags: Partial<Record<SettingName, string>> = { apiToken: '--api-token', apiEmail: '--api-email', apiKey: '--api-key', baseUrl: '--base-url' };
  const flag = flags[field];
  return flag ? `${flag} (or ${SETTING_SOURCES[field].env})` : SETTING_SOURCES[field].env;
}

/** A settings problem in the CLI's words: its flags first, then the variables. */
function describeForCli({ field, reason }: SettingProblem): string {
  if (reason !== MISSING) return `${cliName(field)}: ${reason}`;
  const { apiToken, apiEmail, apiKey } = SETTING_SOURCES;
  return field === 'apiToken'
    ? `no credentials: pass --api-token or set ${apiToken.env} (or --api-email and --api-key, or ${apiEmail.env} and ${apiKey.env})`
    : `the key form of credentials needs both --api-email and --api-key (or ${apiEmail.env} and ${apiKey.env})`;
}
