import { EmulatorAdmin, EmulatorAdminError } from '../../src/emulator';
import { failure, useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

describe('the admin API', () => {
  test('info answers the credentials and the zones with their plans', async () => {
    const info = await h.emulator.admin.info();
    expect(info.credentials).toEqual(h.emulator.credentials);
    expect(info.zones.map((z) => [z.name, z.plan])).toEqual([
      ['acme-blog.example', 'free'],
      ['acme-store.example', 'pro'],
      ['acme-media.example', 'business'],
      ['acme-bank.example', 'enterprise'],
    ]);
  });

  test('a second EmulatorAdmin on the admin URL sees the same emulator (as another process would)', async () => {
    const other = new EmulatorAdmin(h.emulator.adminUrl);
    const zone = await other.seedZone({ name: 'remote.example', plan: 'pro' });
    expect((await h.emulator.admin.zones()).map((z) => z.id)).toContain(zone.id);
  });

  test('seedZone adds a zone with its plan, quota, hosts, token and detected items', async () => {
    const declared = { id: 'dd00000000000000000000000000dd01', name: 'seeded.example', plan: 'business', ruleQuota: 2, hosts: ['seeded.example', 'app.seeded.example'], token: 'zone-token-for-tests' } as const;
    const zone = await h.emulator.admin.seedZone({
      ...declared,
      hosts: [...declared.hosts],
      scripts: [{ url: 'https://app.seeded.example/a.js', host: 'app.seeded.example', status: 'active', js_integrity_score: 10 }],
      connections: [{ url: 'https://collect.example/c', host: 'seeded.example', status: 'active' }],
      cookies: [{ type: 'first_party', name: 'sid', host: 'seeded.example', status: 'infrequent' }],
      previousWaf: { sensitivity: 'low' },
      wafOverrides: [{ urls: ['seeded.example/*'], rules: { '100015': 'disable' } }],
    });
    // As declared, with the defaults of what it did not declare.
    expect(zone).toEqual({ ...declared, migrationDelayMs: 0, legacyFirewall: 'available' });
    const auth = { token: 'zone-token-for-tests' };
    const scripts = await h.call('GET', `/zones/${zone.id}/page_guard/scripts`, { auth });
    expect(scripts.body.result).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{32}$/), url: 'https://app.seeded.example/a.js', host: 'app.seeded.example', status: 'active', js_integrity_score: 10 }]);
    expect((await h.call('GET', `/zones/${zone.id}/page_guard/cookies?status=infrequent`, { auth })).body.result).toHaveLength(1);
    expect((await h.call('GET', `/zones/${zone.id}/waf_migration/check?phase_two=1`, { auth })).body.result.compatible).toBe(false);
    const inventory = await h.emulator.admin.inventory(zone.id);
    expect(inventory.counts).toEqual({ scripts: 1, connections: 1, cookies: 1, cspPolicies: 0, filters: 0, firewallRules: 0, wafOverrides: 1, wafPackages: 2 });
    expect(inventory.waf).toMatchObject({ migration_state: 'start', previousWafEnabled: true });
  });

  test('seeding an existing id replaces that zone', async () => {
    const zone = h.zoneOf('enterprise');
    await h.emulator.admin.seedZone({ id: zone, name: 'acme-bank.example', plan: 'enterprise' });
    expect((await h.emulator.admin.inventory(zone)).counts.scripts).toBe(0);
  });

  test('a malformed seed is refused with the field named', async () => {
    const error = await h.emulator.admin.seedZone({ name: '', plan: 'gold' as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmulatorAdminError);
    expect((error as EmulatorAdminError).status).toBe(400);
    expect((error as Error).message).toBe('POST /zones: name: must not be empty; plan: must be one of "free", "pro", "business", "enterprise"');
  });

  test('removeZone forgets a zone', async () => {
    const zone = h.zoneOf('free');
    await h.emulator.admin.removeZone(zone);
    expect((await h.call('GET', `/zones/${zone}/page_guard`)).status).toBe(404);
    await expect(h.emulator.admin.inventory(zone)).rejects.toThrow(`GET /zones/${zone}/inventory: zone ${zone} not found`);
  });

  test('reset restores the starting seed and clears faults, the log and the counters', async () => {
    const zone = h.zoneOf('pro');
    await h.call('PUT', `/zones/${zone}/page_guard`, { body: { enabled: false } });
    await h.emulator.admin.seedZone({ name: 'extra.example', plan: 'free' });
    await h.emulator.admin.setFaults({ latencyMs: 5 });
    await h.emulator.admin.reset();
    expect((await h.call('GET', `/zones/${zone}/page_guard`)).body.result.enabled).toBe(true);
    expect(await h.emulator.admin.zones()).toHaveLength(4);
    const faults = (await fetch(`${h.emulator.adminUrl}/faults`).then((r) => r.json())) as { result: unknown };
    expect(faults.result).toEqual([]);
    // Only the one request after the reset is logged.
    expect((await h.emulator.admin.requests()).length).toBe(1);
  });

  test('the request log records method, path, query, status, zone and time of service requests only', async () => {
    const zone = h.zoneOf('pro');
    const before = Date.now();
    await h.call('GET', `/zones/${zone}/page_guard/scripts?per_page=5&status=active`);
    await h.call('GET', '/zones/not-a-zone/page_guard', { auth: 'none' });
    await h.emulator.admin.zones();
    const log = await h.emulator.admin.requests();
    expect(log).toEqual([
      { method: 'GET', path: `/client/v4/zones/${zone}/page_guard/scripts`, query: { per_page: '5', status: 'active' }, status: 200, zoneId: zone, at: expect.any(String) },
      { method: 'GET', path: '/client/v4/zones/not-a-zone/page_guard', query: {}, status: 403, zoneId: 'not-a-zone', at: expect.any(String) },
    ]);
    expect(Date.parse(log[0]!.at)).toBeGreaterThanOrEqual(before - 1000);
  });

  test('counters count by route template and by status', async () => {
    const zone = h.zoneOf('pro');
    await h.call('POST', `/zones/${zone}/firewall/rules`, { body: [{ filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block' }] });
    await h.call('POST', `/zones/${zone}/firewall/rules`, { body: [] });
    await h.call('GET', `/zones/${zone}/nothing-here`);
    expect(await h.emulator.admin.counters()).toEqual({
      total: 3,
      byRoute: { 'POST /zones/:zone_id/firewall/rules': 2, 'GET (no route)': 1 },
      byStatus: { '200': 1, '400': 1, '404': 1 },
    });
    await h.emulator.admin.clearRequests();
    expect(await h.emulator.admin.counters()).toEqual({ total: 0, byRoute: {}, byStatus: {} });
    expect(await h.emulator.admin.requests()).toEqual([]);
  });

  test('admin errors use the envelope too', async () => {
    const answer = await fetch(`${h.emulator.adminUrl}/zones/nope/inventory`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual(failure([7003, 'Could not route to /zones/nope, perhaps your object identifier is invalid?']));
  });
});

describe('credentials: add, rotate and revoke', () => {
  const settings = (zone: string) => `/zones/${zone}/page_guard`;
  const status = async (zone: string, auth: { token: string } | { email: string; key: string }) => (await h.call('GET', settings(zone), { auth })).status;
  const adminPost = async (path: string, body: unknown) => {
    const answer = await fetch(`${h.emulator.adminUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: answer.status, body: (await answer.json()) as unknown };
  };

  test('an added account token opens every zone beside the first, and info lists both', async () => {
    const grant = await h.emulator.admin.addToken();
    expect(grant).toEqual({ token: expect.stringMatching(/^zg_[A-Za-z0-9_-]{37}$/), zoneId: null });
    for (const zone of h.emulator.zones) expect(await status(zone.id, { token: grant.token })).toBe(200);
    expect(await status(h.zoneOf('pro'), { token: h.emulator.credentials.apiToken })).toBe(200);
    const { credentials } = await h.emulator.admin.info();
    expect(credentials.apiToken).toBe(h.emulator.credentials.apiToken);
    expect(credentials.tokens.slice(0, 2)).toEqual([
      { token: h.emulator.credentials.apiToken, zoneId: null },
      { token: grant.token, zoneId: null },
    ]);
  });

  test('an added zone token (its value chosen) opens that zone only', async () => {
    const zone = h.zoneOf('business');
    const grant = await h.emulator.admin.addToken({ zoneId: zone, token: 'zgz_second-business-token' });
    expect(grant).toEqual({ token: 'zgz_second-business-token', zoneId: zone });
    expect(await status(zone, grant)).toBe(200);
    expect(await status(h.zoneOf('pro'), grant)).toBe(403);
    expect((await h.emulator.admin.zones()).find((z) => z.id === zone)?.token).toBe(h.emulator.credentials.zoneTokens[zone]);
  });

  test('rotating the account token: the new one works at once, the old one answers 403 10000', async () => {
    const old = h.emulator.credentials.apiToken;
    const grant = await h.emulator.admin.rotateToken(old, 'zg_rotated-account-token');
    expect(grant).toEqual({ token: 'zg_rotated-account-token', zoneId: null });
    expect(await status(h.zoneOf('enterprise'), grant)).toBe(200);
    const refused = await h.call('GET', settings(h.zoneOf('enterprise')), { auth: { token: old } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(failure([10000, 'Authentication error: invalid API token']));
    // The rotated token takes the primary's place.
    expect((await h.emulator.admin.info()).credentials.apiToken).toBe('zg_rotated-account-token');
  });

  test("rotating a zone token keeps its scope; the zone's primary is the new one", async () => {
    const zone = h.zoneOf('free');
    const old = h.emulator.credentials.zoneTokens[zone]!;
    const grant = await h.emulator.admin.rotateToken(old);
    expect(grant).toEqual({ token: expect.stringMatching(/^zgz_[A-Za-z0-9_-]{36}$/), zoneId: zone });
    expect(await status(zone, grant)).toBe(200);
    expect(await status(h.zoneOf('pro'), grant)).toBe(403);
    expect(await status(zone, { token: old })).toBe(403);
    expect((await h.emulator.admin.zones()).find((z) => z.id === zone)?.token).toBe(grant.token);
  });

  test('revoking a token: it answers 403 at once, the others keep working', async () => {
    const old = h.emulator.credentials.apiToken;
    const added = await h.emulator.admin.addToken();
    expect(await h.emulator.admin.revokeToken(old)).toEqual({ token: old, zoneId: null });
    expect(await status(h.zoneOf('pro'), { token: old })).toBe(403);
    expect(await status(h.zoneOf('pro'), added)).toBe(200);
    expect((await h.emulator.admin.info()).credentials.apiToken).toBe(added.token);
  });

  test('the last token of the account or of a zone cannot be revoked (409 10027)', async () => {
    const zone = h.zoneOf('pro');
    await expect(h.emulator.admin.revokeToken(h.emulator.credentials.apiToken)).rejects.toThrow(
      'POST /credentials/tokens/revoke: token: the last API token of the account cannot be revoked; rotate it instead, or add another first',
    );
    const answer = await adminPost('/credentials/tokens/revoke', { token: h.emulator.credentials.zoneTokens[zone] });
    expect(answer).toEqual({
      status: 409,
      body: failure([10027, `token: the last API token of zone ${zone} cannot be revoked; rotate it instead, or add another first`]),
    });
    expect(await status(zone, { token: h.emulator.credentials.zoneTokens[zone]! })).toBe(200);
  });

  test('rotating the API key: the new key works with the same email, the old one answers 403 10000', async () => {
    const { apiEmail, apiKey: old } = h.emulator.credentials;
    const rotated = await h.emulator.admin.rotateKey();
    expect(rotated).toEqual({ apiEmail, apiKey: expect.stringMatching(/^[0-9a-f]{37}$/) });
    expect(await status(h.zoneOf('pro'), { email: apiEmail, key: rotated.apiKey })).toBe(200);
    const refused = await h.call('GET', settings(h.zoneOf('pro')), { auth: { email: apiEmail, key: old } });
    expect(refused.body).toEqual(failure([10000, 'Authentication error: invalid X-Auth-Email or X-Auth-Key']));
    expect((await h.emulator.admin.rotateKey('chosen-key')).apiKey).toBe('chosen-key');
  });

  test('reset brings the seeded credentials back and forgets added ones', async () => {
    const added = await h.emulator.admin.addToken();
    await h.emulator.admin.rotateToken(h.emulator.credentials.apiToken);
    await h.emulator.admin.reset();
    expect(await status(h.zoneOf('pro'), { token: h.emulator.credentials.apiToken })).toBe(200);
    expect(await status(h.zoneOf('pro'), added)).toBe(403);
  });

  test.each([
    ['an unknown token to rotate', '/credentials/tokens/rotate', { token: 'zg_never-issued' }, 404, 10013, 'token: not a token this emulator accepts (revoked, rotated, or never issued)'],
    ['an unknown token to revoke', '/credentials/tokens/revoke', { token: 'zg_never-issued' }, 404, 10013, 'token: not a token this emulator accepts (revoked, rotated, or never issued)'],
    ['a token on an unknown zone', '/credentials/tokens', { zoneId: '0123456789abcdef0123456789abcdef' }, 404, 10013, 'zone 0123456789abcdef0123456789abcdef not found'],
    ['a chosen value already in use', '/credentials/tokens', { token: 'zg_vMX9s5BshHEX8LnNptywXTGlAT1bkYjO-oAzx' }, 409, 10027, 'token: this value is already a token of this emulator; choose another or leave it out'],
    ['a new value with a space', '/credentials/tokens/rotate', { token: 'zg_vMX9s5BshHEX8LnNptywXTGlAT1bkYjO-oAzx', newToken: 'a b' }, 400, 1004, 'newToken: must be 1 to 200 visible ASCII characters, no spaces'],
    ['an unknown field', '/credentials/tokens', { zone: 'x' }, 400, 1004, 'unknown key "zone"'],
  ])('%s is refused and changes nothing', async (_name, path, body, code, errorCode, message) => {
    const before = (await h.emulator.admin.info()).credentials;
    expect(await adminPost(path, body)).toEqual({ status: code, body: failure([errorCode, message]) });
    expect((await h.emulator.admin.info()).credentials).toEqual(before);
  });
});
