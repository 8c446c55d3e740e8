import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { NotFoundError } from '../client/errors';
import {
  ManagedRuleIdSchema,
  MANAGED_RULESET_NAMES,
  OverrideActionSchema,
  ZoneIdSchema,
  repeats,
  type EntrypointRuleset,
  type RulesetRule,
  type SavedRuleset,
} from '../schemas';
import { checkWithSchema, containsUnknown, UNKNOWN } from './kit/check';
import { assertConfigured, configure, getClient } from './kit/context';
import { expressionCheckFailures } from './kit/expression';
import { ProviderError, step, unlessNotFound, type Implementation } from './kit/implementation';

const RESOURCE = 'WafManagedRules';
const label = (zoneId: unknown) => `${RESOURCE} of zone ${String(zoneId)}`;

const knownRulesets = () => Object.entries(MANAGED_RULESET_NAMES).map(([id, name]) => `${id} (${name})`).join(' or ');
const ManagedRulesetIdSchema = z.string().refine((id) => MANAGED_RULESET_NAMES[id] !== undefined, {
  error: (issue) => `unknown managed ruleset ${JSON.stringify(issue.input)}; the entry point executes ${knownRulesets()}`,
});


/** An override of one managed rule of the executed ruleset (docs/emulator.md, "Entry point rules"). */
export const ManagedRuleOverrideSchema = z
  .object({
    id: ManagedRuleIdSchema,
    action: OverrideActionSchema.optional(),
    enabled: z.boolean({ error: 'must be a boolean' }).optional(),
    /** The OWASP anomaly score threshold (the migration's conversion sets 25 or 40). */
    scoreThreshold: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
  })
  .strict()
  .refine((o) => o.action !== undefined || o.enabled !== undefined || o.scoreThreshold !== undefined, {
    message: 'must set at least one of action, enabled, scoreThreshold',
  });

/** An override of one category (tag) of the executed ruleset, for example `paranoia-level-3` or `wordpress`. */
export const CategoryOverrideInputSchema = z
  .object({
    category: z.string().min(1, 'must name a category'),
    action: OverrideActionSchema.optional(),
    enabled: z.boolean({ error: 'must be a boolean' }).optional(),
  })
  .strict()
  .refine((o) => o.action !== undefined || o.enabled !== undefined, { message: 'must set at least one of action, enabled' });

/** Repeats of `key` in a list: one issue per repeat, at the repeat, naming the first. */
function uniqueBy<T>(key: (item: T) => string, what: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    for (const { index, value, first } of repeats(items.map(key))) {
      ctx.addIssue({ code: 'custom', path: [index], message: `${what} ${value} appears again (already at ${first}); merge the two` });
    }
  };
}

/** Execute a managed ruleset, with its overrides (the shape of the migration's converted configuration). */
export const ExecuteSchema = z
  .object({
    rulesetId: ManagedRulesetIdSchema,
    /** The action of every rule of the ruleset, and whether the ruleset runs at all. */
    action: OverrideActionSchema.optional(),
    enabled: z.boolean({ error: 'must be a boolean' }).optional(),
    categories: z.array(CategoryOverrideInputSchema).superRefine(uniqueBy((c) => c.category, 'category')).optional(),
    rules: z.array(ManagedRuleOverrideSchema).superRefine(uniqueBy((r) => r.id, 'rule')).optional(),
  })
  .strict();
export type Execute = z.output<typeof ExecuteSchema>;

/** Skip (an exception): the rest of this entry point, named managed rulesets, or named rules of a ruleset. One of. */
export const SkipSchema = z
  .object({
    ruleset: z.literal('current', { error: 'must be "current" (the rest of this entry point)' }).optional(),
    rulesets: z.array(ManagedRulesetIdSchema).min(1, 'must name at least one managed ruleset').optional(),
    rules: z
      .record(ManagedRulesetIdSchema, z.array(ManagedRuleIdSchema).min(1, 'must name at least one rule'))
      .refine((rules) => Object.keys(rules).length > 0, { message: 'must name at least one managed ruleset' })
      .optional(),
  })
  .strict()
  .refine((skip) => [skip.ruleset, skip.rulesets, skip.rules].filter((v) => v !== undefined).length === 1, {
    message: 'must set exactly one of ruleset: "current", rulesets, rules',
  });
