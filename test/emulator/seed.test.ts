import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { demoSeed } from '../../src/emulator/demo';
import {
  ConnectionSchema,
  CookieSchema,
  CspPolicySchema,
  MALICIOUS_SCORE_THRESHOLD,
  ScriptDetailSchema,
} from '../../src/schemas';
import { send, useEmulator } from './helpers';

const h = useEmulator();

describe('the demo seed', () => {
  test('is deterministic: two emulators serve the same zones, credentials and item ids', async () => {
    expect(demoSeed()).toEqual(demoSeed());
    let other: StartedEmulator | undefined;
    try {
      other = await startEmulator({ port: 0 });
      expect(other.zones).toEqual(h.emulator.zones);
      expect(other.credentials).toEqual(h.emulator.credentials);
      const zone = h.zoneOf('enterprise');
      const ids = async (e: StartedEmulator) =>
        (await send(e.baseUrl, e.credentials.apiToken, 'GET', `/zones/${zone}/page_guard/scripts?page=all`)).body.result.map((s: { id: string }) => s.id);
      expect(await ids(other)).toEqual(await ids(h.emulator));
    } finally {
      await other?.close();
    }
  });

  test('has one zone per plan, each with several hosts', async () => {
    expect(h.emulator.zones.map((z) => z.plan)).toEqual(['free', 'pro', 'business', 'enterprise']);
    for (const zone of await h.emulator.admin.zones()) expect(zone.hosts.length).toBeGreaterThanOrEqual(2);
    const enterprise = (await h.emulator.admin.zones()).find((z) => z.plan === 'enterprise')!;
    expect(enterprise.hosts).toEqual(['acme-bank.example', 'www.acme-bank.example', 'login.acme-bank.example', 'shop.acme-bank.example', 'api.acme-bank.example']);
  });

  test('every seeded object parses with the shared schemas', () => {
    for (const zone of demoSeed().zones) {
      for (const script of zone.scripts ?? []) ScriptDetailSchema.strict().parse(script);
      for (const connection of zone.connections ?? []) ConnectionSchema.strict().parse(connection);
      for (const cookie of zone.cookies ?? []) CookieSchema.strict().parse(cookie);
      for (const policy of zone.cspPolicies ?? []) CspPolicySchema.parse({ id: '0'.repeat(32), ...policy });
    }
  });

  test('the enterprise zone has at least 40 active scripts over several pages, some under the malicious threshold', async () => {
    const zone = h.zoneOf('enterprise');
    const first = await h.call('GET', `/zones/${zone}/page_guard/scripts?exclude_cdn_cgi=false`);
    expect(first.body.result_info.total_count).toBeGreaterThanOrEqual(40);
    expect(first.body.result_info.total_pages).toBeGreaterThanOrEqual(3);
    const all = (await h.call('GET', `/zones/${zone}/page_guard/scripts?page=all`)).body.result;
    expect(all.filter((s: { js_integrity_score: number }) => s.js_integrity_score < MALICIOUS_SCORE_THRESHOLD).length).toBeGreaterThanOrEqual(3);
    expect(all.some((s: { domain_reported_malicious: boolean }) => s.domain_reported_malicious)).toBe(true);
    expect(all.some((s: { url_reported_malicious: boolean }) => s.url_reported_malicious)).toBe(true);
  });

  test('the previous WAF is configured on the paid zones; only the business zone has a URI-based override', async () => {
    const overrides = await Promise.all(
      h.emulator.zones.map(async (z) => [z.plan, (await h.emulator.admin.inventory(z.id)).counts.wafOverrides]),
    );
    expect(overrides).toEqual([['free', 0], ['pro', 0], ['business', 1], ['enterprise', 0]]);
    for (const plan of ['pro', 'business', 'enterprise']) {
      expect((await h.emulator.admin.inventory(h.zoneOf(plan))).counts.wafPackages).toBe(2);
    }
  });
});

describe("a seeded zone's token", () => {
  beforeEach(() => h.emulator.admin.reset());

  test("cannot be another zone's token or the account's: 409, and nothing seeded", async () => {
    const other = (await h.emulator.admin.zones()).find((zone) => zone.plan === 'pro')!;
    for (const token of [other.token, h.emulator.credentials.apiToken]) {
      await expect(h.emulator.admin.seedZone({ name: 'taken.example', plan: 'free', token })).rejects.toMatchObject({
        status: 409,
        message: expect.stringContaining('token: this value is already a token of this emulator; choose another or leave it out'),
      });
    }
    expect((await h.emulator.admin.zones()).map((zone) => zone.name)).not.toContain('taken.example');
    // The pro zone's token still opens the pro zone only.
    expect((await send(h.emulator.baseUrl, other.token, 'GET', `/zones/${other.id}/page_guard`)).status).toBe(200);
  });

  test('may be its own when the zone is seeded again', async () => {
    const zone = await h.emulator.admin.seedZone({ name: 'again.example', plan: 'free', token: 'zgz_again-token-0123456789' });
    await expect(h.emulator.admin.seedZone({ id: zone.id, name: 'again.example', plan: 'pro', token: 'zgz_again-token-0123456789' })).resolves.toMatchObject({ plan: 'pro' });
  });
});
