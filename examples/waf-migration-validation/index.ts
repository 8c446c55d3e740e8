// The WAF managed rules migration of an Enterprise zone, in two steps:
//   1. pulumi up with mode "validation" (the default): the new WAF runs beside the previous one; review the
//      security events.
//   2. pulumi config set mode direct && pulumi up: the same configuration is submitted as final and the previous
//      WAF is disabled. A migration cannot be undone: the resource is protected, and going back is refused.
import * as pulumi from '@pulumi/pulumi';
import { OWASP_RULESET_ID, WafMigration, planWafMigration } from 'pulumi-zoneguard';
import type { WafMigrationAdjustments } from 'pulumi-zoneguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const mode = config.get('mode', { allowedValues: ['validation', 'direct'] }) ?? 'validation';

/** Changes to the converted configuration, the same in both steps (changing them in validation resubmits). */
const adjustments: WafMigrationAdjustments = {
  rules: [
    // The conversion sets the OWASP anomaly score rule to the previous sensitivity: block at score 40 from the start.
    { rulesetId: OWASP_RULESET_ID, ruleId: '6179ae15870a4bb7b2d480d4843b323c', action: 'block', scoreThreshold: 40 },
  ],
  // Not a WordPress site.
  categories: [{ category: 'wordpress', enabled: false }],
};

const migration = new WafMigration('waf-migration', { zoneId, mode, adjustments });

/**
 * What the migration would submit, read only and again at every preview: compatibility, the converted configuration
 * with the adjustments applied, what the conversion changes or drops, the limits, and any problem that would stop it.
 */
export const wafPlan = planWafMigration({ zoneId, adjustments });
export const migrationMode = migration.mode;
export const migrationState = migration.migrationState;
export const previousWafStatus = migration.previousWafStatus;
export const newWafStatus = migration.newWafStatus;
