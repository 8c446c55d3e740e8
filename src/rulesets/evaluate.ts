// What a request meets in a zone: the custom rules of a phase run in list order, and the legacy firewall rules run
// by priority and action precedence. Both give a Verdict of the same shape, so the two can be compared request by
// request (the firewall upgrade's equivalence check). Pure; the rules' expressions come compiled
// (src/expression/evaluate.ts). Each rule of the semantics and its source: docs/service.md#legacy-order and
// #ruleset-evaluation.
import type { TestRequest } from '../expression/evaluate';
import type { ActionParameters } from '../schemas';
import { LEGACY_NON_TERMINATING, legacyOrder, legacyRuleRuns } from './firewall-conversion';

/** What happens to the request: one of the terminating actions, or it passes on (nothing matched, or allowed). */
export type Decision = 'block' | 'challenge' | 'js_challenge' | 'managed_challenge' | 'pass';

/** What the request met: the decision and the rule that took it, what was skipped for it, which log rules recorded it. */
export interface Verdict {
  readonly decision: Decision;
  /** The key of the rule that ended the evaluation (a terminating action, an allow or a skip of the ruleset), if any. */
  readonly by?: string;
  /** Products (`product:waf`), phases (`phase:http_ratelimit`) and managed rules (`rules:<ruleset>:<id>`) skipped, sorted. */
  readonly skipped: readonly string[];
  /** The keys of the log rules that matched before the evaluation ended, sorted. */
  readonly logged: readonly string[];
}

/** A rule with its expression compiled; `key` names it in a Verdict (the plan keys both sides alike). */
interface Keyed {
  readonly key: string;
  readonly matches: (request: TestRequest) => boolean;
}

/** A rule of a phase as the evaluator needs it. */
export interface RunnableRule extends Keyed {
  readonly action: string;
  readonly enabled: boolean;
  readonly action_parameters?: Pick<ActionParameters, 'ruleset' | 'phases' | 'products' | 'rules'>;
}

/** A legacy firewall rule as the evaluator needs it (its filter's expression compiled into `matches`). */
export interface RunnableLegacyRule extends Keyed {
  readonly action: string;
  readonly paused: boolean;
  readonly filter: { readonly paused?: boolean };
  readonly priority?: number | null;
  readonly products?: readonly string[];
}

const TERMINATING = new Set<string>(['block', 'challenge', 'js_challenge', 'managed_challenge']);

/** What a skip names, as Verdict.skipped entries. */
function skippedBy(parameters: RunnableRule['action_parameters']): string[] {
  return [
    ...(parameters?.phases ?? []).map((phase) => `phase:${phase}`),
    ...(parameters?.products ?? []).map((product) => `product:${product}`),
    ...Object.entries(parameters?.rules ?? {}).flatMap(([ruleset, ids]) => ids.map((id) => `rules:${ruleset}:${id}`)),
  ];
}

function verdict(decision: Decision, by: string | undefined, skipped: Set<string>, logged: Set<string>): Verdict {
  return { decision, ...(by === undefined ? {} : { by }), skipped: [...skipped].sort(), logged: [...logged].sort() };
}

/**
 * Runs a phase's rules over a request, strictly in list order (docs/service.md#ruleset-evaluation): disabled rules do
 * not run; block and the challenges end the evaluation; log records and goes on; skip adds what it skips and goes on,
 * and a skip of ruleset "current" ends this ruleset's evaluation with the request passing.
 */
export function evaluatePhase(rules: readonly RunnableRule[], request: TestRequest): Verdict {
  const skipped = new Set<string>();
  const logged = new Set<string>();
  for (const rule of rules) {
    if (!rule.enabled || !rule.matches(request)) continue;
    if (TERMINATING.has(rule.action)) return verdict(rule.action as Decision, rule.key, skipped, logged);
    if (rule.action === 'log') logged.add(rule.key);
    else if (rule.action === 'skip') {
      for (const item of skippedBy(rule.action_parameters)) skipped.add(item);
      if (rule.action_parameters?.ruleset === 'current') return verdict('pass', rule.key, skipped, logged);
    }
  }
  return verdict('pass', undefined, skipped, logged);
}

/**
 * An evaluator of a zone's legacy firewall rules (docs/service.md#legacy-order): the rules that run (neither paused
 * nor on a paused filter), ordered once by priority and action precedence; log records and goes on, bypass skips its
 * products and goes on, allow ends the evaluation with the request passing, block and the challenges end it.
 */
export function legacyEvaluator(rules: readonly RunnableLegacyRule[]): (request: TestRequest) => Verdict {
  const running = legacyOrder(rules.filter(legacyRuleRuns));
  return (request) => {
    const skipped = new Set<string>();
    const logged = new Set<string>();
    for (const rule of running) {
      if (!rule.matches(request)) continue;
      if (rule.action === 'log') logged.add(rule.key);
      else if (rule.action === 'bypass') for (const product of rule.products ?? []) skipped.add(`product:${product}`);
      if (LEGACY_NON_TERMINATING.has(rule.action)) continue;
      return verdict(rule.action === 'allow' ? 'pass' : (rule.action as Decision), rule.key, skipped, logged);
    }
    return verdict('pass', undefined, skipped, logged);
  };
}

/** Whether two verdicts are the same for the request: decision, what was skipped, what was logged (not which rule decided). */
export function sameOutcome(a: Verdict, b: Verdict): boolean {
  return a.decision === b.decision && a.skipped.join('\n') === b.skipped.join('\n') && a.logged.join('\n') === b.logged.join('\n');
}
