import {
  BLOCK_CONTENT_TYPES,
  HexIdSchema,
  MANAGED_PHASE,
  MANAGED_PHASE_ACTIONS,
  MANAGED_RULESET_NAMES,
  PHASE_ACTIONS,
  RATELIMIT_PERIODS,
  RATELIMIT_PHASE,
  RATELIMIT_REQUIRED_CHARACTERISTIC,
  RATELIMIT_TIMEOUTS,
  SKIPPABLE_PHASES,
  SKIPPABLE_PRODUCTS,
  RulesetPhaseSchema,
  type Ratelimit,
  ManagedRuleIdSchema,
  OverrideActionSchema,
  repeats,
  type ActionParameters,
  type Overrides,
  type RulesetRule,
} from '../schemas';
import { z } from 'zod';
import { PHASE_RULE_QUOTAS } from '../schemas/rulesets';

// The grammar of an entry point's rules, once: what the emulator refuses and what the providers' `check` refuses
// before any call, as structured problems (a path and a kind). Each caller words them in its own texts: the
// emulator as the service's `path: problem` lines, the providers in the names their inputs use. Pure.

/** A list of strings in a program's inputs (the names a skip lists). */
export const StringsInputSchema = z.array(z.string({ error: 'must be a string' }));

/** What a skip of either phase that has skips takes in a program's inputs: rules of managed rulesets, by ruleset id. */
export const SkippedRulesInputSchema = z.record(z.string(), StringsInputSchema);

/** A skip's `ruleset: 'current'` in a program's inputs, `rest` saying what it skips in that phase. */
export const skipCurrentInput = (rest: string) => z.literal('current', { error: `must be "current" (${rest})` }).optional();

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
  | { kind: 'expression'; path: ProblemPath; problem: string }
  | { kind: 'required'; path: ProblemPath; what: string }
  | { kind: 'notOneOf'; path: ProblemPath; value: string; allowed: readonly (string | number)[] }
  | { kind: 'notInPhase'; path: ProblemPath; phase: string }
  | { kind: 'mustInclude'; path: ProblemPath; value: string }
  | { kind: 'atLeast'; path: ProblemPath; min: number }
  | { kind: 'between'; path: ProblemPath; min: number; max: number }
  | { kind: 'timeoutWithChallenge'; path: ProblemPath; action: string };

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
  if (overrides.action !== undefined && !isOverrideAction(overrides.action)) {
    problems.push({ kind: 'overrideAction', path: [...at, 'action'], action: overrides.action, allowed });
  }
  (overrides.rules ?? []).forEach((rule, k) => {
    const field = [...at, 'rules', k];
    problems.push(...managedRuleIdProblems([...field, 'id'], rule.id));
    if (rule.action !== undefined && !isOverrideAction(rule.action)) {
      problems.push({ kind: 'overrideAction', path: [...field, 'action'], action: rule.action, allowed });
    }
    if (rule.action === undefined && rule.enabled === undefined && rule.score_threshold === undefined) {
      problems.push({ kind: 'overrideSetsNothing', path: field, fields: ['action', 'enabled', 'score_threshold'] });
    }
  });
  problems.push(...duplicateProblems((overrides.rules ?? []).map((r) => r.id), (k) => [...at, 'rules', k, 'id']));
  (overrides.categories ?? []).forEach((category, k) => {
    const field = [...at, 'categories', k];
    if (category.action !== undefined && !isOverrideAction(category.action)) {
      problems.push({ kind: 'overrideAction', path: [...field, 'action'], action: category.action, allowed });
    }
    if (category.action === undefined && category.enabled === undefined) {
      problems.push({ kind: 'overrideSetsNothing', path: field, fields: ['action', 'enabled'] });
    }
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
  if (parameters?.ruleset !== undefined && parameters.ruleset !== 'current') {
    problems.push({ kind: 'skipRuleset', path: [...at, 'ruleset'], value: parameters.ruleset });
  }
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
  const allowed = RulesetPhaseSchema.safeParse(phase).success ? PHASE_ACTIONS[phase as keyof typeof PHASE_ACTIONS] : MANAGED_PHASE_ACTIONS;
  if (!allowed.includes(rule.action)) return [{ kind: 'action', path: ['action'], action: rule.action, phase, allowed }];
  const at = ['action_parameters'];
  if (phase === MANAGED_PHASE) {
    return rule.action === 'execute' ? executeProblems(rule.action_parameters, at, phase) : skipProblems(rule.action_parameters, at, phase);
  }
  return rule.action === 'skip' ? customSkipProblems(rule.action_parameters, at, phase) : responseProblems(rule.action, rule.action_parameters, at);
}

/** What a custom rule's skip names: any of ruleset "current", phases, products, rules of managed rulesets. */
function customSkipProblems(parameters: ActionParameters | undefined, at: ProblemPath, phase: string): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const key of [...EXECUTE_ONLY, 'rulesets', 'response'] as const) {
    if (parameters?.[key] !== undefined) problems.push({ kind: 'parameterRefused', path: [...at, key], action: 'skip' });
  }
  const targets = (['ruleset', 'phases', 'products', 'rules'] as const).filter((key) => parameters?.[key] !== undefined);
  if (targets.length === 0 && problems.length === 0) return [{ kind: 'parameterRequired', path: at, action: 'skip', phase }];
  if (parameters?.ruleset !== undefined && parameters.ruleset !== 'current') {
    problems.push({ kind: 'skipRuleset', path: [...at, 'ruleset'], value: parameters.ruleset });
  }
  const lists = [
    ['phases', SKIPPABLE_PHASES],
    ['products', SKIPPABLE_PRODUCTS],
  ] as const;
  for (const [key, known] of lists) {
    const values = parameters?.[key];
    if (values?.length === 0) problems.push({ kind: 'emptyList', path: [...at, key] });
    (values ?? []).forEach((value, k) => {
      if (!(known as readonly string[]).includes(value)) problems.push({ kind: 'notOneOf', path: [...at, key, k], value, allowed: known });
    });
    problems.push(...duplicateProblems(values ?? [], (k) => [...at, key, k]));
  }
  problems.push(...skipListProblems({ rules: parameters?.rules }, at));
  return problems;
}

