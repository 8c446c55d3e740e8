import { z } from 'zod';
import { HexIdSchema } from './common';
import { FilterCreateSchema, FilterSchema, FIREWALL_LIMITS } from './filters';

/** Firewall rule actions. The action is a string (the public description's object form is a known defect). */
export const FirewallActionSchema = z.enum([
  'block',
  'challenge',
  'js_challenge',
  'managed_challenge',
  'allow',
  'log',
  'bypass',
]);
export type FirewallAction = z.infer<typeof FirewallActionSchema>;

/** Products a `bypass` rule skips (public API); required with bypass, refused otherwise. */
export const FirewallProductSchema = z.enum(['zoneLockdown', 'uaBlock', 'bic', 'hot', 'securityLevel', 'rateLimit', 'waf']);
export type FirewallProduct = z.infer<typeof FirewallProductSchema>;

/**
 * What is wrong with a rule's `products` given its action, or undefined: required (at least one) with bypass, refused
 * with any other action (public API). The one decision; the emulator and the providers word it. Pure.
 */
export function productsProblem(action: string, products: readonly unknown[] | undefined): 'required' | 'refused' | undefined {
  if (action === 'bypass' && (products === undefined || products.length === 0)) return 'required';
  if (action !== 'bypass' && products !== undefined) return 'refused';
  return undefined;
}

const ruleFields = {
  action: FirewallActionSchema,
  paused: z.boolean().optional(),
  priority: z
    .number()
    .int('must be a whole number')
    .min(FIREWALL_LIMITS.priorityMin)
    .max(FIREWALL_LIMITS.priorityMax)
    .nullable()
    .optional(),
  description: z.string().max(FIREWALL_LIMITS.descriptionMax, `must be at most ${FIREWALL_LIMITS.descriptionMax} characters`).optional(),
  ref: z.string().max(FIREWALL_LIMITS.refMax, `must be at most ${FIREWALL_LIMITS.refMax} characters`).optional(),
  products: z.array(FirewallProductSchema).optional(),
};

/** A firewall rule as the service answers it, with its filter. */
export const FirewallRuleSchema = z.object({
  id: HexIdSchema,
  paused: z.boolean(),
  action: FirewallActionSchema.or(z.string()),
  priority: z.number().int().nullable().optional(),
  description: z.string().optional(),
  ref: z.string().optional(),
  products: z.array(z.string()).optional(),
  filter: FilterSchema.partial({ paused: true }).extend({ deleted: z.boolean().optional() }),
});
/** The wire type of a firewall rule: `Wire`, since `FirewallRule` is the resource class (docs/CONTRACTS.md#names). */
export type FirewallRuleWire = z.infer<typeof FirewallRuleSchema>;

/**
 * One element of the create body: with a filter by expression it is the single-call form (the service creates
 * the filter too); with a filter by id it is the recommended two-call form's second call.
 */
export const FirewallRuleCreateItemSchema = z.object({
  ...ruleFields,
  filter: z.union([FilterCreateSchema.strict(), z.object({ id: HexIdSchema }).strict()], {
    error: 'must be an object with expression (a new filter) or id (an existing filter)',
  }),
});
export type FirewallRuleCreateItem = z.infer<typeof FirewallRuleCreateItemSchema>;

/** Body of POST /zones/{zone_id}/firewall/rules: a JSON array (never one object). */
export const FirewallRuleCreateBodySchema = z.array(FirewallRuleCreateItemSchema).min(1, 'must hold at least one rule');

/** Body of PUT /zones/{zone_id}/firewall/rules/{rule_id}: the filter is referenced by id. */
export const FirewallRuleUpdateSchema = z.object({
  id: HexIdSchema.optional(),
  ...ruleFields,
  filter: z.object({ id: HexIdSchema }),
});
export type FirewallRuleUpdate = z.infer<typeof FirewallRuleUpdateSchema>;

/** Body of the bulk PUT /zones/{zone_id}/firewall/rules: every rule whole, each naming its id; all or none applied. */
export const FirewallRuleBulkUpdateSchema = z.array(FirewallRuleUpdateSchema.extend({ id: HexIdSchema })).min(1, 'must hold at least one rule');

/** Body of PATCH /zones/{zone_id}/firewall/rules/{rule_id}: the fields to change (the public API's use: priority). */
export const FirewallRulePatchSchema = FirewallRuleUpdateSchema.partial();
export type FirewallRulePatch = z.infer<typeof FirewallRulePatchSchema>;

/** Body of the bulk PATCH /zones/{zone_id}/firewall/rules: the fields to change of each rule named by id. */
export const FirewallRuleBulkPatchSchema = z.array(FirewallRulePatchSchema.extend({ id: HexIdSchema })).min(1, 'must hold at least one rule');

/** Result of DELETE /zones/{zone_id}/firewall/rules/{rule_id}: the rule id, and whether its filter went too. */
export const FirewallRuleDeleteResultSchema = z.object({
  id: HexIdSchema,
  filter: z.object({ id: HexIdSchema, deleted: z.boolean() }).optional(),
});
export type FirewallRuleDeleteResult = z.infer<typeof FirewallRuleDeleteResultSchema>;