export type Skip = z.output<typeof SkipSchema>;

/** One rule of the entry point, without its ref (the key it is declared under). */
export const ManagedRuleSchema = z
  .object({
    description: z.string({ error: 'must be a string' }).default(''),
    /** Which requests the rule applies to; true is all traffic. */
    expression: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty (true means all traffic)')
      .superRefine((text, ctx) => {
        if (text === '') return;
        for (const message of expressionCheckFailures(text)) ctx.addIssue({ code: 'custom', message });
      })
      .default('true'),
    enabled: z.boolean({ error: 'must be a boolean' }).default(true),
    execute: ExecuteSchema.optional(),
    skip: SkipSchema.optional(),
  })
  .strict()
  .refine((rule) => (rule.execute === undefined) !== (rule.skip === undefined), { message: 'must set exactly one of execute, skip' });
export type ManagedRule = z.output<typeof ManagedRuleSchema>;
/** A rule as the user declares it: its ref and the rule. */
export type ManagedRuleWithRef = z.input<typeof ManagedRuleSchema> & { ref: string };

/**
 * Inputs of a WafManagedRules as the provider sees them: the rules keyed by ref and their order. The resource class
 * turns the user's ordered list into this shape, so the engine's diff names a rule by its ref, never by a position
 * that shifts when another rule is added or removed.
 */
export const WafManagedRulesArgsSchema = z
  .object({
    zoneId: ZoneIdSchema,
    /** The refs, in the order the rules run. */
    order: z.array(
      z
        .string()
        .min(1, 'must not be empty (a rule needs a ref)')
        // Failures name a rule's fields as rules.<ref>.<field>: with a dot in the ref, the path would not say where the ref ends.
        .refine((ref) => !ref.includes('.'), {
          error: (issue) => `ref ${JSON.stringify(issue.input)} must not contain a dot: failures name a rule as rules.<ref>.<field>, so a dot would make them ambiguous; use - or _ instead`,
        }),
    ),
    rules: z.record(z.string(), ManagedRuleSchema),
    /** Whether delete puts back the rules create found (the default) or leaves the rules in place. */
    restoreOnDelete: z.boolean({ error: 'must be a boolean' }).default(true),
  })
  .strict();
export type WafManagedRulesInputs = z.output<typeof WafManagedRulesArgsSchema>;

/** The declared list as the provider's inputs: keyed by ref, with the order (repeats kept there for check). Pure. */
export function rulesByRef(list: readonly ManagedRuleWithRef[]): { order: string[]; rules: Record<string, z.input<typeof ManagedRuleSchema>> } {
  const rules: Record<string, z.input<typeof ManagedRuleSchema>> = {};
  for (const { ref, ...rule } of list) if (typeof ref === 'string' && !Object.hasOwn(rules, ref)) rules[ref] = rule;
  return { order: list.map((rule) => rule.ref), rules };
}

/** What a skip rule skips: the managed rulesets it may stop (every one for ruleset "current"). */
function skippedRulesets(skip: Skip): string[] | 'all' {
  if (skip.ruleset !== undefined) return 'all';
  return skip.rulesets ?? Object.keys(skip.rules ?? {});
}

/**
 * Failures the schema cannot see, one per field, each naming the rule's ref: a ref repeated in the order, a ref
 * without its rule or a rule without its place, and a skip placed after every execute it would skip (it would skip
 * nothing: rules run in order, docs/service.md). Unknown values (preview) are let through. Pure.
 */
