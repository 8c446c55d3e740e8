import { z } from 'zod';
import { expressionCheckFailures } from '../expression/failures';
import { FIREWALL_LIMITS, OverrideActionSchema, type EntrypointRuleset, type RulesetRule } from '../schemas';
import {
  knownManagedRulesets,
  ruleActionProblems,
  skipCurrentInput,
  SkippedRulesInputSchema,
  StringsInputSchema,
  type ProblemPath,
  type RuleProblem,
} from './grammar';

// The WAF managed rules as a user declares them (the WafManagedRules resource, `zoneguard export`, the migration
// guide), their canonical form and their mapping to and from the entry point's wire rules. Pure.

/** An override of one managed rule of the executed ruleset (docs/emulator.md, "Entry point rules"). */
export const ManagedRuleOverrideSchema = z
  .object({
    /** A managed rule id (checked by the rules grammar, src/rulesets/grammar.ts). */
    id: z.string({ error: 'must be a string' }),
    action: OverrideActionSchema.optional(),
    enabled: z.boolean().optional(),
    /** The OWASP anomaly score threshold (the migration's conversion sets 25 or 40). */
    scoreThreshold: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
  })
  .strict();

/** An override of one category (tag) of the executed ruleset, for example `paranoia-level-3` or `wordpress`. */
export const CategoryOverrideInputSchema = z
  .object({
    category: z.string().min(1, 'must name a category'),
    action: OverrideActionSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

/** Execute a managed ruleset, with its overrides (the shape of the migration's converted configuration). */
export const ExecuteSchema = z
  .object({
    rulesetId: z.string({ error: 'must name a managed ruleset' }),
    /** The action of every rule of the ruleset, and whether the ruleset runs at all. */
    action: OverrideActionSchema.optional(),
    enabled: z.boolean().optional(),
    categories: z.array(CategoryOverrideInputSchema).optional(),
    rules: z.array(ManagedRuleOverrideSchema).optional(),
  })
  .strict();
export type Execute = z.output<typeof ExecuteSchema>;

/** Skip (an exception): the rest of this entry point, named managed rulesets, or named rules of a ruleset. One of. */
export const SkipSchema = z
  .object({
    ruleset: skipCurrentInput('the rest of this entry point'),
    rulesets: StringsInputSchema.optional(),
    rules: SkippedRulesInputSchema.optional(),
  })
  .strict();
export type Skip = z.output<typeof SkipSchema>;

/** One rule of the entry point, without its ref (the key it is declared under). */
/**
 * Bounds of a managed entry point's rules. docs/service.md records none for ruleset rules, so a ref and a description
 * take the firewall rules' field limits (docs/service.md#filters: ref 50, description 500 characters), and the number
 * of rules the largest per-phase quota (docs/service.md#ruleset-quotas: 1000, enterprise custom rules; the managed
 * phase has no quota of its own). Ours, so that a 100,000-character ref or a 1 MB description fails at preview, not
 * in the service or the state. The migration's rules (a handful) are far under them.
 */
export const MANAGED_RULE_LIMITS = { refMax: FIREWALL_LIMITS.refMax, descriptionMax: FIREWALL_LIMITS.descriptionMax, rulesMax: 1000 } as const;

export const ManagedRuleSchema = z
  .object({
    description: z
      .string({ error: 'must be a string' })
      .max(MANAGED_RULE_LIMITS.descriptionMax, `must be at most ${MANAGED_RULE_LIMITS.descriptionMax} characters`)
      .default(''),
    /** Which requests the rule applies to; true is all traffic. */
    expression: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty (true means all traffic)')
      .superRefine((text, ctx) => {
        if (text === '') return;
        // A host name compared with http.host must be ASCII too, or the rule never matches (src/expression/failures.ts).
        for (const message of expressionCheckFailures(text)) ctx.addIssue({ code: 'custom', message });
      })
      .default('true'),
    enabled: z.boolean().default(true),
    execute: ExecuteSchema.optional(),
    skip: SkipSchema.optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if ((rule.execute === undefined) === (rule.skip === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'must set exactly one of execute, skip' });
      return;
    }
    // The execute and skip grammar is the emulator's (src/rulesets/grammar.ts), on the rule's wire form.
    for (const problem of ruleActionProblems(wireActionOf(rule))) {
      // A repeat is named at the repeated item (execute.categories.1), as the user declared a list of items.
      const path = declaredPath(problem.kind === 'duplicate' ? problem.path.slice(0, -1) : problem.path);
      ctx.addIssue({ code: 'custom', path, message: declaredProblemText(problem) });
    }
  });
export type ManagedRule = z.output<typeof ManagedRuleSchema>;
/** A rule as the user declares it: its ref and the rule. */
export type ManagedRuleWithRef = z.input<typeof ManagedRuleSchema> & { ref: string };


/** A declared rule's action and parameters on the wire, every list kept (even empty) so the grammar sees it. */
function wireActionOf(rule: { execute?: Execute | undefined; skip?: Skip | undefined }): Pick<RulesetRule, 'action' | 'action_parameters'> {
  if (rule.skip !== undefined) return { action: 'skip', action_parameters: { ...rule.skip } };
  const { rulesetId, action, enabled, categories, rules } = rule.execute ?? { rulesetId: '' };
  return {
    action: 'execute',
    action_parameters: {
      id: rulesetId,
      overrides: {
        action,
        enabled,
        categories,
        rules: rules?.map((r) => ({ id: r.id, action: r.action, enabled: r.enabled, score_threshold: r.scoreThreshold })),
      },
    },
  };
}

/** A wire path of the grammar (`action_parameters.overrides.rules.0.score_threshold`) in the declared names (`execute.rules.0.scoreThreshold`). */
function declaredPath(path: ProblemPath): (string | number)[] {
  const [, key, ...rest] = path;
  const named = (segments: readonly (string | number)[]) => segments.map((segment) => (segment === 'score_threshold' ? 'scoreThreshold' : segment));
  if (key === 'id') return ['execute', 'rulesetId', ...rest];
  if (key === 'overrides') return ['execute', ...named(rest)];
  return key === undefined ? ['skip'] : ['skip', key, ...rest];
}

/** A problem of the grammar in the words of a declared rule (the field is named by the path). */
function declaredProblemText(problem: RuleProblem): string {
  switch (problem.kind) {
    case 'unknownManagedRuleset':
      return `unknown managed ruleset ${JSON.stringify(problem.id)}; the entry point executes ${knownManagedRulesets()}`;
    case 'emptyList':
      return typeof problem.path.at(-1) === 'string' && problem.path.length > 2 && problem.path.at(-2) === 'rules'
        ? 'must name at least one rule'
        : 'must name at least one managed ruleset';
    case 'parameterRequired':
      return problem.action === 'execute' ? 'must name the managed ruleset to execute' : 'must set exactly one of ruleset: "current", rulesets, rules';
    case 'skipTargetsCombined':
      return 'must set exactly one of ruleset: "current", rulesets, rules';
    case 'overrideSetsNothing':
      return `must set at least one of ${problem.fields.map((field) => (field === 'score_threshold' ? 'scoreThreshold' : field)).join(', ')}`;
    case 'duplicate': {
      const noun = problem.path.includes('categories') ? 'category' : 'rule';
      return `${noun} ${problem.value} appears again (already at ${String(problem.first.at(-2))}); merge the two`;
    }
    case 'managedRuleId':
      return problem.reason;
    case 'overrideAction':
      return `must be one of ${problem.allowed.join(', ')}`;
    case 'skipRuleset':
      return 'must be "current" (the rest of this entry point)';
    default:
      return `not allowed here (${problem.kind})`;
  }
}

/** The declared list as the provider's inputs: keyed by ref, with the order (repeats kept there for check). Pure. */
export function rulesByRef(list: readonly ManagedRuleWithRef[]): { order: string[]; rules: Record<string, z.input<typeof ManagedRuleSchema>> } {
  const rules: Record<string, z.input<typeof ManagedRuleSchema>> = {};
  for (const { ref, ...rule } of list) if (typeof ref === 'string' && !Object.hasOwn(rules, ref)) rules[ref] = rule;
  return { order: list.map((rule) => rule.ref), rules };
}

/** What a skip rule skips: the managed rulesets it may stop (every one for ruleset "current"). */
export function skippedRulesets(skip: Skip): string[] | 'all' {
  if (skip.ruleset !== undefined) return 'all';
  return skip.rulesets ?? Object.keys(skip.rules ?? {});
}

/** Sorted copy of a list by a key: the service's meaning does not depend on the order of overrides. */
const sortedBy = <T>(items: readonly T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));