/** A terminating action's parameters: only block takes one, its own `response` (status 400-499, a content type). */
function responseProblems(action: string, parameters: ActionParameters | undefined, at: ProblemPath): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const [key, value] of Object.entries(parameters ?? {})) {
    if (value !== undefined && (key !== 'response' || action !== 'block')) problems.push({ kind: 'parameterRefused', path: [...at, key], action });
  }
  const response = action === 'block' ? parameters?.response : undefined;
  if (response === undefined) return problems;
  const field = [...at, 'response'];
  if (response.status_code === undefined) {
    problems.push({ kind: 'required', path: [...field, 'status_code'], what: 'the status code of the answer, 400 to 499' });
  } else if (!Number.isInteger(response.status_code) || response.status_code < 400 || response.status_code > 499) {
    problems.push({ kind: 'between', path: [...field, 'status_code'], min: 400, max: 499 });
  }
  if (response.content === undefined) problems.push({ kind: 'required', path: [...field, 'content'], what: 'the body of the answer' });
  if (response.content_type !== undefined && !(BLOCK_CONTENT_TYPES as readonly string[]).includes(response.content_type)) {
    problems.push({ kind: 'notOneOf', path: [...field, 'content_type'], value: response.content_type, allowed: BLOCK_CONTENT_TYPES });
  }
  return problems;
}

