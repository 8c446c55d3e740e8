import { planFirewallRulesUpgrade } from '../../src';
import { planFromReads } from '../../src/firewall-upgrade';
import { emulatorForFile, testClient } from '../support/emulator';

const emulator = emulatorForFile({ seed: 'empty' });
const CUSTOM = 'http_request_firewall_custom';

/** A zone whose rules are made through the legacy API: a rule another owner marked, a shared filter, a paused filter, and a custom rule made by hand. */
async function zone(name: string, plan: 'free' | 'pro' = 'pro') {
  const { id } = await emulator().admin.seedZone({ name, plan, ruleQuota: 10 });
  const client = testClient(emulator());
  const [shared, paused] = await client.filters.create({ zoneId: id, filters: [{ expression: 'ip.src in {198.51.100.0/24}' }, { expression: 'http.host eq "old.example.com"', paused: true }] });
  await client.firewallRules.create({
    zoneId: id,
    rules: [
      { filter: { expression: 'http.request.uri.path eq "/wp-login.php"' }, action: 'block', description: 'wp', ref: 'wp zg:0123456789' },
      { filter: { id: shared!.id }, action: 'allow', priority: 1 },
      { filter: { id: shared!.id }, action: 'log', priority: 1 },
      { filter: { id: paused!.id }, action: 'challenge', priority: 2 },
    ],
  });
  await client.rulesets.updateEntrypoint({ zoneId: id, phase: CUSTOM, ruleset: { name: 'default', rules: [{ action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'by hand' }] } });
  return { id, client };
}

