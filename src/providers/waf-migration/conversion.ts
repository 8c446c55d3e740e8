// Pure decisions of the WAF migration: the adjustments applied to the converted configuration, what the
// conversion changes or drops, the limits past which the caller cannot migrate, and which call brings a zone from
// where it is to the declared mode. No I/O here: the provider and planWafMigration feed these with what the client
// read, so every decision has a table test.
import { z } from 'zod';
import {
  ACTION_CONVERSION,
  HexIdSchema,
  MANAGED_RULESET_ID,
  MANAGED_RULESET_NAMES,
  OWASP_RULESET_ID,
  WAF_MIGRATION_LIMITS,
  expressionBytes,
  sensitivityConversion,
  type EntrypointRuleset,
  type MigrationState,
  type RuleOverride,
  type CategoryOverride,
  type RulesetRule,
  type WafActionMode,
  type WafMigrationMode,
  type WafPackage,
  type WafSensitivity,
  type WafStatus,
} from '../../schemas';

const rulesetName = (id: string) => MANAGED_RULESET_NAMES[id] ?? `managed ruleset ${id}`;

/** Actions an override of a managed rule or category may set. */
export const OverrideActionSchema = z.enum(['block', 'challenge', 'js_challenge', 'managed_challenge', 'log'], {
  error: 'must be one of block, challenge, js_challenge, managed_challenge, log',
});

const hasSetting = (value: { action?: unknown; enabled?: unknown; scoreThreshold?: unknown }) =>
  value.action !== undefined || value.enabled !== undefined || value.scoreThreshold !== undefined;

/** An override of one managed rule, applied on top of the converted configuration. */
export const RuleAdjustmentSchema = z
  .object({
    /** The managed ruleset the rule belongs to; default: the vendor's managed ruleset. */
    rulesetId: HexIdSchema.default(MANAGED_RULESET_ID),
    ruleId: z.string().min(1, 'must name a managed rule id'),
    action: OverrideActionSchema.optional(),
    enabled: z.boolean({ error: 'must be a boolean' }).optional(),
    /** OWASP anomaly score threshold (the converted configuration sets 25 or 40). */
    scoreThreshold: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
  })
  .strict()
  .refine(hasSetting, { message: 'must set at least one of action, enabled, scoreThreshold' });
export type RuleAdjustment = z.output<typeof RuleAdjustmentSchema>;

/** An override of one category (tag) of a managed ruleset, for example `paranoia-level-2` or `wordpress`. */
export const CategoryAdjustmentSchema = z
  .object({
    rulesetId: HexIdSchema.default(MANAGED_RULESET_ID),
    category: z.string().min(1, 'must name a category'),
    action: OverrideActionSchema.optional(),
    enabled: z.boolean({ error: 'must be a boolean' }).optional(),
  })
  .strict()
  .refine(hasSetting, { message: 'must set at least one of action, enabled' });
export type CategoryAdjustment = z.output<typeof CategoryAdjustmentSchema>;

/** Overrides of managed rules applied to the converted configuration before it is submitted. */
export const AdjustmentsSchema = z
  .object({
    rules: z.array(RuleAdjustmentSchema).default([]),
    categories: z.array(CategoryAdjustmentSchema).default([]),
  })
  .strict()
  .superRefine((value, ctx) => {
    // Two overrides of the same rule would leave which one wins to the order of the list: refuse it.
    const seen = new Map<string, number>();
    value.rules.forEach((rule, index) => {
      const key = `${rule.rulesetId}/${rule.ruleId}`;
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['rules', index, 'ruleId'], message: `overrides rule ${rule.ruleId} again (already at rules[${first}]); merge the two` });
      } else seen.set(key, index);
    });
    const seenCategories = new Map<string, number>();
    value.categories.forEach((category, index) => {
      const key = `${category.rulesetId}/${category.category}`;
      const first = seenCategories.get(key);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['categories', index, 'category'], message: `overrides category ${category.category} again (already at categories[${first}]); merge the two` });
      } else seenCategories.set(key, index);
    });
  });
