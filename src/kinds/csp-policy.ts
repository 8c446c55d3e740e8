import { z } from 'zod';
import { expressionCheckFailures } from '../expression/failures';
import { FIREWALL_LIMITS, HexIdSchema, ZoneIdSchema, cspValueProblems } from '../schemas';
import { CSP_DESCRIPTION_MAX, CspPolicyCreateSchema } from '../schemas/csp-policy';
import { ownTextSchema } from '../schemas/owner-marker';
import { adoption, declareKind, inPlace, zoneField } from './declaration';
import { TakeOverSchema } from './marker';

const wire = CspPolicyCreateSchema.shape;

/** A content security policy (`/zones/{zone_id}/page_guard/policies`). `enabled` is text on the wire (docs/service.md#policy-enabled). */
export const CspPolicyKind = declareKind('CspPolicy', {
  // The wire fields in camelCase, `enabled` a boolean.
  args: z
    .object({
      zoneId: ZoneIdSchema,
      // Its own text: the owner marker takes room of the service's limit (docs/ownership.md).
      description: ownTextSchema(CSP_DESCRIPTION_MAX).default(''),
      action: wire.action,
      // The rules language's bound on filters holds for a policy's expression too (docs/inputs.md).
      expression: wire.expression.max(FIREWALL_LIMITS.expressionMax, `must be at most ${FIREWALL_LIMITS.expressionMax} characters`).superRefine((text, ctx) => {
        // An empty or too long expression already has its failure from the length checks.
        if (text === '' || text.length > FIREWALL_LIMITS.expressionMax) return;
        for (const message of expressionCheckFailures(text)) ctx.addIssue({ code: 'custom', message });
      }),
      enabled: z.boolean().default(true),
      value: wire.value.superRefine((value, ctx) => {
        for (const message of cspValueProblems(value)) ctx.addIssue({ code: 'custom', message });
      }),
      adoptPolicyId: HexIdSchema.optional(),
      takeOver: TakeOverSchema,
    })
    .strict(),
  fields: [zoneField('replace'), ...inPlace('action', 'expression', 'value', 'enabled', 'description'), ...adoption('adoptPolicyId')],
  outputs: ['policyId'],
  // A policy has no ref: its description is the one free field (docs/service.md#csp-policies).
  identity: {
    object: 'cspPolicy',
    scope: 'object',
    idOutput: 'policyId',
    adoptInput: 'adoptPolicyId',
    noun: 'policy',
    marker: 'description',
    markerMax: CSP_DESCRIPTION_MAX,
  },
  example: { action: 'log', expression: 'http.host eq "shop.example.com"', value: "script-src 'self'" },
  // A policy has no field of its own to tell it by: every field it stores.
  createdWith: ['action', 'expression', 'value', 'enabled', 'description'],
});
