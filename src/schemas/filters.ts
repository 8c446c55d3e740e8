import { z } from 'zod';
import { HexIdSchema } from './common';

/** Field limits of filters and firewall rules (public API). */
export const FIREWALL_LIMITS = {
  descriptionMax: 500,
  refMax: 50,
  priorityMin: 0,
  priorityMax: 2147483647,
  /** Longest expression the service accepts on a filter. The 4 KB migration limit is separate (waf-migration). */
  expressionMax: 16384,
} as const;

export const FilterExpressionSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(FIREWALL_LIMITS.expressionMax, `must be at most ${FIREWALL_LIMITS.expressionMax} characters`);

/** A filter (match expression) as the service answers it. */
export const FilterSchema = z.object({
  id: HexIdSchema,
  expression: z.string(),
  paused: z.boolean(),
  description: z.string().optional(),
  ref: z.string().optional(),
});
export type Filter = z.infer<typeof FilterSchema>;

/** One filter of a POST /zones/{zone_id}/filters array. */
export const FilterCreateSchema = z.object({
  expression: FilterExpressionSchema,
  paused: z.boolean().optional(),
  description: z.string().max(FIREWALL_LIMITS.descriptionMax).optional(),
  ref: z.string().max(FIREWALL_LIMITS.refMax).optional(),
});
export type FilterCreate = z.infer<typeof FilterCreateSchema>;

/** Body of PUT /zones/{zone_id}/filters/{filter_id}. */
export const FilterUpdateSchema = FilterCreateSchema.extend({ id: HexIdSchema.optional() });
export type FilterUpdate = z.infer<typeof FilterUpdateSchema>;

/** Body of the bulk PUT /zones/{zone_id}/filters: every filter whole, each naming its id; all or none applied. */
export const FilterBulkUpdateSchema = z.array(FilterUpdateSchema.extend({ id: HexIdSchema })).min(1, 'must hold at least one filter');