export type Adjustments = z.output<typeof AdjustmentsSchema>;

/** No adjustment: the default, written once so defaults and comparisons agree. */
export const NO_ADJUSTMENTS: Adjustments = { rules: [], categories: [] };

/** The converted configuration with the adjustments applied, one line per override, and what could not apply. */
export interface AdjustedRuleset {
  ruleset: EntrypointRuleset;
  applied: string[];
  problems: string[];
}

const executeRulesOf = (ruleset: EntrypointRuleset, rulesetId: string) =>
  ruleset.rules.filter((rule) => rule.action === 'execute' && rule.action_parameters?.id === rulesetId);

const executedRulesets = (ruleset: EntrypointRuleset) => {
  const ids = ruleset.rules.flatMap((rule) => (rule.action === 'execute' && rule.action_parameters ? [rule.action_parameters.id] : []));
  return ids.length === 0 ? 'no managed ruleset' : [...new Set(ids)].map((id) => `${id} (${rulesetName(id)})`).join(', ');
};

function describeSettings(settings: { action?: string; enabled?: boolean; scoreThreshold?: number }): string {
  const parts: string[] = [];
  if (settings.action !== undefined) parts.push(`action ${settings.action}`);
  if (settings.enabled !== undefined) parts.push(settings.enabled ? 'enabled' : 'disabled');
  if (settings.scoreThreshold !== undefined) parts.push(`score threshold ${settings.scoreThreshold}`);
  return parts.join(', ');
}

/**
 * Applies the adjustments to a copy of the converted configuration: each override goes into the
 * `action_parameters.overrides` of the execute rule of its ruleset, merged with an override the conversion made
 * for the same rule or category (the adjustment's fields win), appended otherwise. An adjustment whose ruleset the
 * configuration does not execute is a problem, never silently dropped.
 */
export function applyAdjustments(converted: EntrypointRuleset, adjustments: Adjustments = NO_ADJUSTMENTS): AdjustedRuleset {
  const ruleset = structuredClone(converted);
  const applied: string[] = [];
  const problems: string[] = [];
  const overridesOf = (rule: RulesetRule) => {
    const parameters = rule.action_parameters as NonNullable<RulesetRule['action_parameters']>;
    parameters.overrides ??= {};
    return parameters.overrides;
  };

  adjustments.rules.forEach((adjustment, index) => {
    const targets = executeRulesOf(ruleset, adjustment.rulesetId);
    if (targets.length === 0) {
      problems.push(
        `adjustments.rules[${index}]: ruleset ${adjustment.rulesetId} (${rulesetName(adjustment.rulesetId)}) is not executed by the converted configuration, which executes ${executedRulesets(ruleset)}`,
      );
      return;
    }
    const settings: Omit<RuleOverride, 'id'> = {
      ...(adjustment.action !== undefined ? { action: adjustment.action } : {}),
      ...(adjustment.enabled !== undefined ? { enabled: adjustment.enabled } : {}),
      ...(adjustment.scoreThreshold !== undefined ? { score_threshold: adjustment.scoreThreshold } : {}),
    };
    for (const target of targets) {
      const overrides = overridesOf(target);
      const rules = (overrides.rules ??= []);
      const existing = rules.find((rule) => rule.id === adjustment.ruleId);
      if (existing) Object.assign(existing, settings);
      else rules.push({ id: adjustment.ruleId, ...settings });
    }
    applied.push(`${rulesetName(adjustment.rulesetId)}: rule ${adjustment.ruleId}: ${describeSettings(adjustment)}`);
  });

  adjustments.categories.forEach((adjustment, index) => {
    const targets = executeRulesOf(ruleset, adjustment.rulesetId);
    if (targets.length === 0) {
      problems.push(
        `adjustments.categories[${index}]: ruleset ${adjustment.rulesetId} (${rulesetName(adjustment.rulesetId)}) is not executed by the converted configuration, which executes ${executedRulesets(ruleset)}`,
      );
      return;
    }
    const settings: Omit<CategoryOverride, 'category'> = {
      ...(adjustment.action !== undefined ? { action: adjustment.action } : {}),
      ...(adjustment.enabled !== undefined ? { enabled: adjustment.enabled } : {}),
    };
    for (const target of targets) {
      const overrides = overridesOf(target);
      const categories = (overrides.categories ??= []);
      const existing = categories.find((category) => category.category === adjustment.category);
      if (existing) Object.assign(existing, settings);
      else categories.push({ category: adjustment.category, ...settings });
    }
    applied.push(`${rulesetName(adjustment.rulesetId)}: category ${adjustment.category}: ${describeSettings(adjustment)}`);
  });

  return { ruleset, applied, problems };
}

