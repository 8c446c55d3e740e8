import { z } from 'zod';
import { ZoneIdSchema } from '../schemas';
import { AdjustmentsSchema, NO_ADJUSTMENTS } from '../migration/adjustments';
import { MigrationModeSchema } from '../migration/steps';
import { declareKind, inPlace, zoneField } from './declaration';

/** How long create and update wait for the zone to reach the declared mode, and how often they look. */
export const DEFAULT_WAIT = { timeoutSeconds: 900, pollIntervalSeconds: 5 } as const;

/** Wait settings: bounded, so a stuck migration fails the run instead of hanging it. */
export const WaitSchema = z
  .object({
    timeoutSeconds: z.number().positive('must be more than 0').max(86_400, 'must be at most 86400 (a day)').default(DEFAULT_WAIT.timeoutSeconds),
    pollIntervalSeconds: z.number().positive('must be more than 0').max(600, 'must be at most 600').default(DEFAULT_WAIT.pollIntervalSeconds),
  })
  .strict();

/**
 * A zone's one-way migration to the new WAF (`/zones/{zone_id}/waf_migration`): never replaced, never deleted;
 * another zone is refused by `check` (docs/service.md#migration-modes).
 */
export const WafMigrationKind = declareKind('WafMigration', {
  args: z
    .object({
      zoneId: ZoneIdSchema,
      mode: MigrationModeSchema,
      adjustments: AdjustmentsSchema.default(NO_ADJUSTMENTS),
      wait: WaitSchema.default({ ...DEFAULT_WAIT }),
    })
    .strict(),
  fields: [zoneField('refused'), ...inPlace('mode'), { input: 'adjustments', wire: '', change: 'update' }, { input: 'wait', wire: '', change: 'state' }],
  outputs: ['migrationState', 'previousWafStatus', 'newWafStatus', 'submittedRuleset', 'conversion'],
  identity: { object: 'wafMigration', scope: 'zone', noun: 'the WAF migration of zone', marker: 'none' },
  // A short wait: the tests' emulator migrates at once.
  example: { mode: 'direct', wait: { timeoutSeconds: 5, pollIntervalSeconds: 0.02 } },
});
