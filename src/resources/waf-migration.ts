import * as pulumi from '@pulumi/pulumi';
import type { ZoneGuardClient } from '../client';
import { registration, ZoneGuardResource } from './kit';
import { clientFromStackConfig } from './stack-client';
import { dependsOnZoneRules } from './zone-order';
import { AdjustmentsSchema, NO_ADJUSTMENTS, readMigrationPlan, type MigrationMode, type WafConversion, type WafMigrationPlan } from '../migration';
import { ZoneIdSchema, formatZodIssues, readableIssue, type EntrypointRuleset, type OverrideAction, type WafStatus } from '../schemas';

export { MANAGED_RULESET_ID, OWASP_RULESET_ID } from '../schemas/service';
export type { WafConversion, WafMigrationPlan, Incompatibility, BlockingOverride, MigrationLimits, CoreRuleSetConversion } from '../migration';

/** An override of one managed rule, applied to the converted configuration before it is submitted. */
export interface WafRuleAdjustment {
  /** The managed ruleset of the rule; default: the vendor's managed ruleset ({@link MANAGED_RULESET_ID}). */
  rulesetId?: string;
  /** The managed rule's id. */
  ruleId: string;
  action?: OverrideAction;
  enabled?: boolean;
  /** OWASP anomaly score threshold (the conversion sets 25 or 40 on the OWASP anomaly score rule). */
  scoreThreshold?: number;
}

/** An override of one category (tag) of a managed ruleset, for example `paranoia-level-2` or `wordpress`. */
export interface WafCategoryAdjustment {
  rulesetId?: string;
  category: string;
  action?: OverrideAction;
  enabled?: boolean;
}

/** Overrides of managed rules applied to the converted configuration; each names rule or category of one ruleset. */
export interface WafMigrationAdjustments {
  rules?: WafRuleAdjustment[];
  categories?: WafCategoryAdjustment[];
}

/** Inputs of a {@link WafMigration}. */
export interface WafMigrationArgs {
  /** The zone to migrate. It cannot change afterwards: a migration cannot be undone. */
  zoneId: pulumi.Input<string>;
  /** `direct`: the new WAF replaces the previous one at once (every plan). `validation`: both run side by side until
   * you change this to `direct` (Enterprise only). Going back from `direct` is refused. */
  mode: pulumi.Input<MigrationMode>;
  /** Overrides of managed rules applied to the converted configuration. While in validation, a change resubmits. */
  adjustments?: pulumi.Input<WafMigrationAdjustments>;
  /** How long create and update wait for the zone to settle, and how often they look; defaults 900 s and 5 s. */
  wait?: pulumi.Input<{ timeoutSeconds?: number; pollIntervalSeconds?: number }>;
}

/**
 * The migration of a zone from the previous WAF managed rules to the new ones (`/zones/{zone_id}/waf_migration` and
 * the `http_request_firewall_managed` entry point). Irreversible, so `protect` defaults to true, `diff` never replaces,
 * and delete refuses: drop it from the stack with `retainOnDelete: true` and `protect: false`, both recorded by an `up`
 * first (`retainOnDelete` alone leaves it protected), or with `pulumi state delete --force`.
 */
export class WafMigration extends ZoneGuardResource {
  /** The declared mode: `validation` (both WAFs on, the new one first) or `direct`. */
  declare readonly mode: pulumi.Output<MigrationMode>;
  /** The adjustments submitted with the migration, every list present. */
  declare readonly adjustments: pulumi.Output<Required<WafMigrationAdjustments>>;
  /** How long create and update wait for the zone to settle, and how often they look (seconds). */
  declare readonly wait: pulumi.Output<{ timeoutSeconds: number; pollIntervalSeconds: number }>;
  /** Where the zone stands: validation, pending or complete. */
  declare readonly migrationState: pulumi.Output<string>;
  /** The previous WAF managed rules: enabled or disabled. */
  declare readonly previousWafStatus: pulumi.Output<WafStatus['old_waf_status']>;
  /** The new WAF managed rules: enabled or disabled. */
  declare readonly newWafStatus: pulumi.Output<WafStatus['old_waf_status']>;
  /** The entry point ruleset this resource last submitted; null when it submitted none. */
  declare readonly submittedRuleset: pulumi.Output<EntrypointRuleset | null>;
  /** What the conversion changed or dropped, and the adjustments applied. */
  declare readonly conversion: pulumi.Output<WafConversion>;

  /**
   * Declares a WafMigration: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link WafMigrationArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: WafMigrationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      ...registration(
        'WafMigration',
        name,
        args,
        { ...wafMigrationOptions(opts), dependsOn: dependsOnZoneRules(args.zoneId, opts?.dependsOn) },
      ),
    );
  }
}

/** The resource options of a WafMigration: protected unless the program says otherwise, since it cannot be undone. */
export function wafMigrationOptions(opts?: pulumi.CustomResourceOptions): pulumi.CustomResourceOptions {
  return { ...opts, protect: opts?.protect ?? true };
}

/** Arguments of {@link planWafMigration}. */
export interface PlanWafMigrationArgs {
  zoneId: string;
  /** The adjustments the WafMigration resource declares, so the plan shows the configuration it would submit. */
  adjustments?: WafMigrationAdjustments;
  /** The client to read with; default: one built from the stack config (zoneguard:apiToken, ...) or the environment. */
  client?: ZoneGuardClient;
}

/**
 * What migrating a zone would do, without changing anything (only reads): compatibility, the converted configuration
 * with the adjustments applied, what the conversion changes or drops, and the limits. For stack outputs in CI
 * previews: `export const wafPlan = planWafMigration({ zoneId })`.
 */
export async function planWafMigration({ zoneId, adjustments, client }: PlanWafMigrationArgs): Promise<WafMigrationPlan> {
  const zone = ZoneIdSchema.safeParse(zoneId, { error: readableIssue });
  if (!zone.success) throw new Error(`planWafMigration: ${formatZodIssues(zone.error, 'zoneId').join('; ')}`);
  const parsed = AdjustmentsSchema.safeParse(adjustments ?? NO_ADJUSTMENTS, { error: readableIssue });
  if (!parsed.success) throw new Error(`planWafMigration: ${formatZodIssues(parsed.error, 'adjustments').join('; ')}`);
  return readMigrationPlan(client ?? clientFromStackConfig('pulumi-zoneguard-plan'), zoneId, parsed.data);
}