/** Drops undefined fields and empty lists, so equal rules compare equal whatever the service or the user left out. */
function compact<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))) as T;
}

/**
 * One rule in its canonical form: defaults filled (description empty, expression true, enabled true), overrides
 * sorted by rule id and category, empty override lists dropped, skip lists sorted. The diff and the adoption compare
 * these, so what the service normalizes never shows as a change (no perpetual diff). Pure.
 */
export function normalizeRule(rule: z.input<typeof ManagedRuleSchema>): ManagedRule {
  const out: ManagedRule = {
    description: rule.description ?? '',
    expression: rule.expression ?? 'true',
    enabled: rule.enabled ?? true,
  };
  if (rule.execute !== undefined) {
    const { rulesetId, action, enabled, categories, rules } = rule.execute;
    out.execute = compact({
      rulesetId,
      action,
      enabled,
      categories: sortedBy(categories ?? [], (c) => c.category).map((c) => compact({ ...c })),
      rules: sortedBy(rules ?? [], (r) => r.id).map((r) => compact({ ...r })),
    });
  }
  if (rule.skip !== undefined) {
    const { ruleset, rulesets, rules } = rule.skip;
    out.skip = compact({
      ruleset,
      rulesets: rulesets === undefined ? undefined : [...rulesets].sort(),
      rules: rules === undefined ? undefined : Object.fromEntries(Object.keys(rules).sort().map((id) => [id, [...(rules[id] ?? [])].sort()])),
    });
  }
  return out;
}

