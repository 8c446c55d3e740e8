import type * as pulumi from '@pulumi/pulumi';
import { FirewallRuleResource, type FirewallRuleFields } from './firewall-rule';
import { registration } from './kit';
import { noteFirewallRule } from './zone-order';

/** Inputs of a {@link FirewallRuleWithFilter}. */
export interface FirewallRuleWithFilterArgs extends FirewallRuleFields {
  /** The rules-language expression of the rule's filter, for example `ip.src in {192.0.2.0/24}`. The filter of a rule
   * created in a single call cannot change: a new expression replaces the rule (the new one is created first). */
  expression: pulumi.Input<string>;
  /** Take over an existing rule of the zone (by id) instead of creating one; its expression must be the declared
   * one. Read only at create. */
  adoptRuleId?: pulumi.Input<string>;
}

/**
 * A firewall rule created with its filter in a single call (`POST /zones/{zone_id}/firewall/rules`). Deleting it
 * deletes its filter too; a filter left behind by a rule quota failure is reused by the next create.
 */
export class FirewallRuleWithFilter extends FirewallRuleResource {
  /** The requests the rule matches: the expression of its own filter. */
  declare readonly expression: pulumi.Output<string>;

  /**
   * Declares a FirewallRuleWithFilter: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link FirewallRuleWithFilterArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: FirewallRuleWithFilterArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('FirewallRuleWithFilter', name, args, opts));
    // A WafMigration of the same zone in this program waits for this rule (zone-order.ts).
    noteFirewallRule(this, args.zoneId);
  }
}
