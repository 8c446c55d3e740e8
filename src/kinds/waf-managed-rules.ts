import { declareKind, zoneField } from './declaration';

/**
 * A zone's entry point of the managed phase after the migration
 * (`/zones/{zone_id}/rulesets/phases/http_request_firewall_managed/entrypoint`), its rules keyed by ref; one per
 * zone, so another zone deletes the old resource's rules before it takes the new zone's over.
 */
export const WafManagedRulesKind = declareKind('WafManagedRules', {
  fields: [zoneField('replace'), { input: 'order', wire: 'rules', change: 'update' }, { input: 'rules', wire: 'rules', change: 'update' }, { input: 'restoreOnDelete', wire: '', change: 'state' }],
  outputs: ['ruleIds', 'version', 'recorded'],
  identity: { object: 'managedEntrypoint', scope: 'zone', noun: 'the WAF managed rules entry point of zone', marker: 'description' },
  deleteBeforeReplace: true,
});
