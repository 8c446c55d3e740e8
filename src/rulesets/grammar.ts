import {
  HexIdSchema,
  MANAGED_PHASE,
  MANAGED_PHASE_ACTIONS,
  MANAGED_RULESET_NAMES,
  ManagedRuleIdSchema,
  OverrideActionSchema,
  repeats,
  type ActionParameters,
  type Overrides,
  type RulesetRule,
} from '../schemas';

// The grammar of an entry point's rules, once: what the emulator refuses and what the providers' `check` refuses
// before any call, as structured problems (a path and a kind). Each caller words them in its own texts: the
// emulator as the service's `path: problem` lines, the providers in the names their inputs use. Pure.

/** Where a problem is: keys and indexes from the ruleset (`['rules', 0, 'action']`) or from one rule. */
export type ProblemPath = readonly (string | number)[];

/** One thing wrong with a ruleset or a rule; `path` names the field, the rest is what a message needs. */
export type RuleProblem =
  | { kind: 'ruleIdFormat'; path: ProblemPath }
  | { kind: 'ruleIdUnknown'; path: ProblemPath; id: string }
  | { kind: 'action'; path: ProblemPath; action: string; phase: string; allowed: readonly string[] }
  | { kind: 'parameterRequired'; path: ProblemPath; action: 'execute' | 'skip'; phase: string }
  | { kind: 'parameterRefused'; path: ProblemPath; action: string }
  | { kind: 'skipNotInPhase'; path: ProblemPath; phase: string }
  | { kind: 'skipTargetsCombined'; path: ProblemPath; targets: readonly string[] }
  | { kind: 'skipRuleset'; path: ProblemPath; value: string }
  | { kind: 'unknownManagedRuleset'; path: ProblemPath; id: string }
  | { kind: 'emptyList'; path: ProblemPath }
  | { kind: 'overrideAction'; path: ProblemPath; action: string; allowed: readonly string[] }
  | { kind: 'overrideSetsNothing'; path: ProblemPath; fields: readonly string[] }
  | { kind: 'managedRuleId'; path: ProblemPath; reason: string }
  | { kind: 'duplicate'; path: ProblemPath; value: string; first: ProblemPath }
  | { kind: 'expression'; path: ProblemPath; problem: string };

/** `managed ruleset id (name)` for each managed ruleset the entry point may execute, joined with "or". */
export const knownManagedRulesets = (): string =>
  Object.entries(MANAGED_RULESET_NAMES)
    .map(([id, name]) => `${id} (${name})`)
    .join(' or ');

const isManagedRuleset = (id: string) => MANAGED_RULESET_NAMES[id] !== undefined;
const isOverrideAction = (value: string) => OverrideActionSchema.safeParse(value).success;

/** Skip parameters the managed phase takes, those it does not, and the execute-only ones (docs/emulator.md, "Entry point rules"). */
const SKIP_TARGETS = ['ruleset', 'rulesets', 'rules'] as const;
const SKIP_ELSEWHERE = ['phases', 'products'] as const;
const EXECUTE_ONLY = ['id', 'overrides'] as const;

function managedRuleIdProblems(path: ProblemPath, id: string): RuleProblem[] {
  const parsed = ManagedRuleIdSchema.safeParse(id);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ kind: 'managedRuleId', path, reason: issue.message }));
}

/** Each value of a list that repeats an earlier one, at `field(index)`, naming the first. */
export function duplicateProblems(values: readonly (string | undefined)[], field: (index: number) => ProblemPath): RuleProblem[] {
  return repeats(values).map(({ index, value, first }) => ({ kind: 'duplicate', path: field(index), value, first: field(first) }));
}

function overrideProblems(overrides: Overrides, at: ProblemPath): RuleProblem[] {
  const allowed = OverrideActionSchema.options;
  const problems: RuleProblem[] = [];
  if (overrides.action !== undefined && !isOverrideAction(overrides.action)) problems.push({ kind: 'overrideAction', path: [...at, 'action'], action: overrides.action, allowed });
  (overrides.rules ?? []).forEach((rule, k) => {
    const field = [...at, 'rules', k];
    problems.push(...managedRuleIdProblems([...field, 'id'], rule.id));
    if (rule.action !== undefined && !isOverrideAction(rule.action)) problems.push({ kind: 'overrideAction', path: [...field, 'action'], action: rule.action, allowed });
    if (rule.action === undefined && rule.enabled === undefined && rule.score_threshold === undefined) {
      problems.push({ kind: 'overrideSetsNothing', path: field, fields: ['action', 'enabled', 'score_threshold'] });
    }
  });
  problems.push(...duplicateProblems((overrides.rules ?? []).map((r) => r.id), (k) => [...at, 'rules', k, 'id']));
  (overrides.categories ?? []).forEach((category, k) => {
    const field = [...at, 'categories', k];
    if (category.action !== undefined && !isOverrideAction(category.action)) problems.push({ kind: 'overrideAction', path: [...field, 'action'], action: category.action, allowed });
    if (category.action === undefined && category.enabled === undefined) problems.push({ kind: 'overrideSetsNothing', path: field, fields: ['action', 'enabled'] });
  });
  problems.push(...duplicateProblems((overrides.categories ?? []).map((c) => c.category), (k) => [...at, 'categories', k, 'category']));
  return problems;
}