/** A rule of the service's entry point as a declared rule, with its ref. Pure. */
export function ruleFromWire(rule: RulesetRule): ManagedRuleWithRef {
  const parameters = rule.action_parameters ?? {};
  const base = { ref: rule.ref || rule.id || '', description: rule.description ?? '', expression: rule.expression, enabled: rule.enabled ?? true };
  if (rule.action === 'skip') {
    return { ...base, skip: compact({ ruleset: parameters.ruleset as 'current' | undefined, rulesets: parameters.rulesets, rules: parameters.rules }) };
  }
  const overrides = parameters.overrides ?? {};
  return {
    ...base,
    execute: compact({
      rulesetId: parameters.id ?? '',
      action: overrides.action as Execute['action'],
      enabled: overrides.enabled,
      categories: overrides.categories?.map((c) => compact({ category: c.category, action: c.action as Execute['action'], enabled: c.enabled })),
      rules: overrides.rules?.map((r) => compact({ id: r.id, action: r.action as Execute['action'], enabled: r.enabled, scoreThreshold: r.score_threshold })),
    }),
  };
}

/** A declared rule as the service's entry point rule; `id` is the service's id of the rule it updates, empty for a new one. Pure. */
export function managedRuleToWire(ref: string, rule: ManagedRule, id = ''): RulesetRule {
  const wire: RulesetRule = {
    id,
    action: rule.execute ? 'execute' : 'skip',
    expression: rule.expression,
    description: rule.description,
    ref,
    enabled: rule.enabled,
  };
  if (rule.execute) {
    const { rulesetId, action, enabled, categories, rules } = rule.execute;
    const overrides = compact({
      action,
      enabled,
      categories: categories?.map((c) => compact({ ...c })),
      rules: rules?.map((r) => compact({ id: r.id, action: r.action, enabled: r.enabled, score_threshold: r.scoreThreshold })),
    });
    wire.action_parameters = Object.keys(overrides).length === 0 ? { id: rulesetId } : { id: rulesetId, overrides };
  } else if (rule.skip) {
    wire.action_parameters = compact({ ...rule.skip });
  }
  return wire;
}

/**
 * Declared rules from a ruleset: the migration's converted configuration (planWafMigration's `ruleset`, whose rules
 * carry the refs the migration gives them) or a saved entry point. Pass the result as WafManagedRules' `rules` to
 * start from what the migration produced. Pure.
 */
export function rulesFromRuleset(ruleset: Pick<EntrypointRuleset, 'rules'>): ManagedRuleWithRef[] {
  return ruleset.rules.map(ruleFromWire);
}

/** The declared state of a ruleset: refs in order, each rule in canonical form. Pure. */
export function declaredOf(ruleset: Pick<EntrypointRuleset, 'rules'>): { order: string[]; rules: Record<string, ManagedRule> } {
  const { order, rules } = rulesByRef(rulesFromRuleset(ruleset));
  return { order, rules: Object.fromEntries(Object.entries(rules).map(([ref, rule]) => [ref, normalizeRule(rule)])) };
}


/**
 * Why a zone's managed entry point is not yet the user's to declare, or undefined when it is: before the migration
 * there is no new WAF to manage (`not-migrated`), and in validation the WafMigration resource owns the configuration
 * (docs/service.md#migration-modes). WafManagedRules refuses its create on it; `zoneguard export` leaves it out. Pure.
 */
export function managedEntrypointBlocker(migrationState: string): 'validation' | 'not-migrated' | undefined {
  if (migrationState === 'pending' || migrationState === 'complete') return undefined;
  return migrationState === 'validation' ? 'validation' : 'not-migrated';
}
