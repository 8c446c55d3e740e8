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

/** Runs the legacy rules and the custom rules over the requests their values give, and compares the outcomes. */
export function checkEquivalence(legacy: readonly FirewallRuleWire[], custom: readonly KeyedCustomRule[]): Equivalence {
  const unevaluated = new Map<string, string>();
  const legacyCompiled = legacy.map((rule) => compile(rule.id, rule.filter.expression, unevaluated));
  const legacyRules: RunnableLegacyRule[] = legacy.map((rule, i) => ({ ...rule, key: rule.id, matches: (legacyCompiled[i] as Compiled).matches }));
  const customCompiled = custom.map(({ key, rule }) => compile(key, rule.expression, unevaluated));
  const customRules: RunnableRule[] = custom.map(({ key, rule }, i) => ({
    key,
    action: rule.action,
    enabled: rule.enabled ?? true,
    ...(rule.action_parameters ? { action_parameters: rule.action_parameters } : {}),
    matches: (customCompiled[i] as Compiled).matches,
  }));
  const requests = requestsFor([...legacyCompiled, ...customCompiled].map((c) => c.probes));
  const before = legacyEvaluator(legacyRules);
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
