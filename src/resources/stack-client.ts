import * as pulumi from '@pulumi/pulumi';
import { ZoneGuardClient } from '../client';
import { resolveSettings } from '../client/settings';

/**
 * A client for reads inside a Pulumi program (plans, CSPs built from observed scripts), with the same settings the
 * providers use: the stack config (`zoneguard:apiToken`, `zoneguard:apiEmail` + `zoneguard:apiKey`,
 * `zoneguard:baseUrl`, `zoneguard:rateBudget`), then the ZONEGUARD_* environment variables.
 */
export function clientFromStackConfig(userAgent = 'pulumi-zoneguard-program'): ZoneGuardClient {
  const settings = resolveSettings((key) => pulumi.runtime.getConfig(key), process.env);
  return new ZoneGuardClient({ ...settings, userAgent });
}