function executeProblems(parameters: ActionParameters | undefined, at: ProblemPath, phase: string): RuleProblem[] {
  if (parameters?.id === undefined) return [{ kind: 'parameterRequired', path: [...at, 'id'], action: 'execute', phase }];
  const problems: RuleProblem[] = [];
  if (!isManagedRuleset(parameters.id)) problems.push({ kind: 'unknownManagedRuleset', path: [...at, 'id'], id: parameters.id });
  for (const key of [...SKIP_TARGETS, ...SKIP_ELSEWHERE]) {
    if (parameters[key] !== undefined) problems.push({ kind: 'parameterRefused', path: [...at, key], action: 'execute' });
  }
  if (parameters.overrides !== undefined) problems.push(...overrideProblems(parameters.overrides, [...at, 'overrides']));
  return problems;
}

/** What a skip rule of the managed phase names: one of ruleset "current", managed rulesets, or rules of them. */
function skipProblems(parameters: ActionParameters | undefined, at: ProblemPath, phase: string): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const key of EXECUTE_ONLY) if (parameters?.[key] !== undefined) problems.push({ kind: 'parameterRefused', path: [...at, key], action: 'skip' });
  for (const key of SKIP_ELSEWHERE) if (parameters?.[key] !== undefined) problems.push({ kind: 'skipNotInPhase', path: [...at, key], phase });
  const targets = SKIP_TARGETS.filter((key) => parameters?.[key] !== undefined);
  if (targets.length === 0 && problems.length === 0) return [{ kind: 'parameterRequired', path: at, action: 'skip', phase }];
  if (targets.length > 1) problems.push({ kind: 'skipTargetsCombined', path: at, targets });
  if (parameters?.ruleset !== undefined && parameters.ruleset !== 'current') problems.push({ kind: 'skipRuleset', path: [...at, 'ruleset'], value: parameters.ruleset });
  problems.push(...skipListProblems(parameters, at));
  return problems;
}

/** The managed rulesets and rules a skip names: known rulesets, no empty list, managed rule ids. */
function skipListProblems(parameters: ActionParameters | undefined, at: ProblemPath): RuleProblem[] {
  const problems: RuleProblem[] = [];
  (parameters?.rulesets ?? []).forEach((id, k) => {
    if (!isManagedRuleset(id)) problems.push({ kind: 'unknownManagedRuleset', path: [...at, 'rulesets', k], id });
  });
  if (parameters?.rulesets?.length === 0) problems.push({ kind: 'emptyList', path: [...at, 'rulesets'] });
  for (const [rulesetId, ruleIds] of Object.entries(parameters?.rules ?? {})) {
    if (!isManagedRuleset(rulesetId)) problems.push({ kind: 'unknownManagedRuleset', path: [...at, 'rules'], id: rulesetId });
    if (ruleIds.length === 0) problems.push({ kind: 'emptyList', path: [...at, 'rules', rulesetId] });
    ruleIds.forEach((id, k) => problems.push(...managedRuleIdProblems([...at, 'rules', rulesetId, k], id)));
  }
  if (parameters?.rules !== undefined && Object.keys(parameters.rules).length === 0) problems.push({ kind: 'emptyList', path: [...at, 'rules'] });
  return problems;
}

/**
 * What is wrong with one rule's action and its parameters in `phase`, paths from the rule (`action_parameters.id`).
 * The expression is the caller's: its checker differs (the emulator's hook, the providers' `check`).
 */
export function ruleActionProblems(rule: Pick<RulesetRule, 'action' | 'action_parameters'>, phase: string = MANAGED_PHASE): RuleProblem[] {
  if (!(MANAGED_PHASE_ACTIONS as readonly string[]).includes(rule.action)) {
    return [{ kind: 'action', path: ['action'], action: rule.action, phase, allowed: MANAGED_PHASE_ACTIONS }];
  }
  const at = ['action_parameters'];
  return rule.action === 'execute' ? executeProblems(rule.action_parameters, at, phase) : skipProblems(rule.action_parameters, at, phase);
}

/** A problem of one rule as a problem of the ruleset: its paths (the repeat's first one too) under `at`. */
export function within(at: ProblemPath, problem: RuleProblem): RuleProblem {
  return problem.kind === 'duplicate' ? { ...problem, path: [...at, ...problem.path], first: [...at, ...problem.first] } : { ...problem, path: [...at, ...problem.path] };
}

/** Options of rulesetProblems: the ids of the saved rules, and the caller's expression check. */
export interface RulesetCheck {
  /** Ids of the rules of the saved version: an id sent must be one of them (the service assigns ids). */
  knownIds: ReadonlySet<string>;
  /** The first problem of an expression, or undefined when it is valid. */
  expressionProblem: (text: string) => string | undefined;
  phase?: string;
}

/**
 * Everything wrong with the rules of an entry point update, in order: per rule its id, its action and parameters,
 * its expression; then ids and refs used twice. Paths from the ruleset (`rules.N.field`).
 */
export function rulesetProblems(rules: readonly RulesetRule[], { knownIds, expressionProblem, phase = MANAGED_PHASE }: RulesetCheck): RuleProblem[] {
  const problems: RuleProblem[] = [];
  rules.forEach((rule, index) => {
    const at = ['rules', index];
    if (rule.id !== undefined && rule.id !== '') {
      if (!HexIdSchema.safeParse(rule.id).success) problems.push({ kind: 'ruleIdFormat', path: [...at, 'id'] });
      else if (!knownIds.has(rule.id)) problems.push({ kind: 'ruleIdUnknown', path: [...at, 'id'], id: rule.id });
    }
    problems.push(...ruleActionProblems(rule, phase).map((problem) => within(at, problem)));
    const expression = expressionProblem(rule.expression);
    if (expression !== undefined) problems.push({ kind: 'expression', path: [...at, 'expression'], problem: expression });
  });
  problems.push(...duplicateProblems(rules.map((rule) => rule.id), (index) => ['rules', index, 'id']));
  problems.push(...duplicateProblems(rules.map((rule) => rule.ref), (index) => ['rules', index, 'ref']));
  return problems;
}
