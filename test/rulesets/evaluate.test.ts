import { compileExpression, type TestRequest } from '../../src/expression/evaluate';
import { convertFirewallRules, evaluatePhase, legacyEvaluator, legacyOrder, sameOutcome, type RunnableLegacyRule, type RunnableRule, type Verdict } from '../../src/rulesets';
import type { FirewallRuleWire } from '../../src/schemas';

// Each row cites its fact in docs/service.md#firewall-legacy (L: how legacy rules ran; C: how they were converted;
// R: how custom rules run), where the public source of each is named.

const test_ = (text: string) => {
  const compiled = compileExpression(text);
  if (!compiled.ok) throw new Error(compiled.problem);
  return compiled.expression.test;
};

type Legacy = { key: string; action: string; expression?: string; priority?: number | null; paused?: boolean; filterPaused?: boolean; products?: string[] };
const legacy = (rules: Legacy[]): RunnableLegacyRule[] =>
  rules.map((rule) => ({
    key: rule.key,
    action: rule.action,
    paused: rule.paused ?? false,
    filter: { paused: rule.filterPaused ?? false },
    priority: rule.priority ?? null,
    ...(rule.products ? { products: rule.products } : {}),
    matches: test_(rule.expression ?? 'true'),
  }));

const HIT: TestRequest = { 'ip.src': '198.51.100.7' };

describe.each<[string, Legacy[], Partial<Verdict>]>([
  ['L1: the lower priority runs first', [{ key: 'b', action: 'block', priority: 2 }, { key: 'a', action: 'allow', priority: 1 }], { decision: 'pass', by: 'a' }],
  ['L1: a block at a lower priority wins over an allow at a higher one', [{ key: 'b', action: 'block', priority: 1 }, { key: 'a', action: 'allow', priority: 2 }], { decision: 'block', by: 'b' }],
  ['L2: a rule with a priority runs before one without', [{ key: 'a', action: 'allow' }, { key: 'b', action: 'block', priority: 100 }], { decision: 'block', by: 'b' }],
  ['L3: at equal priority allow (3) wins over block (6)', [{ key: 'b', action: 'block', priority: 2 }, { key: 'a', action: 'allow', priority: 2 }], { decision: 'pass', by: 'a' }],
  ['L3: without priorities challenge (4) before block (6)', [{ key: 'b', action: 'block' }, { key: 'c', action: 'challenge' }], { decision: 'challenge', by: 'c' }],
  ['L4: log does not end the evaluation', [{ key: 'l', action: 'log' }, { key: 'b', action: 'block' }], { decision: 'block', by: 'b', logged: ['l'] }],
  ['L4: bypass does not end the evaluation, and its products are skipped', [{ key: 'y', action: 'bypass', products: ['waf'] }, { key: 'b', action: 'block' }], { decision: 'block', skipped: ['product:waf'] }],
  ['L5: allow ends the evaluation: a later log does not record', [{ key: 'a', action: 'allow', priority: 1 }, { key: 'l', action: 'log', priority: 2 }], { decision: 'pass', by: 'a', logged: [] }],
  ['L6: bypass alone lets the request pass, its products skipped', [{ key: 'y', action: 'bypass', products: ['rateLimit', 'bic'] }], { decision: 'pass', skipped: ['product:bic', 'product:rateLimit'] }],
  ['L7: a challenge ends the evaluation', [{ key: 'j', action: 'js_challenge', priority: 1 }, { key: 'b', action: 'block', priority: 2 }], { decision: 'js_challenge', by: 'j' }],
  ['L8: a paused rule does not run', [{ key: 'b', action: 'block', paused: true }], { decision: 'pass', by: undefined }],
  ['legacy-paused: a rule on a paused filter does not run', [{ key: 'b', action: 'block', filterPaused: true }], { decision: 'pass', by: undefined }],
  ['a rule whose expression does not match does not run', [{ key: 'b', action: 'block', expression: 'ip.src eq 192.0.2.1' }], { decision: 'pass', by: undefined }],
])('legacy: %s', (_name, rules, expected) => {
  test('verdict', () => {
    expect({ by: undefined, ...legacyEvaluator(legacy(rules))(HIT) }).toMatchObject(expected);
  });
});

