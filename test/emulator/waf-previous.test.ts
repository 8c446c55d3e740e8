import { WafGroupSchema, WafOverrideSchema, WafPackageSchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator, expectInvalid } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

describe('GET/DELETE /zones/{zone_id}/firewall/waf/overrides', () => {
  test('lists, reads and deletes the URI-based override of the business zone', async () => {
    const zone = h.zoneOf('business');
    const list = await h.call('GET', `/zones/${zone}/firewall/waf/overrides`);
    expect(list.status).toBe(200);
    expect(list.body.result).toHaveLength(1);
    const override = WafOverrideSchema.strict().parse(list.body.result[0]);
    expect(override.urls).toEqual(['api.acme-media.example/upload/*']);
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/overrides/${override.id}`)).body.result).toEqual(list.body.result[0]);
    const deleted = await h.call('DELETE', `/zones/${zone}/firewall/waf/overrides/${override.id}`);
    expect(deleted.body).toEqual({ success: true, errors: [], messages: [], result: { id: override.id } });
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/overrides`)).body.result).toEqual([]);
  });

  test('an unknown override is a 404 for read and delete', async () => {
    const zone = h.zoneOf('business');
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/overrides/${MISSING_ID}`)).body).toEqual(failure([10013, `WAF override ${MISSING_ID} not found`]));
    const del = await h.call('DELETE', `/zones/${zone}/firewall/waf/overrides/${MISSING_ID}`);
    expect(del.status).toBe(404);
    expect(del.body).toEqual(failure([10013, `WAF override ${MISSING_ID} not found`]));
  });

  test('per_page below 5 is refused (public API bounds)', async () => {
    expect((await h.call('GET', `/zones/${h.zoneOf('business')}/firewall/waf/overrides?per_page=2`)).body).toEqual(failure([1004, 'per_page: must be at least 5']));
  });
});

describe('GET /zones/{zone_id}/firewall/waf/packages', () => {
  test('the enterprise zone has the vendor package and the core rule set with its sensitivity and action', async () => {
    const zone = h.zoneOf('enterprise');
    const list = await h.call('GET', `/zones/${zone}/firewall/waf/packages`);
    const packages = list.body.result.map((p: unknown) => WafPackageSchema.strict().parse(p));
    expect(packages.map((p: { name: string; detection_mode: string }) => [p.name, p.detection_mode])).toEqual([
      ['CloudFlare', 'traditional'],
      ['OWASP ModSecurity Core Rule Set', 'anomaly'],
    ]);
    expect(packages[1]).toMatchObject({ zone_id: zone, sensitivity: 'high', action_mode: 'block' });
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/packages/${packages[1].id}`)).body.result).toEqual(list.body.result[1]);
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/packages/${MISSING_ID}`)).body).toEqual(failure([10013, `WAF package ${MISSING_ID} not found`]));
  });

  test.each([
    ['name, part of it in any case', '?name=owasp', ['OWASP ModSecurity Core Rule Set']],
    ['name with match=any', '?name=cloud&match=any', ['CloudFlare']],
    ['order=name desc', '?order=name&direction=desc', ['OWASP ModSecurity Core Rule Set', 'CloudFlare']],
    ['order=name asc', '?order=name&direction=asc', ['CloudFlare', 'OWASP ModSecurity Core Rule Set']],
    ['a name nothing has', '?name=nothing', []],
  ])('the public filters apply: %s', async (_name, q, names) => {
    const list = await h.call('GET', `/zones/${h.zoneOf('enterprise')}/firewall/waf/packages${q}`);
    expect(list.body.result.map((p: { name: string }) => p.name)).toEqual(names);
  });

  test.each([
    ['?order=status', 'order: must be "name"'],
    ['?direction=up', 'direction: must be one of "asc", "desc"'],
    ['?match=some', 'match: must be one of "any", "all"'],
    ['?detection_mode=anomaly', 'unknown key "detection_mode"'],
  ])('%s is refused, never ignored', async (q, message) => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('enterprise')}/firewall/waf/packages${q}`);
    expectInvalid(answer, message);
  });

  test('the free zone has no previous WAF packages', async () => {
    expect((await h.call('GET', `/zones/${h.zoneOf('free')}/firewall/waf/packages`)).body.result).toEqual([]);
  });
});

describe('after the migration', () => {
  test('the previous WAF endpoints answer 410 with a message that points to the rulesets API', async () => {
    const zone = h.zoneOf('pro');
    const packages = (await h.call('GET', `/zones/${zone}/firewall/waf/packages`)).body.result;
    const config = (await h.call('GET', `/zones/${zone}/waf_migration/config?phase_two=1`)).body.result;
    const migrated = await h.call('PUT', `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=pending&phase_two=1`, { body: config });
    expect(migrated.status).toBe(200);
    const expected = failure([
      10034,
      `the previous WAF managed rules API is not available for zone ${zone}: the zone migrated to the new WAF managed rules; use the rulesets API`,
    ]);
    for (const path of ['firewall/waf/packages', `firewall/waf/packages/${packages[0].id}`, 'firewall/waf/overrides', `firewall/waf/overrides/${MISSING_ID}`]) {
      const answer = await h.call('GET', `/zones/${zone}/${path}`);
      expect(answer.status).toBe(410);
      expect(answer.body).toEqual(expected);
    }
    expect((await h.call('DELETE', `/zones/${zone}/firewall/waf/overrides/${MISSING_ID}`)).status).toBe(410);
    // Other zones keep theirs.
    expect((await h.call('GET', `/zones/${h.zoneOf('enterprise')}/firewall/waf/packages`)).status).toBe(200);
  });
});

describe('GET /zones/{zone_id}/firewall/waf/packages/{package_id}/groups', () => {
  test('lists the package\'s rule groups, a group overridden off shown off, with the public filters', async () => {
    const zone = h.zoneOf('enterprise');
    const packages = (await h.call('GET', `/zones/${zone}/firewall/waf/packages?order=name`)).body.result;
    const owasp = packages.find((p: { detection_mode: string }) => p.detection_mode === 'anomaly');
    const groups = `/zones/${zone}/firewall/waf/packages/${owasp.id}/groups`;
    const list = (await h.call('GET', groups)).body.result.map((g: unknown) => WafGroupSchema.strict().parse(g));
    expect(list.map((g: { name: string; mode: string }) => [g.name, g.mode])).toEqual([
      ['OWASP Generic Attacks', 'off'],
      ['OWASP SQL Injection Attacks', 'on'],
      ['OWASP XSS Attacks', 'on'],
    ]);
    expect(list[0]).toMatchObject({ package_id: owasp.id, allowed_modes: ['on', 'off'] });
    expect((await h.call('GET', `${groups}?mode=off`)).body.result.map((g: { name: string }) => g.name)).toEqual(['OWASP Generic Attacks']);
    expect((await h.call('GET', `${groups}?order=rules_count&direction=desc`)).body.result.map((g: { rules_count: number }) => g.rules_count)).toEqual([47, 31, 28]);
    expect((await h.call('GET', `${groups}?mode=maybe`)).status).toBe(400);
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/packages/${MISSING_ID}/groups`)).body).toEqual(failure([10013, `WAF package ${MISSING_ID} not found`]));
  });
});
