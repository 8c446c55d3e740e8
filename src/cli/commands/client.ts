import { ZoneGuardClient } from '../../client';
import { secretValuesOf } from '../../client/credentials';
import { SettingsError, resolveSettings, SETTING_SOURCES, type NameSetting } from '../../client/settings';
import { UsageError } from './io';
import type { ConnectionOptions } from './options';

/**
 * The client, from the flags first and the providers' environment variables second (resolveSettings, the same
 * rules as the providers). Credential flags are taken as a set: any of them given, the environment's credentials
 * are ignored, so a flag never mixes with a variable into a half-pair. ZONEGUARD_RATE_BUDGET and
 * ZONEGUARD_RATE_BUDGET_STORE apply as they do to the providers.
 */
export function clientFrom(options: ConnectionOptions, env: Record<string, string | undefined>): { client: ZoneGuardClient; secrets: string[] } {
  const flags: Record<string, string | undefined> = {
    [SETTING_SOURCES.baseUrl.config]: options.baseUrl,
    [SETTING_SOURCES.apiToken.config]: options.apiToken,
    [SETTING_SOURCES.apiEmail.config]: options.apiEmail,
    [SETTING_SOURCES.apiKey.config]: options.apiKey,
  };
  const anyCredentialFlag = options.apiToken !== undefined || options.apiEmail !== undefined || options.apiKey !== undefined;
  const kept = [SETTING_SOURCES.baseUrl.env, SETTING_SOURCES.rateBudget.env, SETTING_SOURCES.rateBudgetStore.env];
  const environment = anyCredentialFlag ? Object.fromEntries(kept.map((name) => [name, env[name]])) : env;
  let settings;
  try {
    settings = resolveSettings((key) => flags[key], environment, nameForCli);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    // A malformed value (base URL, rate budget, a credential a header cannot carry) says what is wrong with it.
    if (error.setting) throw new UsageError(error.message.replace(/^zoneguard: /, ''));
    const half = (options.apiEmail ?? environment[SETTING_SOURCES.apiEmail.env]) || (options.apiKey ?? environment[SETTING_SOURCES.apiKey.env]);
    throw new UsageError(
      half
        ? `the key form of credentials needs both --api-email and --api-key (or ${SETTING_SOURCES.apiEmail.env} and ${SETTING_SOURCES.apiKey.env})`
        : `no credentials: pass --api-token or set ${SETTING_SOURCES.apiToken.env} (or --api-email and --api-key, ` +
            `or ${SETTING_SOURCES.apiEmail.env} and ${SETTING_SOURCES.apiKey.env})`,
    );
  }
  const secrets = secretValuesOf(settings.credentials);
  return { client: new ZoneGuardClient(settings), secrets };
}

/** The CLI's name of a setting: its flag, and the variable (`--base-url (or ZONEGUARD_BASE_URL)`); the rate budget has no flag. */
const nameForCli: NameSetting = (source) => {
  const flags: Record<string, string | undefined> = {
    [SETTING_SOURCES.apiToken.config]: '--api-token',
    [SETTING_SOURCES.apiEmail.config]: '--api-email',
    [SETTING_SOURCES.apiKey.config]: '--api-key',
    [SETTING_SOURCES.baseUrl.config]: '--base-url',
  };
  const flag = flags[source.config];
  return flag ? `${flag} (or ${source.env})` : source.env;
};
