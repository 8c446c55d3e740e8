import { z } from 'zod';
import { ZoneIdSchema } from '../schemas';
import { MANAGED_RULESET_ID } from '../schemas/service';
import { MANAGED_RULE_LIMITS, ManagedRuleSchema } from '../rulesets/managed-rules';
import { createOnly, declareKind, inPlace, zoneField } from './declaration';
import { TakeOverSchema } from './marker';

/**
 * A zone's entry point of the managed phase after the migration
 * (`/zones/{zone_id}/rulesets/phases/http_request_firewall_managed/entrypoint`), its rules keyed by ref; one per
 * zone, so another zone deletes the old resource's rules before it takes the new zone's over.
 */
export const WafManagedRulesKind = declareKind('WafManagedRules', {
  /**
   * Inputs of a WafManagedRules as the provider sees them: the rules keyed by ref and their order. The resource class
   * turns the user's ordered list into this shape, so the engine's diff names a rule by its ref, never by a position
   * that shifts when another rule is added or removed.
   */
  args: z
    .object({
      zoneId: ZoneIdSchema,
      /** The refs, in the order the rules run. */
      order: z
        .array(
          z
            .string()
            .min(1, 'must not be empty (a rule needs a ref)')
            .max(MANAGED_RULE_LIMITS.refMax, `must be at most ${MANAGED_RULE_LIMITS.refMax} characters (a ref)`)
            // Failures name a rule's fields as rules.<ref>.<field>: with a dot in the ref, the path would not say where the ref ends.
            .refine((ref) => !ref.includes('.'), {
              error: (issue) =>
                `ref ${JSON.stringify(issue.input)} must not contain a dot: failures name a rule as rules.<ref>.<field>, so a dot would make them ambiguous; use - or _ instead`,
            }),
        )
        .max(MANAGED_RULE_LIMITS.rulesMax, `must hold at most ${MANAGED_RULE_LIMITS.rulesMax} rules; split them over fewer, broader rules`),
      rules: z.record(z.string().max(MANAGED_RULE_LIMITS.refMax, `must be at most ${MANAGED_RULE_LIMITS.refMax} characters (a ref)`), ManagedRuleSchema),
      /** Whether delete puts back the rules create found (the default) or leaves the rules in place. */
      restoreOnDelete: z.boolean().default(true),
      takeOver: TakeOverSchema,
    })
    .strict(),
  fields: [
    zoneField('replace'),
    { input: 'order', wire: 'rules', change: 'update' },
    ...inPlace('rules'),
    { input: 'restoreOnDelete', wire: '', change: 'state' },
    createOnly('takeOver'),
  ],
  outputs: ['ruleIds', 'version', 'recorded'],
  identity: { object: 'managedEntrypoint', scope: 'zone', noun: 'the WAF managed rules entry point of zone', marker: 'description' },
  deleteBeforeReplace: true,
  example: { order: ['managed'], rules: { managed: { execute: { rulesetId: MANAGED_RULESET_ID } } } },
});
