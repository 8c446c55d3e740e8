import { declareKind, zoneField } from './declaration';

/**
 * A zone's one-way migration to the new WAF (`/zones/{zone_id}/waf_migration`): never replaced, never deleted;
 * another zone is refused by `check` (docs/service.md#migration-modes).
 */
export const WafMigrationKind = declareKind('WafMigration', {
  fields: [zoneField('refused'), { input: 'mode', wire: 'mode', change: 'update' }, { input: 'adjustments', wire: '', change: 'update' }, { input: 'wait', wire: '', change: 'state' }],
  outputs: ['migrationState', 'previousWafStatus', 'newWafStatus', 'submittedRuleset', 'conversion'],
  identity: { object: 'wafMigration', scope: 'zone', noun: 'the WAF migration of zone', marker: 'none' },
});
