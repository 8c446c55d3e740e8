// The adjustments a user declares on top of the converted configuration: their schemas, and how they are applied
// to the execute rules of their managed rulesets. Pure.
import { z } from 'zod';
import {
  HexIdSchema,
  MANAGED_RULESET_NAMES,
  ManagedRuleIdSchema,
  OverrideActionSchema,
  repeats,
  type CategoryOverride,
  type EntrypointRuleset,
  type RuleOverride,
  type RulesetRule,
} from '../schemas';
import { MANAGED_RULESET_ID } from '../schemas/service';

const rulesetName = (id: string) => MANAGED_RULESET_NAMES[id] ?? `managed ruleset ${id}`;

const hasSetting = (value: { action?: unknown; enabled?: unknown; scoreThreshold?: unknown }) =>
  value.action !== undefined || value.enabled !== undefined || value.scoreThreshold !== undefined;

/** An override of one managed rule, applied on top of the converted configuration. */
export const RuleAdjustmentSchema = z
  .object({
    /** The managed ruleset the rule belongs to; default: the vendor's managed ruleset. */
    rulesetId: HexIdSchema.default(MANAGED_RULESET_ID),
    ruleId: ManagedRuleIdSchema,
    action: OverrideActionSchema.optional(),
    enabled: z.boolean().optional(),
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
    enabled: z.boolean().optional(),
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
    for (const { index, first } of repeats(value.rules.map((rule) => `${rule.rulesetId}/${rule.ruleId}`))) {
      const ruleId = value.rules[index]!.ruleId;
      ctx.addIssue({ code: 'custom', path: ['rules', index, 'ruleId'], message: `overrides rule ${ruleId} again (already at rules[${first}]); merge the two` });
    }
    for (const { index, first } of repeats(value.categories.map((category) => `${category.rulesetId}/${category.category}`))) {
      const category = value.categories[index]!.category;
      ctx.addIssue({
        code: 'custom',
        path: ['categories', index, 'category'],
        message: `overrides category ${category} again (already at categories[${first}]); merge the two`,
      });
    }
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
  const ids = ruleset.rules.flatMap((rule) => (rule.action === 'execute' && rule.action_parameters?.id !== undefined ? [rule.action_parameters.id] : []));
  return ids.length === 0 ? 'no managed ruleset' : [...new Set(ids)].map((id) => `${id} (${rulesetName(id)})`).join(', ');
};

function describeSettings(settings: { action?: string; enabled?: boolean; scoreThreshold?: number }): string {
  const parts: string[] = [];
  if (settings.action !== undefined) parts.push(`action ${settings.action}`);
  if (settings.enabled !== undefined) parts.push(settings.enabled ? 'enabled' : 'disabled');
  if (settings.scoreThreshold !== undefined) parts.push(`score threshold ${settings.scoreThreshold}`);
  return parts.join(', ');
}

type Overrides = NonNullable<NonNullable<RulesetRule['action_parameters']>['overrides']>;

/** Merges `settings` into the item `matches` finds (the adjustment's fields win), or appends `item`. */
function upsert<T>(items: T[], matches: (item: T) => boolean, item: T, settings: Partial<T>): void {
  const existing = items.find(matches);
  if (existing) Object.assign(existing as object, settings);
  else items.push(item);
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

  // Rules and categories go the same way: into each execute rule of their ruleset, or a problem when there is none.
  const apply = <A extends { rulesetId: string; action?: string; enabled?: boolean; scoreThreshold?: number }>(
    list: 'rules' | 'categories',
    items: readonly A[],
    what: (adjustment: A) => string,
    merge: (overrides: Overrides, adjustment: A) => void,
  ) =>
    items.forEach((adjustment, index) => {
      const targets = executeRulesOf(ruleset, adjustment.rulesetId);
      if (targets.length === 0) {
        problems.push(
          `adjustments.${list}[${index}]: ruleset ${adjustment.rulesetId} (${rulesetName(adjustment.rulesetId)}) is not executed by the converted configuration, which executes ${executedRulesets(ruleset)}`,
        );
        return;
      }
      for (const target of targets) merge(overridesOf(target), adjustment);
      applied.push(`${rulesetName(adjustment.rulesetId)}: ${what(adjustment)}: ${describeSettings(adjustment)}`);
    });

  apply('rules', adjustments.rules, (a) => `rule ${a.ruleId}`, (overrides, a) => {
    const settings: Omit<RuleOverride, 'id'> = {
      ...(a.action !== undefined ? { action: a.action } : {}),
      ...(a.enabled !== undefined ? { enabled: a.enabled } : {}),
      ...(a.scoreThreshold !== undefined ? { score_threshold: a.scoreThreshold } : {}),
    };
    upsert((overrides.rules ??= []), (rule) => rule.id === a.ruleId, { id: a.ruleId, ...settings }, settings);
  });
  apply('categories', adjustments.categories, (a) => `category ${a.category}`, (overrides, a) => {
    const settings: Omit<CategoryOverride, 'category'> = {
      ...(a.action !== undefined ? { action: a.action } : {}),
      ...(a.enabled !== undefined ? { enabled: a.enabled } : {}),
    };
    upsert((overrides.categories ??= []), (category) => category.category === a.category, { category: a.category, ...settings }, settings);
  });

  return { ruleset, applied, problems };
}
