import type * as pulumi from '@pulumi/pulumi';
import { registration } from './kit';
import { PhaseRuleResource, type PhaseRuleFields } from './custom-rule';
import type { RatelimitInput } from '../rulesets';
import type { RATELIMIT_ACTIONS } from '../schemas/rulesets';

/** Inputs of a {@link RateLimitRule}. */
export interface RateLimitRuleArgs extends PhaseRuleFields {
  /** What the rule does over the limit: block, challenge, js_challenge, managed_challenge or log. */
  action: pulumi.Input<(typeof RATELIMIT_ACTIONS)[number]>;
  /**
   * What is counted and the limit: `characteristics` (must include 'cf.colo.id', for example with 'ip.src'), `period`
   * (10, 60, 120, 300, 600 or 3600 seconds), `requestsPerPeriod`, `mitigationTimeout` (seconds; 0 with a challenge),
   * and optionally `countingExpression` (may read the response) and `requestsToOrigin`.
   */
  ratelimit: pulumi.Input<RatelimitInput>;
}

/** One rate limiting rule of a zone (phase http_ratelimit), written alone as a CustomRule is. */
export class RateLimitRule extends PhaseRuleResource {
  /** What the rule does to a client over the rate. */
  declare readonly action: pulumi.Output<RateLimitRuleArgs['action'] extends pulumi.Input<infer A> ? A : never>;
  /** How requests are counted and for how long the action lasts. */
  declare readonly ratelimit: pulumi.Output<RatelimitInput>;

  /**
   * Declares a RateLimitRule: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link RateLimitRuleArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: RateLimitRuleArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('RateLimitRule', name, args, opts));
  }
}
