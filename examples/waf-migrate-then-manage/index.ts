// A zone moved to the new WAF managed rules, then its new WAF managed as code, in one program:
//   1. pulumi up: WafMigration submits the converted configuration and waits until the previous WAF is off; then
//      WafManagedRules (dependsOn the migration) takes the zone's managed entry point over. It declares what the
//      migration submitted, under the refs the migration gives its rules, so the take-over writes once: its owner
//      marker.
//   2. pulumi config set officeNetwork 192.0.2.0/24 && pulumi up: one exception added before the managed rulesets.
//      The preview names only that rule, and the entry point is written once.
// The rules below are what the conversion makes of the demo Pro zone (previous WAF at medium sensitivity, simulate).
// For your zone, `zoneguard export --zone <id>` after the migration, or `zoneguard migration plan --zone <id>`
// before it, prints the rules to start from.
import * as pulumi from '@pulumi/pulumi';
import { MANAGED_RULESET_ID, OWASP_ANOMALY_SCORE_RULE_ID, OWASP_RULESET_ID, WafManagedRules, WafMigration } from 'pulumi-zoneguard';
import type { WafManagedRuleArgs } from 'pulumi-zoneguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const officeNetwork = config.get('officeNetwork') ?? '';

// Protected by default: a migration cannot be undone (docs/firewall-and-migration.md).
const migration = new WafMigration('waf-migration', { zoneId, mode: 'direct' });

const exceptions: WafManagedRuleArgs[] =
  officeNetwork === ''
    ? []
    : [
        {
          ref: 'office',
          description: 'The office network skips the managed rules',
          expression: `ip.src in {${officeNetwork}}`,
          skip: { ruleset: 'current' },
        },
      ];

const managedRules = new WafManagedRules(
  'waf-rules',
  {
    zoneId,
    rules: [
      // An exception runs before the rules it skips.
      ...exceptions,
      { ref: 'managed-ruleset', description: 'Cloudflare Managed Ruleset', execute: { rulesetId: MANAGED_RULESET_ID } },
      {
        ref: 'owasp-core-ruleset',
        description: 'Cloudflare OWASP Core Ruleset',
        execute: {
          rulesetId: OWASP_RULESET_ID,
          // The previous medium sensitivity converts to paranoia level 1 and an anomaly score of 25 (docs/service.md).
          categories: [
            { category: 'paranoia-level-2', enabled: false },
            { category: 'paranoia-level-3', enabled: false },
            { category: 'paranoia-level-4', enabled: false },
          ],
          // The previous action simulate becomes log: the new ruleset has no simulate.
          rules: [{ id: OWASP_ANOMALY_SCORE_RULE_ID, action: 'log', scoreThreshold: 25 }],
        },
      },
    ],
  },
  // Created once the migration is complete: before it, or in validation, WafManagedRules is refused.
  { dependsOn: [migration] },
);

export const migrationState = migration.migrationState;
/** The refs in the order the rules run. */
export const ruleOrder = managedRules.order;
/** The service's id of each rule, by ref: unchanged rules keep theirs across updates. */
export const ruleIds = managedRules.ruleIds;