type Custom = { key: string; action: string; enabled?: boolean; parameters?: RunnableRule['action_parameters']; expression?: string };
const custom = (rules: Custom[]): RunnableRule[] =>
  rules.map((rule) => ({ key: rule.key, action: rule.action, enabled: rule.enabled ?? true, ...(rule.parameters ? { action_parameters: rule.parameters } : {}), matches: test_(rule.expression ?? 'true') }));

describe.each<[string, Custom[], Partial<Verdict>]>([
  ['R1: strictly in list order: a block before a skip blocks', [{ key: 'b', action: 'block' }, { key: 's', action: 'skip', parameters: { ruleset: 'current' } }], { decision: 'block', by: 'b' }],
  ['R1: a disabled rule does not run', [{ key: 'b', action: 'block', enabled: false }], { decision: 'pass', by: undefined }],
  ['R2: a managed challenge stops the evaluation', [{ key: 'm', action: 'managed_challenge' }, { key: 'b', action: 'block' }], { decision: 'managed_challenge', by: 'm' }],
  ['R3: log goes on', [{ key: 'l', action: 'log' }, { key: 'c', action: 'challenge' }], { decision: 'challenge', logged: ['l'] }],
  ['R3: a skip of ruleset current ends this ruleset, the request passing', [{ key: 's', action: 'skip', parameters: { ruleset: 'current' } }, { key: 'b', action: 'block' }], { decision: 'pass', by: 's' }],
  ['R3: a skip of products goes on', [{ key: 's', action: 'skip', parameters: { products: ['waf'] } }, { key: 'b', action: 'block' }], { decision: 'block', skipped: ['product:waf'] }],
  ['R3: a skip of phases goes on', [{ key: 's', action: 'skip', parameters: { phases: ['http_ratelimit'] } }], { decision: 'pass', skipped: ['phase:http_ratelimit'] }],
])('custom phase: %s', (_name, rules, expected) => {
  test('verdict', () => {
    expect({ by: undefined, ...evaluatePhase(custom(rules), HIT) }).toMatchObject(expected);
  });
});

describe('the conversion keeps the outcome (C3, C4) except where C5 enables a rule', () => {
  const wire = (id: string, fields: Partial<FirewallRuleWire> & { expression: string; filterPaused?: boolean }): FirewallRuleWire => {
    const { expression, filterPaused, ...rest } = fields;
    return { id, paused: false, action: 'block', filter: { id: `f${id}`, expression, paused: filterPaused ?? false }, ...rest };
  };
  const rules = [
    wire('1', { action: 'block', expression: 'ip.src in {198.51.100.0/24}' }),
    wire('2', { action: 'allow', expression: 'ip.src eq 198.51.100.7', priority: null }),
    wire('3', { action: 'bypass', products: ['waf'], expression: 'http.user_agent contains "bot"', priority: 3 }),
    wire('4', { action: 'log', expression: 'true', priority: 3 }),
    wire('5', { action: 'challenge', expression: 'http.request.uri.path eq "/old"', filterPaused: true, priority: 1 }),
  ];
  const asLegacy = legacyEvaluator(rules.map((rule) => ({ ...rule, key: rule.id, matches: test_(rule.filter.expression) })));
  const converted = convertFirewallRules(rules);
  const keys = legacyOrder(rules).map((rule) => rule.id);
  const asCustom = (request: TestRequest) =>
    evaluatePhase(
      converted.map((rule, i) => ({ key: keys[i] ?? '', action: rule.action, enabled: rule.enabled ?? true, ...(rule.action_parameters ? { action_parameters: rule.action_parameters } : {}), matches: test_(rule.expression) })),
      request,
    );

  test.each<[string, TestRequest]>([
    ['allowed address', { 'ip.src': '198.51.100.7' }],
    ['blocked range', { 'ip.src': '198.51.100.8' }],
    ['bot outside the range', { 'ip.src': '192.0.2.1', 'http.user_agent': 'a bot' }],
    ['bot in the range', { 'ip.src': '198.51.100.9', 'http.user_agent': 'a bot' }],
  ])('%s: same outcome', (_name, request) => {
    expect(sameOutcome(asLegacy(request), asCustom(request))).toBe(true);
  });

  test('the rule on a paused filter now runs (C5): the one difference', () => {
    const request = { 'ip.src': '192.0.2.1', 'http.request.uri.path': '/old' };
    expect([asLegacy(request).decision, asCustom(request).decision]).toEqual(['pass', 'challenge']);
  });
});