/**
 * The body of the entry point update: the validation-mode request omits each rule's id, version and ref
 * (docs/service.md#validation-request);
 * the pending request sends them as the configuration read gave them.
 */
export function entrypointBody(ruleset: EntrypointRuleset, mode: WafMigrationMode): EntrypointRuleset {
  if (mode === 'pending') return ruleset;
  return { ...ruleset, rules: ruleset.rules.map(({ id: _id, version: _version, ref: _ref, ...rule }) => rule) };
}

// ---------------------------------------------------------------------------------------------------------------
// Limits

/** A firewall rule as the limits and the conversion notes need it. */
export interface FirewallRuleFacts {
  id: string;
  expression: string;
  action: string;
  paused?: boolean;
  products?: string[];
}

/** The zone against the migration's limits (docs/service.md#migration-limits), and one line per limit exceeded. */
export interface MigrationLimits {
  firewallRules: number;
  maxFirewallRules: number;
  longestExpressionBytes: number;
  /** The rule with the longest expression, when the zone has rules. */
  longestExpressionRuleId: string | null;
  maxExpressionBytes: number;
  problems: string[];
}

/**
 * Checks the zone's firewall rules against the 200-rule and 4 KB limits before anything is submitted: past them the
 * caller cannot complete the migration, support must. Every rule over 4 KB is named, not just the first.
 */
