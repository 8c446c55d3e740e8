import { z } from 'zod';
import { HexIdSchema } from './common';

/** A URI-based override of the previous WAF (creatable only through the API); it blocks the migration. */
export const WafOverrideSchema = z.object({
  id: HexIdSchema,
  description: z.string().nullable().optional(),
  urls: z.array(z.string()),
  paused: z.boolean().optional(),
  priority: z.number().int().optional(),
  groups: z.record(z.string(), z.string()).optional(),
  rules: z.record(z.string(), z.string()).optional(),
  rewrite_action: z.record(z.string(), z.string()).optional(),
});
export type WafOverride = z.infer<typeof WafOverrideSchema>;

/** Body of POST /zones/{zone_id}/firewall/waf/overrides: the override without its id; at least one URL. */
export const WafOverrideCreateSchema = WafOverrideSchema.omit({ id: true })
  .extend({ urls: z.array(z.string().min(1, 'must not be empty')).min(1, 'must list at least one URL pattern') })
  .strict();
export type WafOverrideCreate = z.infer<typeof WafOverrideCreateSchema>;

/** Sensitivity of the previous core rule set (docs/service.md#sensitivity-conversion has Default too). */
export const WafSensitivitySchema = z.enum(['default', 'high', 'medium', 'low', 'off']);
export type WafSensitivity = z.infer<typeof WafSensitivitySchema>;

/** Action mode of the previous core rule set. */
export const WafActionModeSchema = z.enum(['simulate', 'block', 'challenge']);
export type WafActionMode = z.infer<typeof WafActionModeSchema>;

/** A previous-WAF package: the vendor's managed package, or the anomaly (OWASP core rule set) package. */
export const WafPackageSchema = z.object({
  id: HexIdSchema,
  name: z.string(),
  description: z.string().nullable().optional(),
  zone_id: HexIdSchema,
  detection_mode: z.enum(['anomaly', 'traditional']),
  status: z.string().optional(),
  sensitivity: WafSensitivitySchema.optional(),
  action_mode: WafActionModeSchema.optional(),
});
export type WafPackage = z.infer<typeof WafPackageSchema>;

/** A rule group of a previous-WAF package (public API): on or off as a whole, its rules counted. */
export const WafGroupSchema = z.object({
  id: HexIdSchema,
  name: z.string(),
  description: z.string().nullable(),
  rules_count: z.number().int(),
  modified_rules_count: z.number().int(),
  package_id: HexIdSchema,
  mode: z.enum(['on', 'off']),
  allowed_modes: z.array(z.enum(['on', 'off'])),
});
export type WafGroup = z.infer<typeof WafGroupSchema>;
