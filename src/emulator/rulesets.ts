import { type EntrypointUpdate, type RulePosition, type RulesetRule, type SavedRuleset } from '../schemas';
import { knownManagedRulesets, rulesetProblems, type RuleProblem } from '../rulesets';
import { validateExpression } from './expression';
import { Messages } from './errors';
import { newId } from './ids';
import { MIGRATION_PHASE } from './waf';

/** What a rule of an action must name, in the words of the service's messages. */
const requiredParameter = (action: 'execute' | 'skip', phase: string) =>
  action === 'execute'
    ? 'the managed ruleset to run'
    : phase === MIGRATION_PHASE
      ? 'what it skips: ruleset "current", rulesets, or rules'
      : 'what it skips: ruleset "current", phases, products, or rules';

/** One problem of the rulesets grammar (src/rulesets) as the service's `path: problem` line. */
export function problemMessage(problem: RuleProblem): string {
  const field = problem.path.join('.');
  switch (problem.kind) {
    case 'ruleIdFormat':
      return Messages.ruleIdFormat(field, 'a rule id, or empty for a new rule');
    case 'ruleIdUnknown':
      return Messages.ruleIdUnknown(field, problem.id);
    case 'action':
      return Messages.rulesetAction(field, problem.action, problem.phase, problem.allowed);
    case 'parameterRequired':
      return Messages.parameterRequired(field, problem.action, requiredParameter(problem.action, problem.phase));
    case 'parameterRefused':
      return Messages.parameterRefused(field, problem.action);
    case 'skipNotInPhase':
      return Messages.skipNotInPhase(field, problem.phase);
    case 'skipTargetsCombined':
      return Messages.skipTargetsCombined(field, problem.targets);
    case 'skipRuleset':
      return Messages.skipRuleset(field, problem.value);
    case 'unknownManagedRuleset':
      return Messages.unknownManagedRuleset(field, problem.id, knownManagedRulesets());
    case 'emptyList':
      return Messages.emptyList(field);
    case 'overrideAction':
      return Messages.overrideAction(field, problem.action, problem.allowed);
    case 'overrideSetsNothing':
      return Messages.overrideSetsNothing(field, problem.fields.join(', '));
    case 'managedRuleId':
      return `${field}: ${problem.reason}`;
    case 'duplicate':
      return Messages.duplicateValue(field, problem.value, problem.first.join('.'));
    case 'expression':
      return `${field}: ${problem.problem}`;
    case 'required':
      return Messages.required(field, problem.what);
    case 'notOneOf':
      return Messages.notOneOf(field, problem.value, problem.allowed);
    case 'notInPhase':
      return Messages.notInPhase(field, problem.phase);
    case 'mustInclude':
      return Messages.mustInclude(field, problem.value);
    case 'atLeast':
      return Messages.atLeast(field, problem.min);
    case 'between':
      return Messages.between(field, problem.min, problem.max);
    case 'timeoutWithChallenge':
      return Messages.timeoutWithChallenge(field, problem.action);
  }
}

/**
 * Everything wrong with an entry point update, one message per problem (`rules.N.field: problem`), checked before
 * anything is saved or the migration moves. `current` is the saved version: a rule id must be one of its rules
 * (the service assigns ids; leave `id` out or empty to add a rule).
 */
export function entrypointProblems(ruleset: EntrypointUpdate, current: SavedRuleset | undefined, phase: string = MIGRATION_PHASE): string[] {
  const knownIds = new Set((current?.rules ?? []).flatMap((rule) => (rule.id === undefined ? [] : [rule.id])));
  return rulesetProblems(ruleset.rules, { knownIds, expressionProblem: validateExpression, phase }).map(problemMessage);
}

/** What decides whether a rule changed between two versions (its id, version and time aside). */
function ruleContent(rule: RulesetRule): string {
  const { action, expression, description, ref, enabled, action_parameters, ratelimit, logging } = rule;
  return JSON.stringify({ action, expression, description: description ?? '', ref, enabled: enabled ?? true, action_parameters, ratelimit, logging });
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
  phase: string = MIGRATION_PHASE,
): SavedRuleset {
  const version = String(Number(current?.version ?? '0') + 1);
  const lastUpdated = now.toISOString();
  const previous = new Map((current?.rules ?? []).map((rule) => [rule.id, rule]));
  return {
    id: current?.id ?? rulesetId,
    name: ruleset.name ?? current?.name ?? 'default',
    description: ruleset.description ?? '',
    kind: 'zone',
    phase,
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

/**
 * `rules` with `rule` placed where `position` says (docs/service.md#rulesets): before or after a rule of the list (by
 * id), at a 1-based index, or last. A message naming `field` when the place does not exist. Pure.
 */
export function placeRule(rules: readonly RulesetRule[], rule: RulesetRule, position: RulePosition | undefined, field = 'position'): RulesetRule[] | string {
  const at = (index: number) => [...rules.slice(0, index), rule, ...rules.slice(index)];
  if (position === undefined) return [...rules, rule];
  if ('index' in position) return position.index > rules.length + 1 ? Messages.positionIndex(`${field}.index`, rules.length + 1) : at(position.index - 1);
  const [key, id] = 'before' in position ? (['before', position.before] as const) : (['after', position.after] as const);
  const found = rules.findIndex((other) => other.id === id);
  if (found < 0) return Messages.positionRule(`${field}.${key}`, id);
  return at(key === 'before' ? found : found + 1);
}
