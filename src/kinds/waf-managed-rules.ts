import { declareKind } from './declaration';

/**
 * A zone's entry point of the managed phase after the migration
 * (`/zones/{zone_id}/rulesets/phases/http_request_firewall_managed/entrypoint`), its rules keyed by ref.
 */
export const WafManagedRulesKind = declareKind({
  kind: 'WafManagedRules',
  fields: [
    { input: 'zoneId', wire: 'zone_id', change: 'replace' },
    { input: 'order', wire: 'rules', change: 'update' },
    { input: 'rules', wire: 'rules', change: 'update' },
    { input: 'restoreOnDelete', wire: '', change: 'state' },
  ],
  outputs: ['ruleIds', 'version', 'recorded'],
  identity: { object: 'managedEntrypoint', scope: 'zone', noun: 'the WAF managed rules entry point of zone', marker: 'description' },
  deleteBeforeReplace: true,
});
