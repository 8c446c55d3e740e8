import type * as pulumi from '@pulumi/pulumi';
import { OwnedResource, type TakeOverArgs } from './owned';
import { noteFirewallRule } from './zone-order';
import { registration } from './kit';
import type { FirewallAction, FirewallProduct } from '../schemas';

/** The inputs of every firewall rule, whichever way it gets its filter ({@link FirewallRule}, FirewallRuleWithFilter). */
export interface FirewallRuleFields extends TakeOverArgs {
  /** The zone the rule belongs to. Another zone replaces the rule. */
  zoneId: pulumi.Input<string>;
  /** What the rule does: block, challenge, js_challenge, managed_challenge, allow, log or bypass. */
  action: pulumi.Input<FirewallAction>;
  /** What a `bypass` rule skips, for example `['waf']`; required with bypass, refused with any other action. */
  products?: pulumi.Input<pulumi.Input<FirewallProduct>[]>;
  /** Whether the rule is paused. Default: false. */
  paused?: pulumi.Input<boolean>;
  /** Evaluation order, 0-2147483647; null (the default) lets the service order the rule. */
  priority?: pulumi.Input<number | null>;
  /** Free text, at most 500 characters. Default: empty. */
  description?: pulumi.Input<string>;
  /** Your own reference for the rule, at most 36 characters: zoneguard writes its owner marker after it in the
   * service's 50 (docs/ownership.md). Default: empty. */
  ref?: pulumi.Input<string>;
}

/** The outputs of every firewall rule; each class also notes itself for a WafMigration of its zone (zone-order.ts). */
export abstract class FirewallRuleResource extends OwnedResource {
  /** What the rule does with the requests its filter matches. */
  declare readonly action: pulumi.Output<FirewallAction>;
  /** With action bypass: the products the rule bypasses. */
  declare readonly products: pulumi.Output<FirewallProduct[] | undefined>;
  /** Whether the rule is paused. */
  declare readonly paused: pulumi.Output<boolean>;
  /** The rule's priority, or null when it has none. */
  declare readonly priority: pulumi.Output<number | null>;
  /** The rule's description. */
  declare readonly description: pulumi.Output<string>;
  /** Your ref, without the owner marker the service holds after it. */
  declare readonly ref: pulumi.Output<string>;
  /** The id the service assigned to the rule (also the resource's id). */
  declare readonly ruleId: pulumi.Output<string>;
  /** The id of the rule's filter. */
  declare readonly filterId: pulumi.Output<string>;
  /** The rule this resource took over at create, when it was given one. */
  declare readonly adoptRuleId: pulumi.Output<string | undefined>;
}

/** Inputs of a {@link FirewallRule}. */
export interface FirewallRuleArgs extends FirewallRuleFields {
  /** The filter the rule applies, usually a FirewallFilter's `id`, so the engine creates the filter first and
   * deletes it last. Changed in place. A filter made together with another rule in one call cannot be used. */
  filterId: pulumi.Input<string>;
  /** Take over an existing rule of the zone (by id) instead of creating one, bringing it to the declared fields
   * (its filter included). Read only at create. */
  adoptRuleId?: pulumi.Input<string>;
}

/**
 * A firewall rule on a filter referenced by id, the second call of the recommended two-call flow
 * (`POST /zones/{zone_id}/firewall/rules` with `filter: { id }`). Deleting it leaves the filter to its own resource.
 */
export class FirewallRule extends FirewallRuleResource {
  /**
   * Declares a FirewallRule: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link FirewallRuleArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: FirewallRuleArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('FirewallRule', name, args, opts));
    // A WafMigration of the same zone in this program waits for this rule (zone-order.ts).
    noteFirewallRule(this, args.zoneId);
  }
}