export function migrationLimits(rules: readonly FirewallRuleFacts[]): MigrationLimits {
  const { maxFirewallRules, maxExpressionBytes } = WAF_MIGRATION_LIMITS;
  const problems: string[] = [];
  if (rules.length > maxFirewallRules) {
    problems.push(
      `the zone has ${rules.length} firewall rules to migrate, more than ${maxFirewallRules}: the migration cannot be completed without support; delete rules you no longer need, or contact support`,
    );
  }
  let longestExpressionBytes = 0;
  let longestExpressionRuleId: string | null = null;
  for (const rule of rules) {
    const bytes = expressionBytes(rule.expression);
    if (bytes > longestExpressionBytes) {
      longestExpressionBytes = bytes;
      longestExpressionRuleId = rule.id;
    }
    if (bytes > maxExpressionBytes) {
      problems.push(
        `firewall rule ${rule.id} has an expression of ${bytes} bytes, more than ${maxExpressionBytes}: the migration cannot be completed without support; shorten the expression (split the rule), or contact support`,
      );
    }
  }
  return {
    firewallRules: rules.length,
    maxFirewallRules,
    longestExpressionBytes,
    longestExpressionRuleId,
    maxExpressionBytes,
    problems,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What the conversion changes or drops

/** How the previous OWASP core rule set carries over. */
export interface CoreRuleSetConversion {
  sensitivity: WafSensitivity;
  paranoiaLevel: 'PL1' | 'PL2';
  scoreThreshold: number;
  thresholdLevel: 'High' | 'Medium';
  previousAction: WafActionMode;
  action: string;
  /** Sensitivity off: the new ruleset is deployed disabled. */
  enabled: boolean;
}

/**
 * What the migration changes or drops, computed from the previous WAF (packages) and the zone's firewall rules as
 * read before submitting. Deterministic: the same zone gives the same notes, in the same order.
 */
export interface WafConversion {
  /** The previous OWASP core rule set and what it becomes; null when the zone had none. */
  coreRuleSet: CoreRuleSetConversion | null;
  /** Firewall rules bypassing the WAF managed rules; the migration recreates each as a skip rule. */
  bypassRuleIds: string[];
  /** One line per setting the conversion carries over in another form. */
  changed: string[];
  /** One line per setting the conversion does not carry over. */
  dropped: string[];
  /** One line per adjustment applied on top of the converted configuration. */
  adjusted: string[];
  /** Set when this resource converted nothing (the zone had migrated before it existed). */
  note: string | null;
}

/** Facts about the previous WAF that feed {@link conversionNotes}. */
export interface PreviousWafFacts {
  /** The previous WAF packages; empty when the zone had none, or its previous WAF API is withdrawn. */
  packages: readonly WafPackage[];
  firewallRules: readonly FirewallRuleFacts[];
  adjusted?: readonly string[];
}

/** The conversion notes of docs/service.md#migration-conversion, for this zone. */
export function conversionNotes({ packages, firewallRules, adjusted = [] }: PreviousWafFacts): WafConversion {
  const changed: string[] = [];
  const dropped: string[] = [];
  const bypassRuleIds = firewallRules
    .filter((rule) => rule.action === 'bypass' && (rule.products ?? []).includes('waf'))
    .map((rule) => rule.id)
    .sort();
  for (const id of bypassRuleIds) {
    changed.push(`firewall rule ${id} bypasses the WAF managed rules: recreated as a skip rule of the new configuration`);
  }
  if (packages.some((p) => p.detection_mode === 'traditional')) {
    changed.push(`the previous managed rules package becomes an execute rule of the ${MANAGED_RULESET_NAMES[MANAGED_RULESET_ID]}`);
  }
  const owasp = packages.find((p) => p.detection_mode === 'anomaly');
  let coreRuleSet: CoreRuleSetConversion | null = null;
  if (owasp) {
    const sensitivity = owasp.sensitivity ?? 'default';
    const conversion = sensitivityConversion(sensitivity);
    const paranoiaLevel = `PL${conversion.paranoiaLevel}` as const;
    const previousAction = owasp.action_mode ?? 'block';
    coreRuleSet = {
      sensitivity,
      paranoiaLevel,
      scoreThreshold: conversion.scoreThreshold,
      thresholdLevel: conversion.thresholdLevel,
      previousAction,
      action: ACTION_CONVERSION[previousAction],
      enabled: sensitivity !== 'off',
    };
    changed.push(
      sensitivity === 'off'
        ? `core rule set sensitivity off: the ${MANAGED_RULESET_NAMES[OWASP_RULESET_ID]} is deployed disabled (paranoia level ${paranoiaLevel}, score threshold ${conversion.thresholdLevel}, ${conversion.scoreThreshold} or higher, once enabled)`
        : `core rule set sensitivity ${sensitivity}: paranoia level ${paranoiaLevel}, score threshold ${conversion.thresholdLevel} (${conversion.scoreThreshold} or higher)`,
    );
    changed.push(
      previousAction === 'simulate'
        ? 'core rule set action simulate becomes log (the new ruleset has no simulate)'
        : `core rule set action ${previousAction} stays ${ACTION_CONVERSION[previousAction]}`,
    );
    dropped.push(
      'group overrides and rule overrides of the previous core rule set are not migrated: recreate the ones you need as category or rule overrides of the new ruleset (adjustments.categories, adjustments.rules)',
    );
  }
  if (packages.length > 0) {
    dropped.push('some specific configurations of the previous core rule set may be lost in the conversion; review the converted configuration');
  }
  return { coreRuleSet, bypassRuleIds, changed, dropped, adjusted: [...adjusted], note: null };
}

/** The notes of a zone whose migration finished before this resource existed: nothing was converted by it. */
export function adoptedConversion(state: MigrationState | string): WafConversion {
  return {
    coreRuleSet: null,
    bypassRuleIds: [],
    changed: [],
    dropped: [],
    adjusted: [],
    note: `the zone's migration was already ${state} when this resource was created: it submitted nothing and converted nothing`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Where a zone stands, and what to do

/** The mode a user declares: migrate at once, or first run both WAFs side by side (Enterprise only). */
export const MigrationModeSchema = z.enum(['direct', 'validation'], { error: 'must be direct or validation' });
export type MigrationMode = z.infer<typeof MigrationModeSchema>;

/** The migration state each declared mode settles in. */
export const SETTLED_STATE: Readonly<Record<MigrationMode, MigrationState>> = { direct: 'complete', validation: 'validation' };

/** The value of `waf_migration` on the entry point update for each declared mode. */
export const SUBMIT_MODE: Readonly<Record<MigrationMode, WafMigrationMode>> = { direct: 'pending', validation: 'validation' };

/** The declared mode a zone's migration state corresponds to (pending and complete are both direct). */
export function modeOfState(state: string, fallback: MigrationMode): MigrationMode {
  if (state === 'pending' || state === 'complete') return 'direct';
  if (state === 'validation') return 'validation';
  return fallback;
}

/** What the provider does next for a zone in `state` when `mode` is declared. */
export type NextStep =
  | { kind: 'submit'; mode: WafMigrationMode }
  | { kind: 'wait' }
  | { kind: 'nothing' }
  | { kind: 'refuse'; reason: string };

/**
 * The table of docs/service.md#migration-modes as a decision. `resubmit` says the declared configuration may differ from the one the
 * zone runs (a create, or changed adjustments): in validation mode it is submitted again.
 */
export function nextStep(state: MigrationState | string, mode: MigrationMode, resubmit: boolean): NextStep {
  switch (state) {
    case 'start':
      return { kind: 'submit', mode: SUBMIT_MODE[mode] };
    case 'validation':
      if (mode === 'direct') return { kind: 'submit', mode: 'pending' };
      return resubmit ? { kind: 'submit', mode: 'validation' } : { kind: 'nothing' };
    case 'pending':
    case 'complete':
      if (mode === 'validation') {
        return {
          kind: 'refuse',
          reason: `the zone's migration is ${state === 'pending' ? 'finishing (pending)' : 'complete'}, and a migration cannot be undone: validation mode is no longer possible; declare mode: 'direct'`,
        };
      }
      return state === 'pending' ? { kind: 'wait' } : { kind: 'nothing' };
    default:
      return { kind: 'refuse', reason: `the service reports migration_state ${state}, which this version of pulumi-zoneguard does not know; nothing was changed` };
  }
}

/** Where a zone stands against the declared mode after a submission: settled, still moving, or off the path. */
export type Progress = { kind: 'settled' } | { kind: 'moving' } | { kind: 'off'; reason: string };

/** Whether `status` is the state `mode` settles in. */
export function assessProgress(status: Pick<WafStatus, 'migration_state' | 'old_waf_status' | 'new_waf_status'>, mode: MigrationMode): Progress {
  const state = status.migration_state;
  if (mode === 'direct') {
    if (state === 'complete') return { kind: 'settled' };
    return { kind: 'moving' };
  }
  if (state === 'validation') return { kind: 'settled' };
  if (state === 'pending' || state === 'complete') {
    return { kind: 'off', reason: `validation mode was submitted, but the zone's migration is ${state}` };
  }
  return { kind: 'moving' };
}

/** One progress line per poll, for the engine's log (the provider writes it to stderr). */
export function progressLine(
  zoneId: string,
  status: Pick<WafStatus, 'migration_state' | 'old_waf_status' | 'new_waf_status'>,
  mode: MigrationMode,
  elapsedMs: number,
  timeoutMs: number,
): string {
  return (
    `zoneguard: WafMigration zone ${zoneId}: migration_state ${status.migration_state} ` +
    `(previous WAF ${status.old_waf_status}, new WAF ${status.new_waf_status}), ` +
    (status.migration_state === SETTLED_STATE[mode]
      ? `settled after ${Math.round(elapsedMs / 1000)}s`
      : `waiting for ${SETTLED_STATE[mode]} (${Math.round(elapsedMs / 1000)}s of ${Math.round(timeoutMs / 1000)}s)`)
  );
}
