// How the public service ran the legacy firewall rules, and how it converted them into custom rules of the zone's
// http_request_firewall_custom entry point (docs/service.md#firewall-legacy). One definition of each fact, for
// the emulator's conversion, the evaluators (evaluate.ts) and the firewall upgrade plan. Pure.
import type { FirewallRuleWire, RulesetRule } from '../schemas';

/**
 * Action precedence at equal priority, and among rules without one: lowest first (docs/service.md#legacy-order,
 * cloudflare-docs firewall "Actions" page). JS Challenge and Managed Challenge share 5 on that page.
 */
export const LEGACY_PRECEDENCE: Readonly<Record<string, number>> = {
  log: 1,
  bypass: 2,
  allow: 3,
  challenge: 4,
  js_challenge: 5,
  managed_challenge: 5,
  block: 6,
};

/** The legacy actions that do not end the evaluation (cloudflare-docs PR #2336): the next matching rule runs too. */
export const LEGACY_NON_TERMINATING: ReadonlySet<string> = new Set(['log', 'bypass']);

/**
 * The legacy rules in the order the service evaluated them (docs/service.md#legacy-order): by priority, lowest first,
 * rules without one last; at equal or no priority by action precedence; then (the public facts are silent) in the
 * order the API lists them. Paused rules keep their place: the conversion keeps them, disabled.
 */
export function legacyOrder<R extends Pick<FirewallRuleWire, 'priority' | 'action'>>(rules: readonly R[]): R[] {
  const precedence = (rule: R) => LEGACY_PRECEDENCE[rule.action] ?? Number.MAX_SAFE_INTEGER;
  return rules
    .map((rule, listed) => ({ rule, listed }))
    .sort((a, b) => {
      const pa = a.rule.priority ?? Number.POSITIVE_INFINITY;
      const pb = b.rule.priority ?? Number.POSITIVE_INFINITY;
      if (pa !== pb) return pa < pb ? -1 : 1;
      return precedence(a.rule) - precedence(b.rule) || a.listed - b.listed;
    })
    .map(({ rule }) => rule);
}

/**
 * Whether a legacy rule ran: neither it nor its filter paused. A paused filter stopping its rules is this project's
 * reading (docs/service.md#legacy-paused): the public facts only say the conversion enabled such rules.
 */
export function legacyRuleRuns(rule: { readonly paused: boolean; readonly filter: { readonly paused?: boolean } }): boolean {
  return !rule.paused && rule.filter.paused !== true;
}

/** What a converted rule's skip skips: allow the rest of the rules, bypass its products (docs/service.md#legacy-conversion). */
export function convertedAction(rule: Pick<FirewallRuleWire, 'action' | 'products'>): Pick<RulesetRule, 'action' | 'action_parameters'> {
  if (rule.action === 'allow') return { action: 'skip', action_parameters: { ruleset: 'current' } };
  if (rule.action === 'bypass') return { action: 'skip', action_parameters: { products: [...(rule.products ?? [])] } };
  return { action: rule.action };
}

/**
 * The custom rule the service makes of a legacy rule (docs/service.md#legacy-conversion): its filter's expression,
 * its action mapped, its description and ref, enabled unless the rule itself is paused (a rule on a paused filter
 * becomes enabled). The id is left out: the service assigns a new one.
 */
export function convertedRule(rule: FirewallRuleWire): RulesetRule {
  return {
    ...convertedAction(rule),
    expression: rule.filter.expression,
    description: rule.description ?? '',
    ...(rule.ref !== undefined && rule.ref !== '' ? { ref: rule.ref } : {}),
    enabled: !rule.paused,
  };
}

/** A zone's legacy rules as the custom rules the conversion makes, in the order the legacy evaluation gave. */
export function convertFirewallRules(rules: readonly FirewallRuleWire[]): RulesetRule[] {
  return legacyOrder(rules).map(convertedRule);
}