describe('planFirewallRulesUpgrade against the emulator', () => {
  test('available: each legacy rule, the custom rule it will be and where, who holds it, the differences; then the same rules found once converted', async () => {
    const { id, client } = await zone('plan.example');
    const plan = await planFirewallRulesUpgrade({ zoneId: id, client });
    expect([plan.legacyApi, plan.converted, plan.problems]).toEqual(['readable', false, []]);
    expect(plan.rules.map((rule) => [rule.action, rule.position, rule.customRule.action, rule.customRuleId, rule.holder])).toEqual([
      ['log', 2, 'log', null, 'nobody (made by hand, or before owner markers)'],
      ['allow', 3, 'skip', null, 'nobody (made by hand, or before owner markers)'],
      ['challenge', 4, 'challenge', null, 'nobody (made by hand, or before owner markers)'],
      ['block', 5, 'block', null, 'another owner (marker zg:0123456789)'],
    ]);
    expect(plan.otherCustomRules).toEqual([{ id: expect.any(String), description: 'by hand', holder: 'nobody (made by hand, or before owner markers)' }]);
    const challenge = plan.rules[2]!;
    expect(challenge.differences[0]).toBe('its filter is paused, so it did not run; converted, it is enabled and runs (docs/service.md#legacy-paused)');
    expect(challenge.differences[1]).toMatch(/^\d+ request\(s\) of those tried meet it differently, e\.g\. .*http\.host="old\.example\.com".*: before pass, after challenge by /);
    // The custom rule made by hand ran after the legacy rules and runs before their conversions: an office request to
    // /admin was logged by the legacy log rule, then blocked by it; now it is blocked before the log rule's conversion runs.
    const [log, hand] = [plan.rules[0]!, plan.otherCustomRules[0]!];
    expect(log.differences).toEqual([
      expect.stringMatching(new RegExp(`^1 request\\(s\\) of those tried meet it differently, e\\.g\\. http\\.request\\.uri\\.path="/admin" ip\\.src="198\\.51\\.100\\.\\d+".*: before block by ${hand.id}; logged by ${log.legacyRuleId}, after block by ${hand.id}$`)),
    ]);
    expect(plan.rules.filter((rule) => rule !== challenge && rule !== log).map((rule) => rule.differences)).toEqual([[], []]);
    expect(plan.equivalence?.verdict).toMatch(/^\d+ of \d+ requests tried differ$/);

    await emulator().admin.setLegacyFirewall(id, 'maintenance');
    const after = await planFirewallRulesUpgrade({ zoneId: id, client });
    const entrypoint = await client.rulesets.getEntrypoint({ zoneId: id, phase: CUSTOM });
    expect(after.converted).toBe(true);
    expect(after.rules.map((rule) => [rule.position, rule.customRuleId])).toEqual(plan.rules.map((rule) => [rule.position, entrypoint.rules[rule.position - 1]?.id]));
    expect(after.equivalence?.verdict).toBe(plan.equivalence?.verdict);

    await emulator().admin.setLegacyFirewall(id, 'retired');
    const retired = await planFirewallRulesUpgrade({ zoneId: id, client });
    expect([retired.legacyApi, retired.rules, retired.otherCustomRules.length]).toEqual(['retired', [], 5]);
  });

  test('bad input, one line each before any write: an expression the rulesets grammar refuses, a phase over its quota after the conversion', async () => {
    const { id, client } = await zone('crowded.example', 'free');
    await client.firewallRules.create({ zoneId: id, rules: [{ filter: { expression: 'http.response.code eq 403' }, action: 'log' }, { filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block' }] });
    const before = (await emulator().admin.inventory(id)).counts;
    const plan = await planFirewallRulesUpgrade({ zoneId: id, client });
    const [response] = plan.rules.filter((rule) => rule.expression === 'http.response.code eq 403');
    expect(plan.problems).toEqual([
      `firewall rule ${response?.legacyRuleId}: the rulesets grammar refuses its conversion (expression: line 1, column 1: http.response.code is a response field; a request phase's expression uses request fields (a rate limiting rule may count responses in its ratelimit.countingExpression)); change the rule while the legacy API is available, or declare it as a CustomRule of your own`,
      `zone ${id}: the service refuses the custom phase after the conversion (dry run): rules: the http_request_firewall_custom phase of zone ${id} (free plan) allows 5 rules; this write would leave 6; nothing was saved; the conversion fails while it does: remove or change rules until the dry run passes`,
    ]);
    expect((await emulator().admin.inventory(id)).counts).toEqual(before);
  });

  test('a token that cannot read one of the APIs: one line naming it', async () => {
    const { id } = await zone('unreadable.example');
    const other = await emulator().admin.seedZone({ name: 'other.example', plan: 'pro' });
    const client = testClient(emulator(), { credentials: { apiToken: other.token } });
    await expect(planFirewallRulesUpgrade({ zoneId: id, client })).rejects.toThrow(
      new RegExp(`^zone ${id}: the token cannot read its firewall rules \\(the legacy firewall rules API\\) \\(.*\\); give it read access to that API for this zone, or run with a token that has it$`),
    );
  });

  test('a token that reads the firewall rules but not the rulesets API: one line naming that API', async () => {
    const { id } = await zone('half-readable.example');
    const { token } = await emulator().admin.addToken({ zoneId: id, apis: ['firewall/rules', 'filters'] });
    const client = testClient(emulator(), { credentials: { apiToken: token } });
    await expect(planFirewallRulesUpgrade({ zoneId: id, client })).rejects.toThrow(
      new RegExp(`^zone ${id}: the token cannot read its custom rules \\(the rulesets API, phase http_request_firewall_custom\\) \\(.*\\); give it read access`),
    );
  });

  test('36 rules of both forms: the plan made before the conversion names the place and the differences the conversion then gives', async () => {
    const { id } = await emulator().admin.seedZone({ name: 'many.example', plan: 'business' });
    const client = testClient(emulator());
    const filters = await client.filters.create({
      zoneId: id,
      filters: Array.from({ length: 6 }, (_, i) => ({ expression: `ip.src in {198.51.${100 + i}.0/24}`, paused: i === 5 })),
    });
    const actions = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'allow', 'log', 'bypass'] as const;
    const rule = (i: number) => {
      const action = actions[i % actions.length]!;
      return {
        action,
        ...(action === 'bypass' ? { products: ['waf' as const, 'rateLimit' as const] } : {}),
        ...(i % 3 === 0 ? {} : { priority: (i * 37) % 50 }),
        ...(i % 11 === 10 ? { paused: true } : {}),
        description: `rule ${i}`,
      };
    };
    // 24 rules of the single-call form, 12 on the six shared filters (two each), one of them paused.
    await client.firewallRules.create({ zoneId: id, rules: Array.from({ length: 24 }, (_, i) => ({ ...rule(i), filter: { expression: `http.request.uri.path eq "/p${i}" or http.host eq "h${i}.example"` } })) });
    await client.firewallRules.create({ zoneId: id, rules: Array.from({ length: 12 }, (_, i) => ({ ...rule(24 + i), filter: { id: filters[i % 6]!.id } })) });
    await client.rulesets.updateEntrypoint({ zoneId: id, phase: CUSTOM, ruleset: { name: 'default', rules: [{ action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'by hand' }] } });

    const before = await planFirewallRulesUpgrade({ zoneId: id, client });
    expect([before.rules.length, before.problems, before.converted]).toEqual([36, [], false]);
    expect(before.rules.map((r) => r.position)).toEqual(Array.from({ length: 36 }, (_, i) => i + 2));
    const pausedFilterRules = before.rules.filter((r) => r.differences.some((d) => d.startsWith('its filter is paused')));
    expect(pausedFilterRules.length).toBe(2);

    await emulator().admin.setLegacyFirewall(id, 'maintenance');
    const after = await planFirewallRulesUpgrade({ zoneId: id, client });
    const entrypoint = await client.rulesets.getEntrypoint({ zoneId: id, phase: CUSTOM });
    expect(after.converted).toBe(true);
    expect(after.rules.map((r) => [r.legacyRuleId, r.position, r.customRuleId])).toEqual(before.rules.map((r) => [r.legacyRuleId, r.position, entrypoint.rules[r.position - 1]?.id]));
    expect(after.equivalence).toEqual(before.equivalence);
    expect(after.rules.map((r) => r.differences)).toEqual(before.rules.map((r) => r.differences));
  });
});

/** A Pro zone with `rules` made through the legacy API: the rules as made, and as the legacy API lists them. */
async function legacyRules(name: string, rules: Parameters<ReturnType<typeof testClient>['firewallRules']['create']>[0]['rules']) {
  const { id } = await emulator().admin.seedZone({ name, plan: 'pro', ruleQuota: 10 });
  const client = testClient(emulator());
  const created = await client.firewallRules.create({ zoneId: id, rules });
  return { id, created, legacy: await client.firewallRules.list({ zoneId: id }).toArray() };
}

describe("the move's end, while the legacy API is available", () => {
  // The legacy rules no resource of the stack holds stay and still run first (docs/service.md#zone-evaluation): a
  // request one of them meets that a moved rule decided is decided by it once the move deleted that rule.
  test('a rule made by hand that a moved rule of higher priority ran before: the move names the requests it then decides, with both outcomes', async () => {
    const { id, created: [mine, hand], legacy } = await legacyRules('move-end.example', [
      { filter: { expression: '(http.user_agent contains "sqlmap")' }, action: 'block', priority: 1, description: 'scanners' },
      { filter: { expression: '(ip.src in {203.0.113.0/24})' }, action: 'managed_challenge', description: 'by hand' },
    ]);
    const plan = (held: string[]) => planFromReads({ zoneId: id, legacy, phase: undefined, holders: { held: new Set(held), markers: new Map() } }).move!;

    const moved = plan([mine!.id, mine!.filter.id]);
    expect(moved.differences.length).toBeGreaterThan(0);
    for (const difference of moved.differences) {
      expect(difference).toEqual({
        request: expect.stringMatching(/ip\.src="203\.0\.113\.\d+".*http\.user_agent="[^"]*sqlmap[^"]*"|http\.user_agent="[^"]*sqlmap[^"]*".*ip\.src="203\.0\.113\.\d+"/),
        before: `block by ${mine!.id}`,
        after: `managed_challenge by ${hand!.id}`,
      });
    }
    expect(moved.note).toContain(
      `; but the legacy rules it leaves (no resource of the given stacks holds them) still run first, before every custom rule, so after the move ${moved.differences.length} request(s) of those tried are decided otherwise than before, e.g. `,
    );
    // Both moved: nothing of the legacy rules is left to run first, and the conversion decides as they did.
    const both = plan([mine!.id, mine!.filter.id, hand!.id, hand!.filter.id]);
    expect([both.differences, both.note]).toEqual([[], expect.stringMatching(/so every request is covered by one or the other at every moment$/)]);
  });
});

describe('a program the move writes that a CustomRule check would refuse', () => {
  // A hand-made firewall rule's ref may take the service's 50 characters; a CustomRule keeps 14 of them for its owner
  // marker (docs/ownership.md): the plan says so under its problems, before the up would fail the resource.
  test("a held rule whose ref leaves no room for the owner marker: one line naming the rule, the input and what to do; a ref of the room's length passes", async () => {
    const { id, created: [long, fits], legacy } = await legacyRules('move-long-ref.example', [
      { filter: { expression: '(http.user_agent contains "sqlmap")' }, action: 'block', ref: 'r'.repeat(37) },
      { filter: { expression: '(ip.src in {203.0.113.0/24})' }, action: 'managed_challenge', ref: 'f'.repeat(36) },
    ]);
    const held = new Set([long!.id, long!.filter.id, fits!.id, fits!.filter.id]);
    const plan = planFromReads({ zoneId: id, legacy, phase: undefined, holders: { held, markers: new Map() } });
    const name = plan.move!.rules.find((rule) => rule.legacyRuleId === long!.id)!.name;
    expect(plan.problems).toEqual([
      `firewall rule ${long!.id}: the CustomRule '${name}' the move declares for it would be refused (CustomRule.ref: must be at most 36 characters: ` +
        "zoneguard keeps 14 of the service's 50 for its owner marker (docs/ownership.md)); change that input in the program the plan writes " +
        '(an adoption writes it), or the firewall rule while the legacy API is available',
    ]);
    // Without the stacks' exports there is no move, and no program to refuse.
    expect(planFromReads({ zoneId: id, legacy, phase: undefined }).problems).toEqual([]);
  });
});
