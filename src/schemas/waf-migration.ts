import { z } from 'zod';
import { TimestampSchema } from './common';

/**
 * Where a zone is in the migration (docs/service.md#migration-modes). `start` is the service's; the others are
 * this project's names for its modes: validation (both WAFs on), pending (new WAF being enabled), complete (new WAF only).
 */
export const MigrationStateSchema = z.enum(['start', 'validation', 'pending', 'complete']);
export type MigrationState = z.infer<typeof MigrationStateSchema>;

/** Result of GET /zones/{zone_id}/waf_migration/check?phase_two=1. */
export const CompatibilitySchema = z.object({
  compatible: z.boolean(),
  migration_state: MigrationStateSchema.or(z.string()),
});
export type Compatibility = z.infer<typeof CompatibilitySchema>;

/** Query value of waf_migration on the entry point update: its named and numeric forms (docs/service.md#migration-calls). */
export const WafMigrationModeSchema = z
  .enum(['pending', '1', 'validation', '2'], { error: 'must be pending (or 1) or validation (or 2)' })
  .transform((value) => (value === 'pending' || value === '1' ? 'pending' : 'validation'));
export type WafMigrationMode = z.output<typeof WafMigrationModeSchema>;

/** Result of GET /zones/{zone_id}/waf_migration/status. */
export const WafStatusSchema = z.object({
  migration_state: MigrationStateSchema.or(z.string()),
  old_waf_status: z.enum(['enabled', 'disabled']),
  new_waf_status: z.enum(['enabled', 'disabled']),
  created: TimestampSchema.optional(),
  source: z.string().optional(),
});
export type WafStatus = z.infer<typeof WafStatusSchema>;
