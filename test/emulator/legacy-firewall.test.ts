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
