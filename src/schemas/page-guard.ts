import { z } from 'zod';
import { TimestampSchema } from './common';

/** Page security settings of a zone (GET /zones/{zone_id}/page_guard). */
export const PageGuardSettingsSchema = z.object({
  enabled: z.boolean(),
  updated_at: TimestampSchema.optional(),
  use_vendor_reporting_endpoint: z.boolean().optional(),
  use_connection_url_path: z.boolean().optional(),
});
/** The wire type of the page security settings: `Wire`, since `PageGuardSettings` is the resource class (docs/CONTRACTS.md#names). */
export type PageGuardSettingsWire = z.infer<typeof PageGuardSettingsSchema>;

/** Body of PUT /zones/{zone_id}/page_guard: every field optional, at least one given. */
export const PageGuardSettingsUpdateSchema = z
  .object({
    enabled: z.boolean(),
    use_vendor_reporting_endpoint: z.boolean(),
    use_connection_url_path: z.boolean(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, {
    message: 'at least one of enabled, use_vendor_reporting_endpoint, use_connection_url_path is required',
  });
export type PageGuardSettingsUpdate = z.infer<typeof PageGuardSettingsUpdateSchema>;

/**
 * The settings a PageGuardSettings resource declares, by its (camelCase) name, with the wire field of each: one
 * table from which the provider's inputs, outputs and PUT body and `zoneguard export` are built.
 */
export const PAGE_GUARD_SETTING_FIELDS = {
  enabled: 'enabled',
  useVendorReportingEndpoint: 'use_vendor_reporting_endpoint',
  useConnectionUrlPath: 'use_connection_url_path',
} as const satisfies Record<string, keyof z.input<typeof PageGuardSettingsUpdateSchema>>;
export type PageGuardSettingName = keyof typeof PAGE_GUARD_SETTING_FIELDS;
