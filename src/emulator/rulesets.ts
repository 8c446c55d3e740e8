import {
  HexIdSchema,
  MANAGED_PHASE_ACTIONS,
  MANAGED_RULESET_NAMES,
  ManagedRuleIdSchema,
  OverrideActionSchema,
  repeats,
  type ActionParameters,
  type EntrypointUpdate,
  type Overrides,
  type RulesetRule,
  type SavedRuleset,
} from '../schemas';
import { validateExpression } from './expression';
import { Messages } from './errors';
import { newId } from './ids';
import { MIGRATION_PHASE } from './waf';

const isHexId = (value: string) => HexIdSchema.safeParse(value).success;
/** `field: problem` when `id` is not a managed rule id, in the words of its one definition (ManagedRuleIdSchema). */
const managedRuleIdProblems = (field: string, id: string): string[] => {
  const parsed = ManagedRuleIdSchema.safeParse(id);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${field}: ${issue.message}`);
};
const isOverrideAction = (value: string) => OverrideActionSchema.safeParse(value).success;
const KNOWN_RULESETS = () => Object.entries(MANAGED_RULESET_NAMES).map(([id, name]) => `${id} (${name})`).join(' or ');

/** Skip parameters the managed phase takes, and those it does not (docs/emulator.md, "Entry point rules"). */
const SKIP_TARGETS = ['ruleset', 'rulesets', 'rules'] as const;
const SKIP_ELSEWHERE = ['phases', 'products'] as const;
const EXECUTE_ONLY = ['id', 'overrides'] as const;

/** `value` at `field` repeats the one at an earlier index: one problem per repeat, naming the first. */
function duplicates(values: (string | undefined)[], field: (index: number) => string): string[] {
  return repeats(values).map(({ index, value, first }) => Messages.duplicateValue(field(index), value, field(first)));
}

function overrideProblems(overrides: Overrides, at: string): string[] {
  const problems: string[] = [];
  if (overrides.action !== undefined && !isOverrideAction(overrides.action)) problems.push(Messages.overrideAction(`${at}.action`, overrides.action, OverrideActionSchema.options));
  (overrides.rules ?? []).forEach((rule, k) => {
    const field = `${at}.rules.${k}`;
    problems.push(...managedRuleIdProblems(`${field}.id`, rule.id));
    if (rule.action !== undefined && !isOverrideAction(rule.action)) problems.push(Messages.overrideAction(`${field}.action`, rule.action, OverrideActionSchema.options));
    if (rule.action === undefined && rule.enabled === undefined && rule.score_threshold === undefined) {
      problems.push(Messages.overrideSetsNothing(field, 'action, enabled, score_threshold'));
    }
  });
  problems.push(...duplicates((overrides.rules ?? []).map((r) => r.id), (k) => `${at}.rules.${k}.id`));
  (overrides.categories ?? []).forEach((category, k) => {
    const field = `${at}.categories.${k}`;
    if (category.action !== undefined && !isOverrideAction(category.action)) problems.push(Messages.overrideAction(`${field}.action`, category.action, OverrideActionSchema.options));
    if (category.action === undefined && category.enabled === undefined) problems.push(Messages.overrideSetsNothing(field, 'action, enabled'));
  });
  problems.push(...duplicates((overrides.categories ?? []).map((c) => c.category), (k) => `${at}.categories.${k}.category`));
  return problems;
}

function executeProblems(parameters: ActionParameters | undefined, at: string): string[] {
  if (parameters?.id === undefined) return [Messages.parameterRequired(`${at}.id`, 'execute', 'the managed ruleset to run')];
  const problems: string[] = [];
  if (MANAGED_RULESET_NAMES[parameters.id] === undefined) problems.push(Messages.unknownManagedRuleset(`${at}.id`, parameters.id, KNOWN_RULESETS()));
  for (const key of [...SKIP_TARGETS, ...SKIP_ELSEWHERE]) {
    if (parameters[key] !== undefined) problems.push(Messages.parameterRefused(`${at}.${key}`, 'execute'));
  }
  if (parameters.overrides !== undefined) problems.push(...overrideProblems(parameters.overrides, `${at}.overrides`));
  return problems;
}

function skipProblems(parameters: ActionParameters | undefined, at: string): string[] {
  const problems: string[] = [];
  for (const key of EXECUTE_ONLY) if (parameters?.[key] !== undefined) problems.push(Messages.parameterRefused(`${at}.${key}`, 'skip'));
  for (const key of SKIP_ELSEWHERE) if (parameters?.[key] !== undefined) problems.push(Messages.skipNotInPhase(`${at}.${key}`, MIGRATION_PHASE));
  const targets = SKIP_TARGETS.filter((key) => parameters?.[key] !== undefined);
  if (targets.length === 0 && problems.length === 0) return [Messages.parameterRequired(at, 'skip', 'what it skips: ruleset "current", rulesets, or rules')];
  if (targets.length > 1) problems.push(Messages.skipTargetsCombined(at, targets));
  if (parameters?.ruleset !== undefined && parameters.ruleset !== 'current') problems.push(Messages.skipRuleset(`${at}.ruleset`, parameters.ruleset));
  (parameters?.rulesets ?? []).forEach((id, k) => {
    if (MANAGED_RULESET_NAMES[id] === undefined) problems.push(Messages.unknownManagedRuleset(`${at}.rulesets.${k}`, id, KNOWN_RULESETS()));
  });
  if (parameters?.rulesets?.length === 0) problems.push(Messages.emptyList(`${at}.rulesets`));
  for (const [rulesetId, ruleIds] of Object.entries(parameters?.rules ?? {})) {
    if (MANAGED_RULESET_NAMES[rulesetId] === undefined) problems.push(Messages.unknownManagedRuleset(`${at}.rules`, rulesetId, KNOWN_RULESETS()));
    if (ruleIds.length === 0) problems.push(Messages.emptyList(`${at}.rules.${rulesetId}`));
    ruleIds.forEach((id, k) => problems.push(...managedRuleIdProblems(`${at}.rules.${rulesetId}.${k}`, id)));
  }
  if (parameters?.rules !== undefined && Object.keys(parameters.rules).length === 0) problems.push(Messages.emptyList(`${at}.rules`));
  return problems;
}

/**
 * Everything wrong with an entry point update, one message per problem (`rules.N.field: problem`), checked before
 * anything is saved or the migration moves. `current` is the saved version: a rule id must be one of its rules
 * (the service assigns ids; leave `id` out or empty to add a rule).
 */
export function entrypointProblems(ruleset: EntrypointUpdate, current: SavedRuleset | undefined): string[] {
  const known = new Set((current?.rules ?? []).map((rule) => rule.id));
  const problems: string[] = [];
  ruleset.rules.forEach((rule, index) => {
    const at = `rules.${index}`;
    if (rule.id !== undefined && rule.id !== '') {
      if (!isHexId(rule.id)) problems.push(Messages.ruleIdFormat(`${at}.id`, 'a rule id, or empty for a new rule'));
      else if (!known.has(rule.id)) problems.push(Messages.ruleIdUnknown(`${at}.id`, rule.id));
    }
    if (!(MANAGED_PHASE_ACTIONS as readonly string[]).includes(rule.action)) {
      problems.push(Messages.rulesetAction(`${at}.action`, rule.action, MIGRATION_PHASE, MANAGED_PHASE_ACTIONS));
    } else {
      const parameters = `${at}.action_parameters`;
      problems.push(...(rule.action === 'execute' ? executeProblems(rule.action_parameters, parameters) : skipProblems(rule.action_parameters, parameters)));
    }
    const expression = validateExpression(rule.expression);
    if (expression !== undefined) problems.push(`${at}.expression: ${expression}`);
  });
  problems.push(...duplicates(ruleset.rules.map((rule) => rule.id), (index) => `rules.${index}.id`));
  problems.push(...duplicates(ruleset.rules.map((rule) => rule.ref), (index) => `rules.${index}.ref`));
  return problems;
}

/** What decides whether a rule changed between two versions (its id, version and time aside). */
function ruleContent(rule: RulesetRule): string {
  const { action, expression, description, ref, enabled, action_parameters } = rule;
  return JSON.stringify({ action, expression, description: description ?? '', ref, enabled: enabled ?? true, action_parameters });
}

/**
 * The next version of the entry point, as the service saves it: new rules get an id (and a ref equal to it unless
 * given); `enabled` defaults to true and `description` to empty; a rule keeps its version and time unless it changed.
 * Pure: the caller passes the time, and the validated body.
 */
export function nextEntrypointVersion(
  ruleset: EntrypointUpdate,
  current: SavedRuleset | undefined,
  rulesetId: string,
  now: Date,
): SavedRuleset {
  const version = String(Number(current?.version ?? '0') + 1);
  const lastUpdated = now.toISOString();
  const previous = new Map((current?.rules ?? []).map((rule) => [rule.id, rule]));
  return {
    id: current?.id ?? rulesetId,
    name: ruleset.name ?? current?.name ?? 'default',
    description: ruleset.description ?? '',
    kind: 'zone',
    phase: MIGRATION_PHASE,
    version,
    last_updated: lastUpdated,
    rules: ruleset.rules.map(({ version: _version, last_updated: _lastUpdated, ...rule }) => {
      const id = rule.id !== undefined && rule.id !== '' ? rule.id : newId();
      const saved: RulesetRule = {
        ...rule,
        id,
        ref: rule.ref !== undefined && rule.ref !== '' ? rule.ref : id,
        description: rule.description ?? '',
        enabled: rule.enabled ?? true,
        version,
        last_updated: lastUpdated,
      };
      const before = previous.get(id);
      return before !== undefined && ruleContent(before) === ruleContent(saved)
        ? { ...saved, version: before.version ?? version, last_updated: before.last_updated ?? lastUpdated }
        : saved;
    }),
  };
}

/** A version as the versions list shows it: the public API leaves the rules out. */
export function versionSummary({ rules: _rules, ...ruleset }: SavedRuleset): Omit<SavedRuleset, 'rules'> {
  return ruleset;
}
