import * as pulumi from '@pulumi/pulumi';
import { noteFirewallRule } from './zone-order';
import { NAME_KEY, providerFor, TYPE_MODULE } from '../providers';
import type { FirewallAction, FirewallProduct } from '../schemas';

/** Inputs of a {@link FirewallRuleWithFilter}. */
export interface FirewallRuleWithFilterArgs {
  /** The zone the rule belongs to. Another zone replaces the rule. */
  zoneId: pulumi.Input<string>;
  /** The rules-language expression of the rule's filter, for example `ip.src in {192.0.2.0/24}`. The filter of a rule
   * created in a single call cannot change: a new expression replaces the rule (the new one is created first). */
  expression: pulumi.Input<string>;
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
  /** Your own reference for the rule, at most 50 characters. Default: empty. */
  ref?: pulumi.Input<string>;
  /** Take over an existing rule of the zone (by id) instead of creating one; its expression must be the declared
   * one. Read only at create. */
  adoptRuleId?: pulumi.Input<string>;
}

/**
 * A firewall rule created with its filter in a single call (`POST /zones/{zone_id}/firewall/rules`). Deleting it
 * deletes its filter too; a filter left behind by a rule quota failure is reused by the next create.
 */
export class FirewallRuleWithFilter extends pulumi.dynamic.Resource {
  declare readonly zoneId: pulumi.Output<string>;
  declare readonly expression: pulumi.Output<string>;
  declare readonly action: pulumi.Output<FirewallAction>;
  declare readonly products: pulumi.Output<FirewallProduct[] | undefined>;
  declare readonly paused: pulumi.Output<boolean>;
  declare readonly priority: pulumi.Output<number | null>;
  declare readonly description: pulumi.Output<string>;
  declare readonly ref: pulumi.Output<string>;
  /** The id the service assigned to the rule (also the resource's id). */
  declare readonly ruleId: pulumi.Output<string>;
  /** The id of the rule's filter. */
  declare readonly filterId: pulumi.Output<string>;

  constructor(name: string, args: FirewallRuleWithFilterArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor('FirewallRuleWithFilter'),
      name,
      {
        ruleId: undefined,
        filterId: undefined,
        products: undefined,
        paused: undefined,
        priority: undefined,
        description: undefined,
        ref: undefined,
        ...args,
        [NAME_KEY]: name,
      },
      opts,
      TYPE_MODULE,
      'FirewallRuleWithFilter',
    );
    // A WafMigration of the same zone in this program waits for this rule (zone-order.ts).
    noteFirewallRule(this, args.zoneId);
  }
}
