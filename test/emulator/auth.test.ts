import { failure, UNKNOWN_ZONE, useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

const settings = (zone: string) => `/zones/${zone}/page_guard`;

describe('the two forms of credentials', () => {
  test('the account token opens every zone', async () => {
    for (const zone of h.emulator.zones) expect((await h.call('GET', settings(zone.id))).status).toBe(200);
  });

  test('the email and key pair opens every zone (the email in any case)', async () => {
    const { apiEmail, apiKey } = h.emulator.credentials;
    expect((await h.call('GET', settings(h.zoneOf('pro')), { auth: { email: apiEmail, key: apiKey } })).status).toBe(200);
    expect((await h.call('GET', settings(h.zoneOf('pro')), { auth: { email: apiEmail.toUpperCase(), key: apiKey } })).status).toBe(200);
  });

  test('a zone token opens its own zone', async () => {
    const zone = h.zoneOf('business');
    const answer = await h.call('GET', settings(zone), { auth: { token: h.emulator.credentials.zoneTokens[zone]! } });
    expect(answer.status).toBe(200);
  });
});

describe('refusals: 403 code 10000', () => {
  test.each([
    ['no credentials', 'none' as const, 'Authentication error: send Authorization: Bearer <token>, or X-Auth-Email and X-Auth-Key'],
    ['a wrong token', { token: 'zg_not-the-token' }, 'Authentication error: invalid API token'],
    ['a Basic authorization', { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } }, 'Authentication error: invalid API token'],
    ['a wrong key', { email: 'admin@acme.example', key: 'wrong' }, 'Authentication error: invalid X-Auth-Email or X-Auth-Key'],
    ['a wrong email', { email: 'someone@acme.example', key: 'x' }, 'Authentication error: invalid X-Auth-Email or X-Auth-Key'],
    ['an email without a key', { headers: { 'x-auth-email': 'admin@acme.example' } }, 'Authentication error: invalid X-Auth-Email or X-Auth-Key'],
  ])('%s', async (_name, auth, message) => {
    const answer = await h.call('GET', settings(h.zoneOf('pro')), { auth });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(failure([10000, message]));
  });

  test("zone A's token on zone B is refused and changes nothing", async () => {
    const a = h.zoneOf('business');
    const b = h.zoneOf('free');
    const auth = { token: h.emulator.credentials.zoneTokens[a]! };
    const put = await h.call('PUT', settings(b), { body: { enabled: true }, auth });
    expect(put.status).toBe(403);
    expect(put.body).toEqual(failure([10000, `Authentication error: the API token is not valid for zone ${b}`]));
    const post = await h.call('POST', `/zones/${b}/firewall/rules`, { body: [{ filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block' }], auth });
    expect(post.status).toBe(403);
    const inventory = await h.emulator.admin.inventory(b);
    expect(inventory.pageGuard?.enabled).toBe(false);
    expect(inventory.counts.firewallRules).toBe(0);
    expect(inventory.counts.filters).toBe(0);
  });

  test('a wrong token on a write changes nothing', async () => {
    const zone = h.zoneOf('enterprise');
    const before = await h.emulator.admin.inventory(zone);
    const answer = await h.call('POST', `/zones/${zone}/page_guard/policies`, {
      body: { description: 'x', action: 'log', expression: 'true', enabled: true, value: "script-src 'self'" },
      auth: { token: 'nope' },
    });
    expect(answer.status).toBe(403);
    expect(await h.emulator.admin.inventory(zone)).toEqual(before);
  });

  test('a zone token on an unknown zone is refused without telling whether it exists', async () => {
    const zone = h.zoneOf('pro');
    const answer = await h.call('GET', settings(UNKNOWN_ZONE), { auth: { token: h.emulator.credentials.zoneTokens[zone]! } });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(failure([10000, `Authentication error: the API token is not valid for zone ${UNKNOWN_ZONE}`]));
  });

  test('credentials are checked before the body is looked at', async () => {
    const answer = await h.call('POST', `/zones/${h.zoneOf('pro')}/filters`, { rawBody: '{not json', auth: 'none' });
    expect(answer.status).toBe(403);
  });
});

describe('tokens allowed some APIs only (docs/service.md#authentication)', () => {
  test('a token allowed the rulesets: its rules are written, page security and firewall rules are refused and change nothing', async () => {
    const zone = h.zoneOf('pro');
    const { token, apis } = await h.emulator.admin.addToken({ zoneId: zone, apis: ['rulesets'] });
    expect(apis).toEqual(['rulesets']);
    const auth = { token };
    const before = await h.emulator.admin.inventory(zone);
    const rules = await h.call('PUT', `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
      body: { rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1' }] },
      auth,
    });
    expect(rules.status).toBe(200);
    const put = await h.call('PUT', settings(zone), { body: { enabled: false }, auth });
    expect(put.status).toBe(403);
    expect(put.body).toEqual(failure([10000, `Authentication error: the API token is not allowed the page_guard API of zone ${zone}`]));
    const policies = await h.call('GET', `/zones/${zone}/page_guard/policies`, { auth });
    expect(policies.body).toEqual(failure([10000, `Authentication error: the API token is not allowed the page_guard/policies API of zone ${zone}`]));
    const post = await h.call('POST', `/zones/${zone}/firewall/rules`, { body: [{ filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block' }], auth });
    expect(post.status).toBe(403);
    const after = await h.emulator.admin.inventory(zone);
    expect(after.pageGuard).toEqual(before.pageGuard);
    expect(after.counts.firewallRules).toBe(before.counts.firewallRules);
  });

  test('the zone is checked first: a zone token allowed an API is refused on another zone as not valid there', async () => {
    const { token } = await h.emulator.admin.addToken({ zoneId: h.zoneOf('pro'), apis: ['page_guard'] });
    const other = h.zoneOf('free');
    const answer = await h.call('GET', settings(other), { auth: { token } });
    expect(answer.body).toEqual(failure([10000, `Authentication error: the API token is not valid for zone ${other}`]));
  });

  test('a rotated token keeps its APIs; a revoked one forgets them; the list is in the credentials', async () => {
    const zone = h.zoneOf('pro');
    const { token } = await h.emulator.admin.addToken({ apis: ['filters', 'firewall/rules'] });
    const rotated = await h.emulator.admin.rotateToken(token);
    expect(rotated.apis).toEqual(['filters', 'firewall/rules']);
    expect((await h.call('GET', `/zones/${zone}/filters`, { auth: { token: rotated.token } })).status).toBe(200);
    expect((await h.call('GET', settings(zone), { auth: { token: rotated.token } })).status).toBe(403);
    expect((await h.emulator.admin.info()).credentials.tokens).toContainEqual({ token: rotated.token, zoneId: null, apis: ['filters', 'firewall/rules'] });
    await h.emulator.admin.revokeToken(rotated.token);
    expect((await h.call('GET', `/zones/${zone}/filters`, { auth: { token: rotated.token } })).status).toBe(403);
    expect(JSON.stringify(await h.emulator.admin.info())).not.toContain(rotated.token);
  });

  test('an API the emulator does not know is refused at the admin API, naming the ones it knows', async () => {
    await expect(h.emulator.admin.addToken({ apis: ['dns' as never] })).rejects.toThrow(/apis\.0: .*page_guard/);
  });
});

describe('zones and routes', () => {
  test('an unknown zone is a 404', async () => {
    const answer = await h.call('GET', settings(UNKNOWN_ZONE));
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([10013, `zone ${UNKNOWN_ZONE} not found`]));
  });

  test('a malformed zone id is a 400 code 7003', async () => {
    const answer = await h.call('GET', '/zones/example.com/page_guard');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failure([7003, 'Could not route to /zones/example.com/page_guard, perhaps your object identifier is invalid?']));
  });

  test('an unknown path is a 404 code 7000', async () => {
    for (const path of [`/zones/${h.zoneOf('pro')}/page_guard/widgets`, '/user/tokens/verify']) {
      const answer = await h.call('GET', path);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual(failure([7000, 'No route for that URI']));
    }
  });

  test('an unsupported method is a 404 code 7000', async () => {
    const answer = await h.call('PATCH', `/zones/${h.zoneOf('pro')}/page_guard`, { body: { enabled: true } });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([7000, 'No route for that URI']));
  });
});

describe('bodies', () => {
  test('malformed JSON is a 400 code 1001 saying what the parser found', async () => {
    const answer = await h.call('PUT', settings(h.zoneOf('pro')), { rawBody: '{"enabled": tru}' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failure([1001, `Malformed JSON in request body: Unexpected token '}', "{"enabled": tru}" is not valid JSON`]));
  });

  test.each([
    ['a form', 'enabled=true', 'application/x-www-form-urlencoded'],
    ['JSON sent as text/plain', '{"enabled":false}', 'text/plain'],
  ])('%s is a 415 code 1001 and changes nothing', async (_name, rawBody, contentType) => {
    const answer = await h.call('PUT', settings(h.zoneOf('pro')), { rawBody, contentType });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual(failure([1001, `Content-Type must be application/json, got ${contentType}`]));
    expect((await h.call('GET', settings(h.zoneOf('pro')))).body.result.enabled).toBe(true);
  });

  test('a JSON body with a charset parameter is accepted', async () => {
    const answer = await h.call('PUT', settings(h.zoneOf('pro')), { body: { enabled: false }, contentType: 'application/json; charset=utf-8' });
    expect(answer.status).toBe(200);
  });

  test('a body over 1 MiB is a 413', async () => {
    const answer = await h.call('PUT', settings(h.zoneOf('pro')), { rawBody: JSON.stringify({ enabled: true, pad: 'x'.repeat(1_100_000) }) });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(failure([1001, 'Request body is larger than 1048576 bytes']));
  });
});