export function orderFailures(inputs: { order?: unknown; rules?: unknown }): pulumi.dynamic.CheckFailure[] {
  const { order, rules } = inputs;
  if (!Array.isArray(order) || containsUnknown(order) || rules === null || typeof rules !== 'object' || containsUnknown(rules)) return [];
  const byRef = rules as Record<string, ManagedRule>;
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const { index, value, first } of repeats(order as string[])) {
    failures.push({ property: `order.${index}`, reason: `${RESOURCE}.order.${index}: ref "${value}" is declared twice (rules ${first} and ${index}); refs must be unique` });
  }
  const seen = new Map<string, number>();
  order.forEach((ref: string, index) => {
    if (!seen.has(ref)) seen.set(ref, index);
  });
  for (const ref of Object.keys(byRef)) {
    if (!seen.has(ref)) failures.push({ property: `rules.${ref}`, reason: `${RESOURCE}.rules.${ref}: the rule has no place in order; add "${ref}" to order` });
  }
  order.forEach((ref: string, index) => {
    if (seen.get(ref) !== index) return;
    const rule = byRef[ref];
    if (rule === null || typeof rule !== 'object') {
      if (rule === undefined) failures.push({ property: `order.${index}`, reason: `${RESOURCE}.order.${index}: ref "${ref}" names no rule` });
      return;
    }
    if (rule.skip === null || typeof rule.skip !== 'object') return;
    const later = order.slice(index + 1).flatMap((next: string) => {
      const id = byRef[next]?.execute?.rulesetId;
      return id === undefined ? [] : [id];
    });
    const skipped = skippedRulesets(rule.skip);
    const reaches = skipped === 'all' ? later.length > 0 : skipped.some((id) => later.includes(id));
    if (!reaches) {
      const what = skipped === 'all' ? 'the rest of the entry point' : skipped.map((id) => `${id} (${MANAGED_RULESET_NAMES[id] ?? 'unknown'})`).join(', ');
      failures.push({
        property: `rules.${ref}.skip`,
        reason: `${RESOURCE}.rules.${ref}.skip: the rule skips ${what}, but no rule after it executes ${skipped === 'all' ? 'a managed ruleset' : 'it'}, so it would skip nothing; place it before the execute rule it is an exception to`,
      });
    }
  });
  return failures;
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
  const wire: RulesetRule = { id, action: rule.execute ? 'execute' : 'skip', expression: rule.expression, description: rule.description, ref, enabled: rule.enabled };
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
 * What changed between two declared states, by ref: `rules.<ref>` for each rule added, removed or changed (ids,
 * versions and times are not part of a declared rule, so they never count), and `order` when the refs run in
 * another order. An unknown value (preview) is a change. Pure.
 */
export function changedRules(
  olds: { order?: unknown; rules?: unknown },
  news: { order?: unknown; rules?: unknown },
): string[] {
  if (containsUnknown(news.rules) || news.rules === UNKNOWN) return ['rules'];
  const before = (olds.rules ?? {}) as Record<string, z.input<typeof ManagedRuleSchema>>;
  const after = (news.rules ?? {}) as Record<string, z.input<typeof ManagedRuleSchema>>;
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((ref) => {
      const a = before[ref];
      const b = after[ref];
      return a === undefined || b === undefined || !isDeepStrictEqual(normalizeRule(a), normalizeRule(b));
    })
    .map((ref) => `rules.${ref}`);
  const sameOrder = !containsUnknown(news.order) && isDeepStrictEqual(olds.order ?? [], news.order ?? []);
  return sameOrder ? changed : [...changed, 'order'];
}

/** Whether a saved entry point holds exactly the declared rules (content, ref and order; ids aside). Pure. */
export function holdsDeclared(saved: Pick<EntrypointRuleset, 'rules'>, declared: Pick<WafManagedRulesInputs, 'order' | 'rules'>): boolean {
  return changedRules(declaredOf(saved), declared).length === 0;
}

