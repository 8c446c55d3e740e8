import type * as pulumi from '@pulumi/pulumi';
import { registration, ZoneGuardResource } from './kit';
import type { BlockResponseInput, RulePlace, RuleSkip } from '../rulesets';
import type { CUSTOM_ACTIONS } from '../schemas/rulesets';

/** Where a rule runs (RulePlace), the rule it names given as a value or another resource's output (`other.ruleId`). */
export type RulePlaceArgs = { before: pulumi.Input<string> } | { after: pulumi.Input<string> } | { first: true } | { last: true };

/** What a rule of either phase declares besides its action's own parameters. */
export interface PhaseRuleFields {
  /** The zone whose entry point of the phase holds the rule. Another zone replaces the rule. */
  zoneId: pulumi.Input<string>;
  /** Which requests the rule applies to (the rules language; request fields only); `true` is all traffic. */
  expression: pulumi.Input<string>;
  /** Free text, at most 500 characters. Default: empty. */
  description?: pulumi.Input<string>;
  /** Whether the rule runs. Default: true. */
  enabled?: pulumi.Input<boolean>;
  /** Your own reference for the rule, at most 36 characters: zoneguard writes its owner marker after it in the service's 50
   * (docs/ownership.md). Default: empty. */
  ref?: pulumi.Input<string>;
  /** With action block: the answer the visitor gets (statusCode 400-499, content, contentType). Default: the service's block page. */
  response?: pulumi.Input<BlockResponseInput>;
  /**
   * Where the rule runs among the phase's rules: `{ before: rule }`, `{ after: rule }` (another resource's `ruleId`,
   * or a ref only one rule of the phase carries), `{ first: true }` or `{ last: true }`. Kept: refresh finds a rule
   * moved by hand, and up puts it back. Required with `skip: { ruleset: 'current' }` (but `last`), unless adopting.
   * Default: added last at create, never moved.
   */
  position?: pulumi.Input<RulePlaceArgs>;
  /** Take over an existing rule of the phase (by id) instead of creating one; read only at create. */
  adoptRuleId?: pulumi.Input<string>;
  /** With adoptRuleId: take over a rule whose owner marker names another owner (another stack, or another resource):
   * the marker moves to this resource, and the old owner's delete then leaves the rule (docs/ownership.md#take-over).
   * Read only at create. */
  takeOver?: pulumi.Input<boolean>;
}

/** Inputs of a {@link CustomRule}. */
export interface CustomRuleArgs extends PhaseRuleFields {
  /** What the rule does: block, challenge, js_challenge, managed_challenge, log, or skip (the legacy allow and bypass). */
  action: pulumi.Input<(typeof CUSTOM_ACTIONS)[number]>;
  /** With action skip: what it skips, any of `ruleset: 'current'` (the rest of this phase), `phases`, `products`, `rules` (managed rules by ruleset id). */
  skip?: pulumi.Input<RuleSkip>;
}

/** The outputs of a rule of either phase. */
export abstract class PhaseRuleResource extends ZoneGuardResource {
  /** The requests the rule matches, in the rules language. */
  declare readonly expression: pulumi.Output<string>;
  /** The rule's description. */
  declare readonly description: pulumi.Output<string>;
  /** Whether the rule runs. */
  declare readonly enabled: pulumi.Output<boolean>;
  /** Your ref, without the owner marker the service holds after it; how other rules' `position` names this one. */
  declare readonly ref: pulumi.Output<string>;
  /** With action block: the response the rule sends, when declared. */
  declare readonly response: pulumi.Output<BlockResponseInput | undefined>;
  /** Where the rule runs as declared while that holds; where it runs now after a refresh found it moved. */
  declare readonly position: pulumi.Output<RulePlace | undefined>;
  /** The rule this resource took over at create, when it was given one. */
  declare readonly adoptRuleId: pulumi.Output<string | undefined>;
  /** Whether the create took the rule over from another owner's marker (docs/ownership.md#take-over). */
  declare readonly takeOver: pulumi.Output<boolean | undefined>;
  /** The id the service assigned to the rule (also the resource's id). */
  declare readonly ruleId: pulumi.Output<string>;
  /** The id of the zone's entry point ruleset of the phase. */
  declare readonly rulesetId: pulumi.Output<string>;
}

/**
 * One custom rule of a zone (phase http_request_firewall_custom), the legacy firewall rules' successor. Written alone
 * with the per-rule endpoints: the zone's other rules, another stack's or added by hand, are never changed; the zone's
 * entry point is created with the first rule when it has none.
 */
export class CustomRule extends PhaseRuleResource {
  /** What the rule does. */
  declare readonly action: pulumi.Output<CustomRuleArgs['action'] extends pulumi.Input<infer A> ? A : never>;
  /** With action skip: what the rule skips. */
  declare readonly skip: pulumi.Output<RuleSkip | undefined>;

  /**
   * Declares a CustomRule: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link CustomRuleArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: CustomRuleArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('CustomRule', name, args, opts));
  }
}
