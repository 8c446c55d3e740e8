import { MANAGED_PHASE, SavedRulesetSchema, type EntrypointRuleset, type SavedRuleset } from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';

const entrypointPath = (zoneId: string) => zonePath(zoneId, 'rulesets', 'phases', MANAGED_PHASE, 'entrypoint');

/**
 * The http_request_firewall_managed entry point outside the migration: /zones/{zone_id}/rulesets/phases/…/entrypoint
 * (docs/emulator.md, "The WAF migration and the entry point"). The migration's own PUT is wafMigration.updateEntrypoint.
 */
export class RulesetsGroup {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** GET the entry point's current version (NotFoundError while the zone has none). */
  getEntrypoint({ zoneId }: ZoneArgs): Promise<SavedRuleset> {
    return this.#transport.call({ method: 'GET', path: entrypointPath(zoneId), schema: SavedRulesetSchema });
  }

  /**
   * PUT the whole entry point as its next version (the ordinary ruleset update: no waf_migration). Rules keep the
   * ids sent; a rule without an id is new. The body replaces the ruleset, so a repeat after a lost answer saves the
   * same rules again: retried like any PUT.
   */
  updateEntrypoint({ zoneId, ruleset }: ZoneArgs & { ruleset: EntrypointRuleset }): Promise<SavedRuleset> {
    return this.#transport.call({ method: 'PUT', path: entrypointPath(zoneId), json: ruleset, schema: SavedRulesetSchema });
  }
}