/**
 * The body of the entry point PUT that brings `current` to the declared rules: each rule sent with the id the
 * service gave the rule of the same ref, so unchanged rules keep their id, version and time; a rule of a new ref is
 * sent without id. The ruleset's name and description stay the service's. Pure.
 */
export function entrypointUpdate(current: Pick<EntrypointRuleset, 'name' | 'description' | 'rules'> | undefined, declared: Pick<WafManagedRulesInputs, 'order' | 'rules'>): EntrypointRuleset {
  const ids = new Map((current?.rules ?? []).map((rule) => [rule.ref || rule.id || '', rule.id ?? '']));
  return {
    name: current?.name ?? 'default',
    ...(current?.description !== undefined ? { description: current.description } : {}),
    rules: declared.order.map((ref) => managedRuleToWire(ref, normalizeRule(declared.rules[ref] as ManagedRule), ids.get(ref) ?? '')),
  };
}

/** The rules create found, as delete puts them back: a ruleset without the service's ids, versions and times. */
export function recordOf(saved: SavedRuleset): EntrypointRuleset {
  const { order, rules } = declaredOf(saved);
  return { name: saved.name, ...(saved.description !== undefined ? { description: saved.description } : {}), rules: order.map((ref) => managedRuleToWire(ref, rules[ref] as ManagedRule)) };
}

/** Outputs: the inputs as the service holds them, the service's ids by ref, its version, and what create found. */
export type WafManagedRulesOutputs = WafManagedRulesInputs & {
  /** The service's id of each rule, by ref. */
  ruleIds: Record<string, string>;
  /** The entry point's version after the last create, update or refresh. */
  version: string;
  /** What the entry point held before this resource took it over; delete puts it back unless restoreOnDelete is false. */
  recorded: EntrypointRuleset | null;
};

function outputsOf(inputs: WafManagedRulesInputs, saved: SavedRuleset, recorded: EntrypointRuleset | null): WafManagedRulesOutputs {
  const declared = declaredOf(saved);
  return {
    zoneId: inputs.zoneId,
    order: declared.order,
    rules: declared.rules,
    restoreOnDelete: inputs.restoreOnDelete,
    ruleIds: Object.fromEntries(saved.rules.map((rule) => [rule.ref || rule.id || '', rule.id ?? ''])),
    version: saved.version ?? '',
    recorded,
  };
}

/**
 * Why create must not take the entry point over yet, or undefined when it may: before the migration there is no new
 * WAF to manage, and in validation the WafMigration resource owns the configuration (docs/service.md#migration-modes).
 */
export function migrationRefusal(zoneId: string, migrationState: string): string | undefined {
  if (migrationState === 'pending' || migrationState === 'complete') return undefined;
  const why =
    migrationState === 'validation'
      ? 'is in validation mode, where its WafMigration resource owns the new WAF configuration'
      : `has not migrated to the new WAF managed rules (migration_state ${migrationState})`;
  return (
    `${label(zoneId)}: refused before any change: zone ${zoneId} ${why}. Declare a WafMigration with mode: 'direct' for ` +
    `the zone (or finish its validation) and give this resource the option dependsOn: [thatMigration], so it is ` +
    `created once the migration is done`
  );
}

async function currentEntrypoint(zoneId: string, what: string): Promise<SavedRuleset | undefined> {
  return step(`${label(zoneId)}: ${what}`, () => unlessNotFound(() => getClient().rulesets.getEntrypoint({ zoneId }), undefined));
}

async function save(inputs: WafManagedRulesInputs, current: SavedRuleset | undefined): Promise<SavedRuleset> {
  const { zoneId } = inputs;
  return step(`${label(zoneId)}: updating the entry point ruleset`, () => getClient().rulesets.updateEntrypoint({ zoneId, ruleset: entrypointUpdate(current, inputs) }));
}

