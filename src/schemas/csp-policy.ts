import { z } from 'zod';
import { HexIdSchema } from './common';

/** CSP policy actions: log, allow, and add_reporting_directives added later (docs/service.md#csp-policies). */
export const CspActionSchema = z.enum(['log', 'allow', 'add_reporting_directives']);
export type CspAction = z.infer<typeof CspActionSchema>;

/**
 * `enabled` of a CSP policy. The service shows the text form ("true") in requests and responses, the public
 * API a JSON boolean (docs/service.md#policy-enabled): both are read, and the result is always a boolean.
 */
export const CspEnabledSchema = z
  .union([z.boolean(), z.enum(['true', 'false'])], {
    error: 'must be true or false (a JSON boolean or the text "true"/"false")',
  })
  .transform((value) => value === true || value === 'true');

/** The wire form of `enabled`: text (docs/service.md#policy-enabled). */
export function cspEnabledToWire(enabled: boolean): 'true' | 'false' {
  return enabled ? 'true' : 'false';
}

/** Longest description the service keeps. */
export const CSP_DESCRIPTION_MAX = 500;

const fields = {
  description: z.string().max(CSP_DESCRIPTION_MAX, `must be at most ${CSP_DESCRIPTION_MAX} characters`),
  action: CspActionSchema,
  expression: z.string().min(1, 'must not be empty'),
  enabled: CspEnabledSchema,
  value: z.string().min(1, 'must not be empty'),
};

/** A CSP policy as the service answers it, `enabled` already read as a boolean. */
export const CspPolicySchema = z.object({ id: HexIdSchema, ...fields });
/** The wire type of a CSP policy: `Wire`, since `CspPolicy` is the resource class (docs/CONTRACTS.md#names). */
export type CspPolicyWire = z.infer<typeof CspPolicySchema>;

/** Body of POST /zones/{zone_id}/page_guard/policies (all fields required). */
export const CspPolicyCreateSchema = z.object(fields);
export type CspPolicyCreate = z.input<typeof CspPolicyCreateSchema>;

/**
 * The fields of a policy a user declares, in one table taken from the wire schema: the provider's outputs, update
 * body and diff, and `zoneguard export` are built from it, so a field added to the schema reaches all of them.
 */
export const CSP_POLICY_FIELDS = CspPolicyCreateSchema.keyof().options;
export type CspPolicyField = (typeof CSP_POLICY_FIELDS)[number];

/**
 * Body of PUT /zones/{zone_id}/page_guard/policies/{policy_id}: a partial update. `id` may be sent back as read;
 * the emulator refuses one that differs from the path, as for rules and filters.
 */
export const CspPolicyUpdateSchema = z.object({ id: HexIdSchema, ...fields }).partial();
export type CspPolicyUpdate = z.input<typeof CspPolicyUpdateSchema>;
