import type { z } from 'zod';
import {
  CompatibilitySchema,
  EntrypointRulesetSchema,
  MANAGED_PHASE,
  SavedRulesetSchema,
  WafStatusSchema,
  type Compatibility,
  type EntrypointRuleset,
  type SavedRuleset,
  type WafMigrationMode,
  type WafStatus,
} from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';

/** Every migration call selects the second phase of the migration (docs/service.md#migration-calls). */
const PHASE_TWO = { phase_two: 1 } as const;

/** The WAF managed rules migration: /zones/{zone_id}/waf_migration and the managed phase's entry point. */
export class WafMigrationGroup {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** GET /zones/{zone_id}/waf_migration/check?phase_two=1: whether the zone can migrate. */
  check({ zoneId }: ZoneArgs): Promise<Compatibility> {
    return this.#read(zoneId, 'check', CompatibilitySchema);
  }

  /** GET /zones/{zone_id}/waf_migration/config?phase_two=1: the new configuration equivalent to the previous one. */
  config({ zoneId }: ZoneArgs): Promise<EntrypointRuleset> {
    return this.#read(zoneId, 'config', EntrypointRulesetSchema);
  }

  /**
   * PUT /zones/{zone_id}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=…&phase_two=1.
   * `pending` saves the ruleset and retires the previous WAF (irreversible); `validation` (Enterprise only) runs
   * both side by side. Retried like a POST, only where the service cannot have acted: once it may have received
   * the PUT (5xx, a reset, a timeout), a repeat answers 409 "already migrated" and hides that the first one worked,
   * so the caller reads the status instead (docs/client.md).
   */
  updateEntrypoint({ zoneId, mode, ruleset }: ZoneArgs & { mode: WafMigrationMode; ruleset: EntrypointRuleset }): Promise<SavedRuleset> {
    return this.#transport.call({
      method: 'PUT',
      path: zonePath(zoneId, 'rulesets', 'phases', MANAGED_PHASE, 'entrypoint'),
      query: { waf_migration: mode, ...PHASE_TWO },
      json: ruleset,
      schema: SavedRulesetSchema,
      retryAsPost: true,
    });
  }

  /** GET /zones/{zone_id}/waf_migration/status?phase_two=1: old and new WAF state and the migration state. */
  status({ zoneId }: ZoneArgs): Promise<WafStatus> {
    return this.#read(zoneId, 'status', WafStatusSchema);
  }

  /** GET /zones/{zone_id}/waf_migration/{what}?phase_two=1, parsed with `schema`. */
  #read<S extends z.ZodType>(zoneId: string, what: 'check' | 'config' | 'status', schema: S): Promise<z.output<S>> {
    return this.#transport.call({ method: 'GET', path: zonePath(zoneId, 'waf_migration', what), query: PHASE_TWO, schema });
  }
}