export const wafManagedRules: Implementation = {
  configure,

  async check(_olds, news) {
    assertConfigured();
    const result = checkWithSchema(WafManagedRulesArgsSchema, news, RESOURCE);
    const order = orderFailures(result.failures.length > 0 ? news : (result.inputs ?? {}));
    if (order.length > 0 || result.failures.length > 0) return { inputs: news, failures: [...result.failures, ...order] };
    // The canonical form goes to the state, so the engine's display of a change shows only what changed.
    const inputs = result.inputs ?? {};
    if (containsUnknown(inputs.rules)) return result;
    const rules = Object.fromEntries(Object.entries(inputs.rules as Record<string, ManagedRule>).map(([ref, rule]) => [ref, normalizeRule(rule)]));
    return { inputs: { ...inputs, rules }, failures: [] };
  },

  async diff(_id, olds, news) {
    // One entry point per zone: another zone is another resource. restoreOnDelete changes the state only.
    const changed = changedRules(olds, news);
    const zone = news.zoneId !== undefined && news.zoneId !== olds.zoneId ? ['zoneId'] : [];
    const restore = news.restoreOnDelete !== undefined && news.restoreOnDelete !== olds.restoreOnDelete ? ['restoreOnDelete'] : [];
    const all = [...zone, ...changed, ...restore];
    return { changes: all.length > 0, replaces: zone, deleteBeforeReplace: zone.length > 0 ? true : undefined };
  },

  async create(raw) {
    const inputs = raw as WafManagedRulesInputs;
    const { zoneId } = inputs;
    const status = await step(`${label(zoneId)}: reading the migration status`, () => getClient().wafMigration.status({ zoneId }));
    const refusal = migrationRefusal(zoneId, String(status.migration_state));
    if (refusal) throw new ProviderError(refusal);
    // Take-over, not duplication: record what the zone holds, and write only when it differs from the declared rules.
    const current = await currentEntrypoint(zoneId, 'reading the entry point ruleset');
    const recorded = current ? recordOf(current) : null;
    const saved = current && holdsDeclared(current, inputs) ? current : await save(inputs, current);
    return { id: zoneId, outs: outputsOf(inputs, saved, recorded) };
  },

  async read(id, props) {
    const recorded = props as WafManagedRulesOutputs;
    const current = await currentEntrypoint(recorded.zoneId, 'reading the entry point ruleset');
    // The zone is gone, or holds no entry point: nothing is managed any more.
    if (!current) return { id: '' };
    const outs = outputsOf(recorded, current, recorded.recorded ?? null);
    const inputs = { zoneId: outs.zoneId, order: outs.order, rules: outs.rules, restoreOnDelete: outs.restoreOnDelete };
    return { id, props: outs, inputs };
  },

  async update(_id, olds, news) {
    const desired = news as WafManagedRulesInputs;
    const previous = olds as WafManagedRulesOutputs;
    // The ids come from the service, not the state: a rule changed elsewhere since keeps its id all the same.
    const current = await currentEntrypoint(desired.zoneId, 'reading the entry point ruleset');
    const saved = current && holdsDeclared(current, desired) ? current : await save(desired, current);
    return { outs: outputsOf(desired, saved, previous.recorded ?? null) };
  },

  async delete(_id, props) {
    const outs = props as WafManagedRulesOutputs;
    if (outs.restoreOnDelete === false || !outs.recorded) return;
    const { zoneId, recorded } = outs;
    const current = await currentEntrypoint(zoneId, 'reading the entry point ruleset before putting back what create found');
    if (!current) return;
    const declared = declaredOf(recorded);
    if (holdsDeclared(current, declared)) return;
    await step(`${label(zoneId)}: putting back the rules create found`, async () => {
      try {
        return await getClient().rulesets.updateEntrypoint({ zoneId, ruleset: entrypointUpdate({ ...current, name: recorded.name, description: recorded.description }, declared) });
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    });
  },
};
