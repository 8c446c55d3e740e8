import { parseExpression } from '../../src/expression';
import { matches } from '../../src/expression/evaluate';
import { checkEquivalence, describeRequest, describeVerdict, equivalenceLine, requestsOf, zoneEvaluator, type KeyedCustomRule } from '../../src/firewall-upgrade/equivalence';
import { probesOf, requestsFor } from '../../src/firewall-upgrade/requests';
import { convertFirewallRules, legacyOrder } from '../../src/rulesets';
import type { FirewallRuleWire, RulesetRule } from '../../src/schemas';

const rule = (id: string, expression: string, fields: Partial<FirewallRuleWire> & { filterPaused?: boolean } = {}): FirewallRuleWire => {
  const { filterPaused, ...rest } = fields;
  return { id, paused: false, action: 'block', filter: { id: `f-${id}`, expression, paused: filterPaused ?? false }, ...rest };
};

/** The conversion as the service made it, each custom rule keyed by the legacy rule it came from. */
const converted = (legacy: FirewallRuleWire[]): KeyedCustomRule[] => {
  const order = legacyOrder(legacy);
  return convertFirewallRules(legacy).map((custom, i) => ({ key: order[i]?.id ?? '', rule: custom }));
};

const OFFICE = 'ip.src in {198.51.100.0/24}';
const legacy = [
  rule('block-range', 'ip.src in {203.0.113.0/24} or http.request.uri.path eq "/wp-login.php"'),
  rule('allow-office', OFFICE, { action: 'allow' }),
  rule('log-office', OFFICE, { action: 'log' }),
  rule('bypass-bots', 'http.user_agent contains "Googlebot"', { action: 'bypass', products: ['waf', 'securityLevel'], priority: 100 }),
  rule('challenge-admin', 'starts_with(http.request.uri.path, "/admin") and not ip.src in {198.51.100.0/24}', { action: 'managed_challenge', priority: 50 }),
  rule('header', 'http.request.headers["x-debug"][0] eq "1"', { action: 'js_challenge', priority: 50 }),
  rule('old-path', 'http.host eq "old.example.com"', { action: 'challenge', priority: 10, filterPaused: true }),
  rule('paused', 'ip.src.country eq "ZZ"', { paused: true }),
];

describe('requests built from the rules own values', () => {
  test('each address, path, host and header value and its neighbours', () => {
    const probes = legacy.map((r) => {
      const parsed = parseExpression(r.filter.expression);
      return parsed.ok ? probesOf(parsed.ast) : [];
    });
    const lines = requestsFor(probes).map(describeRequest);
    for (const expected of [
      'ip.src="203.0.113.0"',
      'ip.src="203.0.112.255"',
      'ip.src="203.0.113.255"',
      'ip.src="203.0.114.0"',
      'http.request.uri.path="/wp-login.php-"',
      'http.request.headers["x-debug"]="1"',
      'http.host="OLD.EXAMPLE.COM"',
      'http.request.uri.path="/adminx"',
    ]) {
      expect(lines.filter((line) => line.includes(expected)).length).toBeGreaterThan(0);
    }
    expect(lines[0]).toBe('(nothing set)');
    expect(new Set(lines).size).toBe(lines.length);
  });

  test('a witness request meets its rule', () => {
    for (const r of legacy) {
      const parsed = parseExpression(r.filter.expression);
      if (!parsed.ok) throw new Error(r.id);
      const [, own] = requestsFor([probesOf(parsed.ast)]);
      expect([r.id, matches(r.filter.expression, own ?? {})]).toEqual([r.id, true]);
    }
  });
});

describe('checkEquivalence', () => {
  test('the service conversion differs exactly where a rule on a paused filter starts running (docs/service.md#legacy-paused)', () => {
    const result = checkEquivalence(legacy, converted(legacy));
    expect(result.unevaluated).toEqual([]);
    expect(result.unreached).toEqual([]);
    expect(result.differences.length).toBeGreaterThan(0);
    for (const difference of result.differences) {
      expect(describeRequest(difference.request)).toContain('http.host="old.example.com"');
      expect([difference.before.decision === 'challenge', difference.after]).toEqual([false, expect.objectContaining({ decision: 'challenge', by: 'old-path' })]);
    }
    expect(equivalenceLine(result)).toBe(`${result.differences.length} of ${result.tried} requests tried differ`);
  });

  test('without the paused filter, the conversion is equivalent on every request tried', () => {
    const unpaused = legacy.filter((r) => r.id !== 'old-path');
    const result = checkEquivalence(unpaused, converted(unpaused));
    expect(result.equivalent).toBe(true);
    expect(equivalenceLine(result)).toMatch(/^equivalent on every request tried \(\d+ requests\)$/);
  });

  test('a list in the wrong order is caught, with both outcomes', () => {
    const two = [rule('allow-office', OFFICE, { action: 'allow', priority: 1 }), rule('block-all', 'http.request.uri.path contains "/"', { priority: 2 })];
    const reversed = converted(two).reverse();
    const result = checkEquivalence(two, reversed);
    const inOffice = result.differences.find((d) => describeRequest(d.request).includes('ip.src="198.51.100.0"') && describeRequest(d.request).includes('http.request.uri.path'));
    expect(inOffice && [describeVerdict(inOffice.before), describeVerdict(inOffice.after)]).toEqual(['pass (allowed by allow-office)', 'block by block-all']);
  });

  test('bypass products that vanish are a difference; a rule that cannot be evaluated leaves the zone undecided', () => {
    const bypass = [rule('bypass', 'http.host eq "a.example"', { action: 'bypass', products: ['waf'] })];
    const withoutProducts: KeyedCustomRule[] = [{ key: 'bypass', rule: { action: 'skip', expression: 'http.host eq "a.example"', action_parameters: { products: ['bic'] } } as RulesetRule }];
    const [difference] = checkEquivalence(bypass, withoutProducts).differences;
    expect(difference && [describeVerdict(difference.before), describeVerdict(difference.after)]).toEqual(['pass; skips product:waf', 'pass; skips product:bic']);

    const listed = [rule('listed', 'ip.src in $office')];
    const result = checkEquivalence(listed, converted(listed));
    expect(result.equivalent).toBe(false);
    expect(equivalenceLine(result)).toBe('not decided: 1 rule(s) could not be evaluated (listed: named list $office cannot be evaluated offline: its items live in the account)');
  });
});