/** A rate limiting rule's `ratelimit`: required in its phase, refused elsewhere; its values from the service's lists. */
export function ratelimitProblems(rule: Pick<RulesetRule, 'action' | 'ratelimit'>, phase: string): RuleProblem[] {
  if (phase !== RATELIMIT_PHASE) return rule.ratelimit === undefined ? [] : [{ kind: 'notInPhase', path: ['ratelimit'], phase }];
  const limit: Ratelimit | undefined = rule.ratelimit;
  if (limit === undefined) return [{ kind: 'required', path: ['ratelimit'], what: 'characteristics, period, requests_per_period and mitigation_timeout' }];
  const problems: RuleProblem[] = [];
  const at = ['ratelimit'];
  if (limit.characteristics.length === 0) problems.push({ kind: 'emptyList', path: [...at, 'characteristics'] });
  else if (!limit.characteristics.includes(RATELIMIT_REQUIRED_CHARACTERISTIC)) {
    problems.push({ kind: 'mustInclude', path: [...at, 'characteristics'], value: RATELIMIT_REQUIRED_CHARACTERISTIC });
  }
  problems.push(...duplicateProblems(limit.characteristics, (k) => [...at, 'characteristics', k]));
  if (!(RATELIMIT_PERIODS as readonly number[]).includes(limit.period)) {
    problems.push({ kind: 'notOneOf', path: [...at, 'period'], value: String(limit.period), allowed: RATELIMIT_PERIODS });
  }
  if (limit.requests_per_period === undefined) {
    problems.push({ kind: 'required', path: [...at, 'requests_per_period'], what: 'how many requests a period allows' });
  } else if (!Number.isInteger(limit.requests_per_period) || limit.requests_per_period < 1) {
    problems.push({ kind: 'atLeast', path: [...at, 'requests_per_period'], min: 1 });
  }
  const timeout = limit.mitigation_timeout;
  if (timeout === undefined) {
    problems.push({ kind: 'required', path: [...at, 'mitigation_timeout'], what: 'how long the action lasts, in seconds (0 for a challenge)' });
  } else if (!(RATELIMIT_TIMEOUTS as readonly number[]).includes(timeout)) {
    problems.push({ kind: 'notOneOf', path: [...at, 'mitigation_timeout'], value: String(timeout), allowed: RATELIMIT_TIMEOUTS });
  } else if (timeout !== 0 && CHALLENGES.includes(rule.action)) {
    problems.push({ kind: 'timeoutWithChallenge', path: [...at, 'mitigation_timeout'], action: rule.action });
  }
  return problems;
}

/** The actions that challenge the visitor: their rate limit lasts until the challenge is passed (mitigation_timeout 0). */
const CHALLENGES: readonly string[] = ['challenge', 'js_challenge', 'managed_challenge'];

/** The caller's expression check: the first problem, or undefined. `responseFields`: whether http.response.* may be used. */
export type ExpressionCheck = (text: string, options: { responseFields: boolean }) => string | undefined;

/**
 * Everything wrong with one rule in `phase`, paths from the rule: its action and parameters, its rate limit, its
 * expression (request fields only) and its counting expression (response fields too).
 */
export function ruleProblems(rule: RulesetRule, phase: string, expressionProblem: ExpressionCheck): RuleProblem[] {
  const problems = [...ruleActionProblems(rule, phase), ...ratelimitProblems(rule, phase)];
  // The managed phase's expressions keep the checker's whole field table, as they always had.
  const expression = expressionProblem(rule.expression, { responseFields: phase === MANAGED_PHASE });
  if (expression !== undefined) problems.push({ kind: 'expression', path: ['expression'], problem: expression });
  const counting = rule.ratelimit?.counting_expression;
  const countingProblem =
    phase === RATELIMIT_PHASE && counting !== undefined && counting !== '' ? expressionProblem(counting, { responseFields: true }) : undefined;
  if (countingProblem !== undefined) problems.push({ kind: 'expression', path: ['ratelimit', 'counting_expression'], problem: countingProblem });
  return problems;
}

/** A problem of one rule as a problem of the ruleset: its paths (the repeat's first one too) under `at`. */
export function within(at: ProblemPath, problem: RuleProblem): RuleProblem {
  return problem.kind === 'duplicate'
    ? { ...problem, path: [...at, ...problem.path], first: [...at, ...problem.first] }
    : { ...problem, path: [...at, ...problem.path] };
}

/** Options of rulesetProblems: the ids of the saved rules, and the caller's expression check. */
export interface RulesetCheck {
  /** Ids of the rules of the saved version: an id sent must be one of them (the service assigns ids). */
  knownIds: ReadonlySet<string>;
  expressionProblem: ExpressionCheck;
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
    problems.push(...ruleProblems(rule, phase, expressionProblem).map((problem) => within(at, problem)));
  });
  problems.push(...duplicateProblems(rules.map((rule) => rule.id), (index) => ['rules', index, 'id']));
  problems.push(...duplicateProblems(rules.map((rule) => rule.ref), (index) => ['rules', index, 'ref']));
  return problems;
}

/** The quota of rules of `phase` on `plan`, or undefined when the phase has none. */
export function phaseQuota(phase: string, plan: string): number | undefined {
  return PHASE_RULE_QUOTAS[phase]?.[plan];
}
