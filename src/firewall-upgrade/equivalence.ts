// The equivalence check of a zone's legacy firewall rules and the custom rules that replace them: both evaluated
// (src/rulesets/evaluate.ts) over the requests built from their own values (requests.ts), and every request whose
// outcome differs named with both outcomes (docs/firewall-and-migration.md#equivalence). Pure.
import { compileExpression, EvaluationError, type TestRequest } from '../expression/evaluate';
import { evaluatePhase, legacyEvaluator, legacyRuleRuns, sameOutcome, type RunnableLegacyRule, type RunnableRule, type Verdict } from '../rulesets';
import type { FirewallRuleWire, RulesetRule } from '../schemas';
import { probesOf, requestsFor, type Probe } from './requests';

/** A custom rule with the key it shows under in verdicts (its legacy rule's id when it is one's conversion). */
export interface KeyedCustomRule {
  readonly key: string;
  readonly rule: RulesetRule;
}

/** A request whose outcome differs: what the legacy rules did with it, and what the custom rules do. */
export interface Difference {
  readonly request: TestRequest;
  readonly before: Verdict;
  readonly after: Verdict;
}

/** The check's answer. `equivalent` only when every rule could be evaluated and no request differs. */
export interface Equivalence {
  readonly equivalent: boolean;
  /** How many requests were tried. */
  readonly tried: number;
  readonly differences: readonly Difference[];
  /** Rules whose expression could not be evaluated (a named list, a JWT check, a refused expression), by key. */
  readonly unevaluated: readonly { readonly key: string; readonly reason: string }[];
  /** Legacy rules that run but that no request tried matched: the check says nothing of them. */
  readonly unreached: readonly string[];
}

interface Compiled {
  readonly matches: (request: TestRequest) => boolean;
  readonly probes: readonly Probe[];
  readonly reached: { value: boolean };
}

/** Compiles an expression into a matcher that records a rule it cannot evaluate instead of throwing. */
function compile(key: string, text: string, unevaluated: Map<string, string>): Compiled {
  const compiled = compileExpression(text);
  const reached = { value: false };
  if (!compiled.ok) {
    unevaluated.set(key, `its expression is refused: ${compiled.problem}`);
    return { matches: () => false, probes: [], reached };
  }
  const { test, ast } = compiled.expression;
  const matches = (request: TestRequest) => {
    try {
      const hit = test(request);
      if (hit) reached.value = true;
      return hit;
    } catch (error) {
      if (!(error instanceof EvaluationError)) throw error;
      unevaluated.set(key, error.message);
      return false;
    }
  };
  return { matches, probes: probesOf(ast), reached };
}

/** Custom rules as the evaluator runs them, each matching with `matcher`. */
const runnable = (custom: readonly KeyedCustomRule[], matcher: (key: string, text: string) => (request: TestRequest) => boolean): RunnableRule[] =>
  custom.map(({ key, rule }) => ({
    key,
    action: rule.action,
    enabled: rule.enabled ?? true,
    ...(rule.action_parameters ? { action_parameters: rule.action_parameters } : {}),
    matches: matcher(key, rule.expression),
  }));

/**
 * What a zone decides (docs/service.md#zone-evaluation): the legacy rules' verdict, then, unless they end the request
 * with block or a challenge, the custom rules' in order; what both skip and log together. Pure.
 */
function legacyThen(legacy: (request: TestRequest) => Verdict, custom: readonly RunnableRule[]): (request: TestRequest) => Verdict {
  return (request) => {
    const first = legacy(request);
    if (first.decision !== 'pass') return first;
    const then = evaluatePhase(custom, request);
    const by = then.by ?? first.by;
    return {
      decision: then.decision,
      ...(by === undefined ? {} : { by }),
      skipped: [...new Set([...first.skipped, ...then.skipped])].sort(),
      logged: [...new Set([...first.logged, ...then.logged])].sort(),
    };
  };
}

/**
 * Runs the zone before (its legacy rules, then `alongside`: the custom rules it already held, which ran after them)
 * and after (`custom`, the whole phase as it will be) over the requests their values give, and compares the outcomes.
 */