describe('checkEquivalence with the custom rules a zone already held (docs/service.md#zone-evaluation)', () => {
  test('they ran after the legacy rules and run before the conversions: a request both meet is decided otherwise', () => {
    const two = [rule('challenge-office', OFFICE, { action: 'challenge', priority: 1 })];
    const own: KeyedCustomRule = { key: 'own', rule: { id: 'own', action: 'block', expression: 'http.request.uri.path eq "/admin"' } as RulesetRule };
    const result = checkEquivalence(two, [own, ...converted(two)], [own]);
    const both = result.differences.find((d) => describeRequest(d.request).includes('/admin') && describeRequest(d.request).includes('198.51.100.'));
    expect(both && [describeVerdict(both.before), describeVerdict(both.after)]).toEqual(['challenge by challenge-office', 'block by own']);
    // Without them, the conversion alone is equivalent.
    expect(checkEquivalence(two, converted(two)).equivalent).toBe(true);
  });
});

describe('zoneEvaluator: a zone with legacy firewall rules and custom rules (docs/service.md#zone-evaluation)', () => {
  const custom = (key: string, expression: string, action: string, parameters?: RulesetRule['action_parameters']): KeyedCustomRule => ({
    key,
    rule: { action, expression, ...(parameters ? { action_parameters: parameters } : {}) } as RulesetRule,
  });
  const zone = {
    legacy: [
      rule('block-range', 'ip.src in {203.0.113.0/24}', { priority: 1 }),
      rule('allow-office', OFFICE, { action: 'allow', priority: 2 }),
      rule('log-office', OFFICE, { action: 'log', priority: 2 }),
      rule('bypass-bots', 'http.user_agent contains "bot"', { action: 'bypass', products: ['waf'], priority: 3 }),
    ],
    custom: [custom('c-log', 'http.host eq "a.example"', 'log'), custom('c-block', 'http.host eq "a.example"', 'block'), custom('c-challenge', 'http.user_agent contains "bot"', 'managed_challenge')],
  };
  test.each([
    // Z1: the firewall rules run first, and a block or challenge of theirs ends the request before any custom rule.
    ['a legacy block ends the request', true, { 'ip.src': '203.0.113.7', 'http.host': 'a.example' }, 'block by block-range'],
    // Z2: allow ends the firewall rules only (L5): the custom rules run after it.
    ['a legacy allow, then the custom rules', true, { 'ip.src': '198.51.100.7', 'http.host': 'a.example' }, 'block by c-block; logged by c-log, log-office'],
    ['a legacy bypass skips its products, and the custom rules run on', true, { 'http.user_agent': 'a bot', 'http.host': 'b.example' }, 'managed_challenge by c-challenge; skips product:waf'],
    // Z3: once converted, the legacy rules no longer run; the custom rules decide alone.
    ['converted: the legacy rules no longer run', false, { 'ip.src': '203.0.113.7', 'http.host': 'a.example' }, 'block by c-block; logged by c-log'],
    ['nothing matches: pass', true, { 'ip.src': '192.0.2.1', 'http.host': 'b.example' }, 'pass'],
  ])('%s', (_case, legacyRuns, request, outcome) => {
    expect(describeVerdict(zoneEvaluator({ legacyRuns, ...zone })(request))).toBe(outcome);
  });

  test('the requests of a set of expressions are those the equivalence check tries', () => {
    const expressions = zone.legacy.map((r) => r.filter.expression);
    const probes = expressions.map((text) => {
      const parsed = parseExpression(text);
      return parsed.ok ? probesOf(parsed.ast) : [];
    });
    expect(requestsOf(expressions)).toEqual(requestsFor(probes));
  });
});
