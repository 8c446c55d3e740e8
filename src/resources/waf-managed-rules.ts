import * as pulumi from '@pulumi/pulumi';
import { registration, ZoneGuardResource } from './kit';
import { rulesByRef, rulesFromRuleset, type ManagedRule, type ManagedRuleWithRef } from '../rulesets';
import type { EntrypointRuleset } from '../schemas';

/**
 * One rule of the entry point: a `ref` of your choosing (unique, stable: the diff follows it), and either `execute`
 * (a managed ruleset by id, MANAGED_RULESET_ID or OWASP_RULESET_ID, with its overrides) or `skip` (an exception:
 * `{ ruleset: 'current' }` for the rest of the entry point, `{ rulesets: [...] }`, or `{ rules: { rulesetId: [ruleIds] } }`).
 * `expression` defaults to `true` (all traffic), `enabled` to true, `description` to empty.
 */
export type WafManagedRuleArgs = ManagedRuleWithRef;
/** A rule as the outputs hold it (canonical form, keyed by its ref). */
export type WafManagedRule = ManagedRule;

/** Inputs of {@link WafManagedRules}. */
export interface WafManagedRulesArgs {
  /** The zone whose http_request_firewall_managed entry point this resource manages (one per zone). */
  zoneId: pulumi.Input<string>;
  /** The rules, in the order they run. `rulesFromRuleset(plan.ruleset)` starts from what the migration converted. */
  rules: pulumi.Input<pulumi.Input<WafManagedRuleArgs>[]>;
  /** Default true: delete puts back the rules create found. false: delete leaves the rules in place. */
  restoreOnDelete?: pulumi.Input<boolean>;
  /** Take the entry point over from another stack whose owner marker its description carries (docs/ownership.md#take-over);
   * without it, create refuses such a zone before any write. Read only at create. */
  takeOver?: pulumi.Input<boolean>;
}

/**
 * The new WAF of a zone that migrated: its http_request_firewall_managed entry point ruleset, rule by rule. Create
 * takes the entry point over (one write, its owner marker, when it already holds the declared rules, as right after a WafMigration
 * of mode direct) and records what it held; delete puts that back unless restoreOnDelete is false. Give it
 * `dependsOn: [migration]`: on a zone not migrated, or in validation, create is refused.
 */
export class WafManagedRules extends ZoneGuardResource {
  /** The refs in the order the rules run. */
  declare readonly order: pulumi.Output<string[]>;
  /** The rules by ref, as the service holds them. */
  declare readonly rules: pulumi.Output<Record<string, WafManagedRule>>;
  /** Whether delete puts back what the entry point held before create (`recorded`). */
  declare readonly restoreOnDelete: pulumi.Output<boolean>;
  /** Whether the create took the entry point over from another owner's marker. */
  declare readonly takeOver: pulumi.Output<boolean | undefined>;
  /** The service's id of each rule, by ref. */
  declare readonly ruleIds: pulumi.Output<Record<string, string>>;
  /** The entry point's version after the last change or refresh. */
  declare readonly version: pulumi.Output<string>;
  /** What the entry point held before this resource took it over. */
  declare readonly recorded: pulumi.Output<EntrypointRuleset | null>;

  /**
   * Declares a WafManagedRules: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link WafManagedRulesArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: WafManagedRulesArgs, opts?: pulumi.CustomResourceOptions) {
    // Keyed by ref, so the engine's diff names the rule that changed, not every rule after a shifted position.
    const shaped = pulumi.output(args.rules).apply((list) => rulesByRef(list as ManagedRuleWithRef[]));
    super(
      ...registration(
        'WafManagedRules',
        name,
        {
          restoreOnDelete: args.restoreOnDelete,
          takeOver: args.takeOver,
          zoneId: args.zoneId,
          order: shaped.apply((s) => s.order),
          rules: shaped.apply((s) => s.rules),
        },
        opts,
      ),
    );
  }
}

export { rulesFromRuleset };
export { OWASP_ANOMALY_SCORE_RULE_ID } from '../schemas/service';
