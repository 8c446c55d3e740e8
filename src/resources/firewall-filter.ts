import type * as pulumi from '@pulumi/pulumi';
import { registration } from './kit';
import { OwnedResource, type TakeOverArgs } from './owned';

/** Inputs of a {@link FirewallFilter}. */
export interface FirewallFilterArgs extends TakeOverArgs {
  /** The zone the filter belongs to. Another zone replaces the filter. */
  zoneId: pulumi.Input<string>;
  /** The rules-language expression, for example `ip.src in {192.0.2.0/24}`. Changed in place: every rule that
   * references the filter matches the new expression at once, and keeps its id. */
  expression: pulumi.Input<string>;
  /** Free text, at most 500 characters. Default: empty. */
  description?: pulumi.Input<string>;
  /** Whether the filter is paused. Default: false. */
  paused?: pulumi.Input<boolean>;
  /** Your own reference for the filter, at most 36 characters: zoneguard writes its owner marker after it in the
   * service's 50 (docs/ownership.md). Default: empty. */
  ref?: pulumi.Input<string>;
  /** Take over an existing filter of the zone (by id) instead of creating one, bringing it to the declared fields.
   * Read only at create. */
  adoptFilterId?: pulumi.Input<string>;
}

/**
 * A filter (match expression) of the recommended two-call flow (`/zones/{zone_id}/filters`), which several
 * {@link FirewallRule}s may reference by `filterId: filter.id`. The engine deletes it after those rules; a rule
 * outside the stack still using it makes the delete fail, naming that rule.
 */
export class FirewallFilter extends OwnedResource {
  /** The requests the filter matches, in the rules language; every rule on the filter applies it. */
  declare readonly expression: pulumi.Output<string>;
  /** The filter's description. */
  declare readonly description: pulumi.Output<string>;
  /** Whether the filter is paused. */
  declare readonly paused: pulumi.Output<boolean>;
  /** Your ref, without the owner marker the service holds after it. */
  declare readonly ref: pulumi.Output<string>;
  /** The filter this resource took over at create, when it was given one. */
  declare readonly adoptFilterId: pulumi.Output<string | undefined>;
  /** The id the service assigned to the filter (also the resource's id): what a FirewallRule's `filterId` takes. */
  declare readonly filterId: pulumi.Output<string>;

  /**
   * Declares a FirewallFilter: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link FirewallFilterArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: FirewallFilterArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('FirewallFilter', name, args, opts));
  }
}
