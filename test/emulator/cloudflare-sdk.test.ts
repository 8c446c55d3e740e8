// A client written elsewhere, against the emulator: the `cloudflare` package (the public API's generated TypeScript
// SDK), pointed at the emulator's base URL. Where it passes, the emulator answers what a real client expects; where it
// does not, the reason is written beside the test (docs/emulator.md, "A client written elsewhere").
import Cloudflare from 'cloudflare';
import { MANAGED_RULESET_ID, OWASP_RULESET_ID } from '../../src/schemas/service';
import { useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());
const sdk = () => new Cloudflare({ apiToken: h.emulator.credentials.apiToken, baseURL: h.emulator.baseUrl, maxRetries: 0 });
const PHASE = 'http_request_firewall_managed';

describe('the cloudflare SDK against the emulator', () => {
  test('rulesets: update, get, and the versions of the managed phase entry point', async () => {
    const zone_id = h.zoneOf('pro');
    // The SDK types the answer as unknown (a union with unknown); the test reads the fields it asserts.
    const updated = (await sdk().rulesets.phases.update(PHASE, {
      zone_id,
      rules: [
        { action: 'skip', expression: 'http.host eq "dev.example.com"', action_parameters: { ruleset: 'current' } },
        { action: 'execute', expression: 'true', action_parameters: { id: MANAGED_RULESET_ID } },
      ],
    })) as { id: string; rules: { action: string; enabled: boolean }[] };
    expect(updated).toMatchObject({ kind: 'zone', phase: PHASE, version: '1' });
    expect(updated.rules.map((rule) => [rule.action, rule.enabled])).toEqual([
      ['skip', true],
      ['execute', true],
    ]);
    expect(((await sdk().rulesets.phases.get(PHASE, { zone_id })) as { id: string }).id).toBe(updated.id);
    await sdk().rulesets.phases.update(PHASE, { zone_id, rules: [{ action: 'execute', expression: 'true', action_parameters: { id: OWASP_RULESET_ID } }] });
    const versions = [];
    for await (const version of sdk().rulesets.phases.versions.list(PHASE, { zone_id })) versions.push(version.version);
    expect(versions).toEqual(['1', '2']);
    expect(((await sdk().rulesets.phases.versions.get('1', { zone_id, ruleset_phase: PHASE })) as { rules: unknown[] }).rules).toHaveLength(2);
  });

  test('rulesets: an invalid rule is refused with the field named, as an SDK error with status and message', async () => {
    const error = await sdk()
      .rulesets.phases.update(PHASE, { zone_id: h.zoneOf('pro'), rules: [{ action: 'execute', expression: 'true', action_parameters: { id: 'abc' } }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Cloudflare.BadRequestError);
    expect((error as InstanceType<typeof Cloudflare.BadRequestError>).status).toBe(400);
    expect((error as Error).message).toContain('rules.0.action_parameters.id: abc is not a managed ruleset');
  });

  const limit = { characteristics: ['cf.colo.id', 'ip.src'], period: 60 as const, requests_per_period: 50, mitigation_timeout: 600 };
  test.each<[string, 'http_request_firewall_custom' | 'http_ratelimit', { ratelimit?: typeof limit }]>([
    ['custom rules', 'http_request_firewall_custom', {}],
    ['rate limiting rules', 'http_ratelimit', { ratelimit: limit }],
  ])('rulesets: %s are created, listed, patched and deleted one at a time', async (_name, phase, extra) => {
    const zone_id = h.zoneOf('enterprise');
    type Ruleset = { id: string; version: string; rules: { id: string; ref: string; action: string }[] };
    const entry = (await sdk().rulesets.phases.update(phase, { zone_id, rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1', ref: 'first', ...extra }] })) as Ruleset;
    const created = (await sdk().rulesets.rules.create(entry.id, { zone_id, action: 'log', expression: 'ip.src eq 192.0.2.2', ref: 'second', position: { before: entry.rules[0]?.id ?? '' }, ...extra })) as Ruleset;
    expect(created.rules.map((rule) => rule.ref)).toEqual(['second', 'first']);
    const listed = (await sdk().rulesets.phases.get(phase, { zone_id })) as Ruleset;
    expect(listed.rules.map((rule) => rule.ref)).toEqual(['second', 'first']);
    const second = listed.rules[0]?.id ?? '';
    const patched = (await sdk().rulesets.rules.edit(second, { zone_id, ruleset_id: entry.id, action: 'block', expression: 'ip.src eq 192.0.2.3', ...extra })) as Ruleset;
    expect(patched.rules[0]).toMatchObject({ id: second, action: 'block' });
    const deleted = (await sdk().rulesets.rules.delete(second, { zone_id, ruleset_id: entry.id })) as Ruleset;
    expect(deleted.rules.map((rule) => rule.ref)).toEqual(['first']);
    const versions = [];
    for await (const version of sdk().rulesets.versions.list(entry.id, { zone_id })) versions.push(version.version);
    expect(versions).toEqual(['1', '2', '3', '4']);
  });

  test('filters and firewall rules: the lists walk their pages', async () => {
    const zone_id = h.zoneOf('enterprise');
    const rules = [];
    for await (const rule of sdk().firewall.rules.list({ zone_id })) rules.push(rule);
    expect(rules).toHaveLength(4);
    const filters = [];
    for await (const filter of sdk().filters.list({ zone_id })) filters.push(filter);
    expect(filters.map((f) => f.id).sort()).toEqual(rules.map((r) => (r.filter as { id: string }).id).sort());
  });

  test('previous WAF: packages list', async () => {
    const packages = [];
    for await (const item of sdk().firewall.waf.packages.list({ zone_id: h.zoneOf('enterprise') })) packages.push(item);
    expect(packages).toHaveLength(2);
  });

  test('previous WAF: packages list with the public filters (name, order, direction, match)', async () => {
    const zone_id = h.zoneOf('enterprise');
    const names = async (params: { name?: string; order?: 'name'; direction?: 'asc' | 'desc'; match?: 'any' | 'all' }) => {
      const found = [];
      for await (const item of sdk().firewall.waf.packages.list({ zone_id, ...params })) found.push((item as { name: string }).name);
      return found;
    };
    expect(await names({ name: 'OWASP', match: 'all' })).toEqual(['OWASP ModSecurity Core Rule Set']);
    expect(await names({ order: 'name', direction: 'desc' })).toEqual(['OWASP ModSecurity Core Rule Set', 'CloudFlare']);
  });

  test('filters: a bulk update of several filters at once (the SDK types its items without id, which the service needs)', async () => {
    const zone_id = h.zoneOf('enterprise');
    const created = (await h.call('POST', `/zones/${zone_id}/filters`, { body: [{ expression: 'ip.src eq 192.0.2.98' }] })).body.result as { id: string }[];
    const body = created.map(({ id }) => ({ id, expression: 'ip.src eq 192.0.2.99', description: 'bulk' }));
    const updated = [];
    for await (const filter of sdk().filters.bulkUpdate({ zone_id, body })) updated.push([filter.id, filter.expression, filter.description]);
    expect(updated).toEqual([[created[0]?.id, 'ip.src eq 192.0.2.99', 'bulk']]);
  });

  test('firewall rules: PATCH of one rule answers it in a list; the bulk PUT and PATCH send one object (the public description\'s defect, docs/service.md#two-flows) and are refused', async () => {
    const zone_id = h.zoneOf('enterprise');
    const [rule] = (await h.call('GET', `/zones/${zone_id}/firewall/rules`)).body.result as { id: string }[];
    const edited = [];
    for await (const item of sdk().firewall.rules.edit(rule?.id ?? '', { zone_id })) edited.push(item.id);
    expect(edited).toEqual([rule?.id]);
    for (const call of [() => sdk().firewall.rules.bulkUpdate({ zone_id, id: rule?.id ?? '' }), () => sdk().firewall.rules.bulkEdit({ zone_id, id: rule?.id ?? '' })]) {
      const error = await (async () => {
        for await (const _ of call()) return undefined;
        return undefined;
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Cloudflare.BadRequestError);
    }
  });

  test('previous WAF: the groups of a package', async () => {
    const zone_id = h.zoneOf('enterprise');
    const packages = [];
    for await (const item of sdk().firewall.waf.packages.list({ zone_id })) packages.push(item as { id: string; detection_mode: string });
    const owasp = packages.find((p) => p.detection_mode === 'anomaly');
    const groups = [];
    for await (const group of sdk().firewall.waf.packages.groups.list(owasp?.id ?? '', { zone_id })) groups.push([group.name, group.mode]);
    expect(groups).toEqual([
      ['OWASP Generic Attacks', 'off'],
      ['OWASP SQL Injection Attacks', 'on'],
      ['OWASP XSS Attacks', 'on'],
    ]);
  });

  test('page security: the SDK calls /page_shield, which this service names /page_guard, so it gets 404 code 7000', async () => {
    const error = await sdk().pageShield.get({ zone_id: h.zoneOf('pro') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Cloudflare.NotFoundError);
    expect((error as Error).message).toContain('No route for that URI');
  });

  test('firewall rule create: the SDK sends one object with an action object (its own departure from this API, an array of rules with a string action: docs/service.md#two-flows), which is refused', async () => {
    const zone_id = h.zoneOf('pro');
    const error = await sdk()
      .firewall.rules.create({ zone_id, action: { mode: 'challenge' }, filter: { expression: 'ip.src eq 192.0.2.1' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Cloudflare.BadRequestError);
    expect((await h.emulator.admin.inventory(zone_id)).counts.firewallRules).toBe(2);
  });
});