export function checkEquivalence(
  legacy: readonly FirewallRuleWire[],
  custom: readonly KeyedCustomRule[],
  alongside: readonly KeyedCustomRule[] = [],
): Equivalence {
  const unevaluated = new Map<string, string>();
  const legacyCompiled = legacy.map((rule) => compile(rule.id, rule.filter.expression, unevaluated));
  const legacyRules: RunnableLegacyRule[] = legacy.map((rule, i) => ({ ...rule, key: rule.id, matches: (legacyCompiled[i] as Compiled).matches }));
  const compiled = new Map<string, Compiled>();
  const matcher = (key: string, text: string) => {
    const made = compile(key, text, unevaluated);
    compiled.set(key, made);
    return made.matches;
  };
  const customRules = runnable(custom, matcher);
  const requests = requestsFor([...legacyCompiled, ...compiled.values()].map((c) => c.probes));
  const before = legacyThen(legacyEvaluator(legacyRules), runnable(alongside, matcher));
  const differences: Difference[] = [];
  for (const request of requests) {
    const old = before(request);
    const now = evaluatePhase(customRules, request);
    if (!sameOutcome(old, now)) differences.push({ request, before: old, after: now });
  }
  const unreached = legacy
    .filter((rule, i) => legacyRuleRuns(rule) && !unevaluated.has(rule.id) && !(legacyCompiled[i] as Compiled).reached.value)
    .map((rule) => rule.id);
  const notEvaluated = [...unevaluated].map(([key, reason]) => ({ key, reason }));
  return { equivalent: differences.length === 0 && notEvaluated.length === 0, tried: requests.length, differences, unevaluated: notEvaluated, unreached };
}

/** A zone's rules at one moment (the emulator's zone history, docs/emulator.md#zone-history), custom rules keyed. */
export interface ZoneRules {
  /** Whether its legacy firewall rules run: while the legacy API is available; once converted, the custom rules replace them. */
  readonly legacyRuns: boolean;
  readonly legacy: readonly FirewallRuleWire[];
  readonly custom: readonly KeyedCustomRule[];
}

/** A matcher that throws, naming the rule, where the expression cannot be evaluated offline. */
function strictMatcher(key: string, text: string): (request: TestRequest) => boolean {
  const compiled = compileExpression(text);
  if (!compiled.ok) throw new Error(`rule ${key}: its expression cannot be evaluated: ${compiled.problem}`);
  return compiled.expression.test;
}

/** What a zone decides for each request (docs/service.md#zone-evaluation): its legacy rules while they run, then its custom rules. Pure. */
export function zoneEvaluator(zone: ZoneRules): (request: TestRequest) => Verdict {
  const legacy = legacyEvaluator(
    zone.legacyRuns ? zone.legacy.map((rule) => ({ ...rule, key: rule.id, matches: strictMatcher(rule.id, rule.filter.expression) })) : [],
  );
  return legacyThen(legacy, runnable(zone.custom, strictMatcher));
}

/** The requests the equivalence check would try for rules of these expressions (requests.ts). Pure. */
export function requestsOf(expressions: readonly string[]): TestRequest[] {
  return requestsFor(expressions.flatMap((text) => {
    const compiled = compileExpression(text);
    return compiled.ok ? [probesOf(compiled.expression.ast)] : [];
  }));
}

/** A request in one line: the fields it sets (`ip.src=198.51.100.7 http.request.headers[x-api-key]=k1`), or `(nothing set)`. */
export function describeRequest(request: TestRequest): string {
  const parts = Object.entries(request).flatMap(([field, value]) => {
    if (typeof value === 'object' && !Array.isArray(value)) {
      const byKey = Object.entries(value as Record<string, readonly string[]>);
      return byKey.map(([key, values]) => `${field}[${JSON.stringify(key)}]=${JSON.stringify(values[0] ?? '')}`);
    }
    return [`${field}=${JSON.stringify(Array.isArray(value) ? value[0] : value)}`];
  });
  return parts.length === 0 ? '(nothing set)' : parts.join(' ');
}

/** An outcome in words: `block by <key>`, `pass (allowed by <key>)`, with what was skipped and logged. */
export function describeVerdict(verdict: Verdict): string {
  const head =
    verdict.decision === 'pass' ? (verdict.by === undefined ? 'pass' : `pass (allowed by ${verdict.by})`) : `${verdict.decision} by ${verdict.by ?? '?'}`;
  const skipped = verdict.skipped.length > 0 ? `; skips ${verdict.skipped.join(', ')}` : '';
  const logged = verdict.logged.length > 0 ? `; logged by ${verdict.logged.join(', ')}` : '';
  return `${head}${skipped}${logged}`;
}

/** The verdict per zone in one line: equivalent on every request tried, or how many differ, or why it is undecided. */
export function equivalenceLine(result: Equivalence): string {
  if (result.unevaluated.length > 0) {
    return `not decided: ${result.unevaluated.length} rule(s) could not be evaluated (${result.unevaluated.map((u) => `${u.key}: ${u.reason}`).join('; ')})`;
  }
  if (result.differences.length === 0) return `equivalent on every request tried (${result.tried} request${result.tried === 1 ? '' : 's'})`;
  return `${result.differences.length} of ${result.tried} requests tried differ`;
}
