import { legacyFirewallRefusal } from '../../src/emulator/firewall';
import { failure, useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

const MAINTENANCE =
  'firewallrules.api.maintenance_mode: the firewall rules and filters API is in maintenance mode for this zone and no longer accepts modifications; use custom rules of the rulesets API (phase http_request_firewall_custom)';
const RETIRED =
  'the firewall rules and filters API is retired for this zone (end of life 2025-06-15); use custom rules of the rulesets API (phase http_request_firewall_custom)';

describe('legacyFirewallRefusal', () => {
  test.each([
    ['available', 'POST', '/zones/:zone_id/firewall/rules', undefined],
    ['maintenance', 'GET', '/zones/:zone_id/firewall/rules', undefined],
    ['maintenance', 'GET', '/zones/:zone_id/filters/:filter_id', undefined],
    ['maintenance', 'POST', '/zones/:zone_id/firewall/rules', [400, MAINTENANCE]],
    ['maintenance', 'PUT', '/zones/:zone_id/filters/:filter_id', [400, MAINTENANCE]],
    ['maintenance', 'DELETE', '/zones/:zone_id/firewall/rules/:rule_id', [400, MAINTENANCE]],
    ['retired', 'GET', '/zones/:zone_id/filters', [410, RETIRED]],
    ['retired', 'DELETE', '/zones/:zone_id/firewall/rules/:rule_id', [410, RETIRED]],
    ['retired', 'GET', '/zones/:zone_id/firewall/waf/packages', undefined],
    ['retired', 'PUT', '/zones/:zone_id/page_guard', undefined],
    ['retired', 'GET', undefined, undefined],
  ] as const)('%s: %s %s', (state, method, route, expected) => {
    const refusal = legacyFirewallRefusal(state, method, route);
    expect(refusal === undefined ? undefined : [refusal.status, refusal.errors]).toEqual(
      expected === undefined ? undefined : [expected[0], [{ code: 10020, message: expected[1] }]],
    );
  });
});

describe('a zone seeded with the legacy firewall API retired', () => {
  const rule = [{ filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block' }];

  test('maintenance: reads answer, every change is 400 code 10020, and nothing changes', async () => {
    const seeded = await h.emulator.admin.seedZone({
      name: 'maintenance.example',
      plan: 'pro',
      legacyFirewall: 'maintenance',
      firewallRules: [{ expression: 'ip.src eq 198.51.100.7', action: 'block' }],
    });
    expect(seeded.legacyFirewall).toBe('maintenance');
    const zone = seeded.id;
    const [existing] = (await h.call('GET', `/zones/${zone}/firewall/rules`)).body.result;
    expect((await h.call('GET', `/zones/${zone}/filters/${existing.filter.id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `/zones/${zone}/firewall/rules`, rule],
      ['DELETE', `/zones/${zone}/firewall/rules/${existing.id}`, undefined],
      ['PUT', `/zones/${zone}/firewall/rules/${existing.id}`, { id: existing.id, filter: { id: existing.filter.id }, action: 'log' }],
      ['POST', `/zones/${zone}/filters`, [{ expression: 'ip.src eq 192.0.2.9' }]],
    ] as const) {
      const answer = await h.call(method, path, body === undefined ? {} : { body });
      expect([method, path, answer.status, answer.body]).toEqual([method, path, 400, failure([10020, MAINTENANCE])]);
    }
    expect((await h.emulator.admin.inventory(zone)).counts).toMatchObject({ firewallRules: 1, filters: 1 });
    // The rest of the zone is served as usual.
    expect((await h.call('PUT', `/zones/${zone}/page_guard`, { body: { enabled: true } })).status).toBe(200);
  });

  test('retired: every call of that API is 410 code 10020, reads included', async () => {
    const zone = (await h.emulator.admin.seedZone({ name: 'retired.example', plan: 'pro', legacyFirewall: 'retired' })).id;
    for (const [method, path] of [
      ['GET', `/zones/${zone}/firewall/rules`],
      ['POST', `/zones/${zone}/firewall/rules`],
      ['GET', `/zones/${zone}/filters`],
    ] as const) {
      const answer = await h.call(method, path, method === 'POST' ? { body: rule } : {});
      expect([method, path, answer.status, answer.body]).toEqual([method, path, 410, failure([10020, RETIRED])]);
    }
  });

  test('the demo zones serve it (available)', async () => {
    expect((await h.emulator.admin.zones()).map((zone) => zone.legacyFirewall)).toEqual(['available', 'available', 'available', 'available']);
  });

  test('an unknown value is refused when seeding', async () => {
    await expect(h.emulator.admin.seedZone({ name: 'x.example', plan: 'pro', legacyFirewall: 'gone' as never })).rejects.toThrow(
      'POST /zones: legacyFirewall: must be one of "available", "maintenance", "retired"',
    );
  });
});

describe('moving a zone off the legacy firewall API converts its rules into custom rules (docs/service.md#legacy-conversion)', () => {
  const CUSTOM = 'http_request_firewall_custom';

  /** A pro zone whose rules are made through the legacy API itself: a shared filter, a paused filter, priorities set and not. */
  async function zoneWithRules() {
    const zone = (await h.emulator.admin.seedZone({ name: 'converting.example', plan: 'pro' })).id;
    const filters = await h.call('POST', `/zones/${zone}/filters`, {
      body: [{ expression: 'ip.src in {198.51.100.0/24}' }, { expression: 'http.request.uri.path eq "/old"', paused: true }],
    });
    const [shared, pausedFilter] = filters.body.result as { id: string }[];
    const created = await h.call('POST', `/zones/${zone}/firewall/rules`, {
      body: [
        { filter: { expression: 'http.host eq "a.example"' }, action: 'block', description: 'no priority, block' },
        { filter: { id: shared?.id }, action: 'log', ref: 'log-office', description: 'shared filter, log' },
        { filter: { id: shared?.id }, action: 'allow', description: 'shared filter, allow' },
        { filter: { expression: 'http.user_agent contains "bot"' }, action: 'bypass', products: ['waf', 'rateLimit'], priority: 10 },
        { filter: { expression: 'ip.src.country eq "ZZ"' }, action: 'challenge', priority: 5, paused: true },
        { filter: { id: pausedFilter?.id }, action: 'js_challenge', priority: 5, description: 'unpaused rule, paused filter' },
      ],
    });
    expect(created.status).toBe(200);
    return zone;
  }

  test('maintenance: new ids, actions mapped, the legacy order, paused rule disabled, rule on a paused filter enabled; legacy reads still answer', async () => {
    const zone = await zoneWithRules();
    // A custom rule the zone already has stays first; the converted rules come after it.
    const mine = { action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'made in the dashboard' };
    expect((await h.call('PUT', `/zones/${zone}/rulesets/phases/${CUSTOM}/entrypoint`, { body: { rules: [mine] } })).status).toBe(200);
    const legacyIds = ((await h.call('GET', `/zones/${zone}/firewall/rules`)).body.result as { id: string }[]).map((rule) => rule.id);

    const moved = await h.emulator.admin.setLegacyFirewall(zone, 'maintenance');
    expect(moved.legacyFirewall).toBe('maintenance');

    const entrypoint = (await h.call('GET', `/zones/${zone}/rulesets/phases/${CUSTOM}/entrypoint`)).body.result;
    expect(entrypoint.version).toBe('2');
    const shown = (entrypoint.rules as { action: string; expression: string; description: string; enabled: boolean; action_parameters?: unknown; ref: string; id: string }[]).map(
      ({ action, expression, description, enabled, action_parameters }) => ({ action, expression, description, enabled, ...(action_parameters ? { action_parameters } : {}) }),
    );
    expect(shown).toEqual([
      { ...mine, enabled: true },
      // priority 5: challenge (precedence 4, paused: kept, disabled), then js_challenge (5) on the paused filter, enabled
      { action: 'challenge', expression: 'ip.src.country eq "ZZ"', description: '', enabled: false },
      { action: 'js_challenge', expression: 'http.request.uri.path eq "/old"', description: 'unpaused rule, paused filter', enabled: true },
      // priority 10: bypass becomes a skip of its products
      { action: 'skip', expression: 'http.user_agent contains "bot"', description: '', enabled: true, action_parameters: { products: ['waf', 'rateLimit'] } },
      // no priority, last, by precedence: log, allow (a skip of the rest of the ruleset), block
      { action: 'log', expression: 'ip.src in {198.51.100.0/24}', description: 'shared filter, log', enabled: true },
      { action: 'skip', expression: 'ip.src in {198.51.100.0/24}', description: 'shared filter, allow', enabled: true, action_parameters: { ruleset: 'current' } },
      { action: 'block', expression: 'http.host eq "a.example"', description: 'no priority, block', enabled: true },
    ]);
    const rules = entrypoint.rules as { id: string; ref: string }[];
    expect(rules.filter((rule) => legacyIds.includes(rule.id))).toEqual([]);
    expect(rules[4]?.ref).toBe('log-office');
    expect(rules[5]?.ref).toBe(rules[5]?.id);
    // Reads of the legacy API still answer in maintenance; changes are refused.
    expect((await h.call('GET', `/zones/${zone}/firewall/rules`)).body.result).toHaveLength(6);
    expect((await h.call('DELETE', `/zones/${zone}/firewall/rules/${legacyIds[0]}`)).status).toBe(400);
  });

  test('retired straight from available converts too; moving on to retired from maintenance converts nothing again', async () => {
    const zone = await zoneWithRules();
    await h.emulator.admin.setLegacyFirewall(zone, 'maintenance');
    await h.emulator.admin.setLegacyFirewall(zone, 'retired');
    const entrypoint = (await h.call('GET', `/zones/${zone}/rulesets/phases/${CUSTOM}/entrypoint`)).body.result;
    expect([entrypoint.version, entrypoint.rules.length]).toEqual(['1', 6]);
    expect((await h.call('GET', `/zones/${zone}/firewall/rules`)).status).toBe(410);

    const other = await zoneWithRules();
    await h.emulator.admin.setLegacyFirewall(other, 'retired');
    expect((await h.call('GET', `/zones/${other}/rulesets/phases/${CUSTOM}/entrypoint`)).body.result.rules).toHaveLength(6);
  });

  test('a seed in maintenance converts its rules; a zone without rules gets no entry point', async () => {
    const seeded = await h.emulator.admin.seedZone({
      name: 'seeded-maintenance.example',
      plan: 'pro',
      legacyFirewall: 'maintenance',
      firewallRules: [
        { expression: 'ip.src eq 198.51.100.7', action: 'block' },
        { expression: 'ip.src eq 198.51.100.8', action: 'allow', priority: 1 },
      ],
    });
    const rules = (await h.call('GET', `/zones/${seeded.id}/rulesets/phases/${CUSTOM}/entrypoint`)).body.result.rules as { action: string }[];
    expect(rules.map((rule) => rule.action)).toEqual(['skip', 'block']);
    const empty = await h.emulator.admin.seedZone({ name: 'empty-retired.example', plan: 'pro', legacyFirewall: 'retired' });
    expect((await h.call('GET', `/zones/${empty.id}/rulesets/phases/${CUSTOM}/entrypoint`)).status).toBe(404);
  });

  test('refused, nothing changed: over the custom phase quota after conversion, or a move backwards', async () => {
    const zone = (await h.emulator.admin.seedZone({ name: 'crowded.example', plan: 'free', ruleQuota: 10 })).id;
    const five = Array.from({ length: 5 }, (_, i) => ({ action: 'block', expression: `http.request.uri.path eq "/p${i}"` }));
    expect((await h.call('PUT', `/zones/${zone}/rulesets/phases/${CUSTOM}/entrypoint`, { body: { rules: five.slice(0, 4) } })).status).toBe(200);
    expect((await h.call('POST', `/zones/${zone}/firewall/rules`, { body: [{ filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block' }, { filter: { expression: 'ip.src eq 192.0.2.2' }, action: 'block' }] })).status).toBe(200);
    await expect(h.emulator.admin.setLegacyFirewall(zone, 'maintenance')).rejects.toThrow(
      `PUT /zones/${zone}/legacy-firewall: zone ${zone} (free plan): converting its 2 firewall rules beside the 4 custom rules already in http_request_firewall_custom would leave 6, over the phase's 5; the service's conversion fails for such a zone: delete firewall rules (or custom rules) until they fit, then move the zone again; nothing changed`,
    );
    expect((await h.emulator.admin.zones()).find((z) => z.id === zone)?.legacyFirewall).toBe('available');
    expect((await h.call('GET', `/zones/${zone}/rulesets/phases/${CUSTOM}/entrypoint`)).body.result.rules).toHaveLength(4);

    const retired = (await h.emulator.admin.seedZone({ name: 'gone.example', plan: 'pro', legacyFirewall: 'retired' })).id;
    await expect(h.emulator.admin.setLegacyFirewall(retired, 'maintenance')).rejects.toThrow(
      `PUT /zones/${retired}/legacy-firewall: zone ${retired}: the legacy firewall API cannot go from retired back to maintenance; the public service retires it one way only (docs/service.md#firewall-legacy)`,
    );
  });
});

describe('a zone\'s history (docs/emulator.md#zone-history)', () => {
  test('the zone as it stood when watched, then after each write the service accepted: legacy rules and custom rules; reads, refusals and dry runs add nothing', async () => {
    const zone = (await h.emulator.admin.seedZone({ name: 'history.example', plan: 'pro', firewallRules: [{ expression: 'ip.src eq 198.51.100.7', action: 'block' }] })).id;
    const [start] = await h.emulator.admin.watchZone(zone);
    expect(start).toMatchObject({ after: 'start', legacyFirewall: 'available', customRules: [] });
    expect(start!.firewallRules.map((r) => r.filter.expression)).toEqual(['ip.src eq 198.51.100.7']);
    const made = await h.call('POST', `/zones/${zone}/rulesets`, { body: { name: 'default', kind: 'zone', phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1' }] } });
    expect(made.status).toBe(200);
    await h.call('GET', `/zones/${zone}/firewall/rules`);
    const rulesetId = made.body.result.id as string;
    expect((await h.call('POST', `/zones/${zone}/rulesets/${rulesetId}/rules?dry_run=true`, { body: { action: 'log', expression: 'ip.src eq 192.0.2.2' } })).status).toBe(200);
    expect((await h.call('POST', `/zones/${zone}/firewall/rules`, { body: [{ filter: { expression: 'not a rule' }, action: 'block' }] })).status).toBe(400);
    const rule = start!.firewallRules[0]!;
    expect((await h.call('DELETE', `/zones/${zone}/firewall/rules/${rule.id}`)).status).toBe(200);
    const moments = await h.emulator.admin.zoneHistory(zone);
    expect(moments.map((m) => [m.after, m.firewallRules.length, m.customRules.map((r) => r.expression)])).toEqual([
      ['start', 1, []],
      [`POST /client/v4/zones/${zone}/rulesets`, 1, ['ip.src eq 192.0.2.1']],
      [`DELETE /client/v4/zones/${zone}/firewall/rules/${rule.id}`, 0, ['ip.src eq 192.0.2.1']],
    ]);
    // Another zone is not watched; a reset forgets every history.
    const demo = (await h.emulator.admin.zones())[0]!.id;
    expect(await h.emulator.admin.zoneHistory(demo)).toEqual([]);
    expect(await h.emulator.admin.watchZone(demo)).toHaveLength(1);
    await h.emulator.admin.reset();
    expect(await h.emulator.admin.zoneHistory(demo)).toEqual([]);
  });
});
