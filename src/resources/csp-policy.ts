import * as pulumi from '@pulumi/pulumi';
import { registration } from './kit';
import { OwnedResource, type TakeOverArgs } from './owned';
import type { CspAction } from '../schemas';
import { cspWeakeningSources } from '../schemas/csp-value';

/** Inputs of a {@link CspPolicy}. */
export interface CspPolicyArgs extends TakeOverArgs {
  /** The zone the policy belongs to. Another zone replaces the policy. */
  zoneId: pulumi.Input<string>;
  /** What the policy does: `log` reports violations, `allow` blocks what `value` does not allow,
   * `add_reporting_directives` adds reporting to the site's own policy. */
  action: pulumi.Input<CspAction>;
  /** The rules-language expression selecting the requests the policy applies to, for example `http.host eq "shop.example.com"`. */
  expression: pulumi.Input<string>;
  /** A CSP directive string, for example `script-src 'self' https://cdn.example.com`. */
  value: pulumi.Input<string>;
  /** Whether the policy is on. Default: true. Sent to the service in its text form. */
  enabled?: pulumi.Input<boolean>;
  /** Free text, at most 486 characters: zoneguard writes its owner marker after it in the service's 500
   * (docs/ownership.md). Default: empty. */
  description?: pulumi.Input<string>;
  /** Take over an existing policy of the zone (by id) instead of creating one; read only at create. */
  adoptPolicyId?: pulumi.Input<string>;
}

/** A content security policy of a zone's page security (`/zones/{zone_id}/page_guard/policies`). */
export class CspPolicy extends OwnedResource {
  /** What the policy does: `log` reports what it would block, `allow` enforces it. */
  declare readonly action: pulumi.Output<CspAction>;
  /** The requests the policy applies to, in the rules language. */
  declare readonly expression: pulumi.Output<string>;
  /** The CSP directive string the policy sends. */
  declare readonly value: pulumi.Output<string>;
  /** Whether the policy is on (a boolean here, text on the wire: docs/service.md#policy-enabled). */
  declare readonly enabled: pulumi.Output<boolean>;
  /** Your description, without the owner marker the service holds after it. */
  declare readonly description: pulumi.Output<string>;
  /** The policy this resource took over at create, when it was given one. */
  declare readonly adoptPolicyId: pulumi.Output<string | undefined>;
  /** The id the service assigned (also the resource's id). */
  declare readonly policyId: pulumi.Output<string>;

  /**
   * Declares a CspPolicy: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link CspPolicyArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: CspPolicyArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('CspPolicy', name, args, opts));
    // A warning, not a failure: a site may need these sources. It runs in the program, so the engine shows it under
    // this resource at preview (a provider's check has no channel for warnings; see docs/inputs.md). Only once the
    // policy is registered (its URN): @pulumi/pulumi sends all log messages of the process in one queue, each after
    // the URN of the resource it names, so a message about a policy that never registers (an up that failed before
    // it) would hold up every later message, and every later run of the program in the process would never end
    // (test/e2e/failed-up.test.ts).
    pulumi.all([args.action, args.value, this.urn]).apply(([action, value]) => {
      for (const warning of allowPolicyWarnings(action, value)) void pulumi.log.warn(warning, this);
    });
  }
}

/** What an `allow` policy's value lets through that weakens the page, one warning line each; nothing for other actions. */
export function allowPolicyWarnings(action: unknown, value: unknown): string[] {
  if (action !== 'allow' || typeof value !== 'string') return [];
  return cspWeakeningSources(value).map((source) => `CspPolicy.value: ${source}; this allow policy weakens the page`);
}
