import { failure, useEmulator } from './helpers';
import { FaultEngine, FaultSpecSchema } from '../../src/emulator/faults';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());
const settings = () => `/zones/${h.zoneOf('pro')}/page_guard`;

describe('injected faults', () => {
  test('latency delays every matching request', async () => {
    await h.emulator.admin.setFaults({ latencyMs: 250 });
    const started = Date.now();
    expect((await h.call('GET', settings())).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  test('serverErrors: the next N requests answer 5xx in the envelope, then the service answers again', async () => {
    await h.emulator.admin.setFaults({ serverErrors: 2, serverErrorStatus: 503 });
    for (let i = 0; i < 2; i++) {
      const answer = await h.call('GET', settings());
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual(failure([10001, 'Internal server error (injected fault, HTTP 503)']));
    }
    expect((await h.call('GET', settings())).status).toBe(200);
    const log = await h.emulator.admin.requests();
    expect(log.map((entry) => [entry.status, entry.fault])).toEqual([[503, 'serverErrors'], [503, 'serverErrors'], [200, undefined]]);
  });

  test('serverErrors default to 500', async () => {
    await h.emulator.admin.setFaults({ serverErrors: 1 });
    expect((await h.call('GET', settings())).status).toBe(500);
  });

  test('serverErrorRate 1 fails every request with 500, 502 or 503; 0 fails none', async () => {
    await h.emulator.admin.setFaults({ serverErrorRate: 1 });
    for (let i = 0; i < 10; i++) expect([500, 502, 503]).toContain((await h.call('GET', settings())).status);
    await h.emulator.admin.setFaults({ serverErrorRate: 0 });
    for (let i = 0; i < 5; i++) expect((await h.call('GET', settings())).status).toBe(200);
  });

  test('tooManyRequests: 429 code 971 with Retry-After, for the next N requests only', async () => {
    await h.emulator.admin.setFaults({ tooManyRequests: { count: 2, retryAfterSeconds: 7 } });
    for (let i = 0; i < 2; i++) {
      const answer = await h.call('GET', settings());
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toBe('7');
      expect(answer.body).toEqual(failure([971, 'Rate limited. Please wait and consider throttling your request speed']));
    }
    expect((await h.call('GET', settings())).status).toBe(200);
  });

  test('resetConnections: the connection is destroyed before any answer', async () => {
    await h.emulator.admin.setFaults({ resetConnections: 1 });
    await expect(h.call('POST', `/zones/${h.zoneOf('pro')}/filters`, { body: [{ expression: 'ip.src eq 192.0.2.1' }] })).rejects.toThrow('fetch failed');
    expect((await h.call('GET', `/zones/${h.zoneOf('pro')}/filters?expression=192.0.2.1`)).body.result).toEqual([]);
    const log = await h.emulator.admin.requests();
    expect(log[0]).toMatchObject({ method: 'POST', status: 0, fault: 'resetConnections', zoneId: h.zoneOf('pro') });
  });

  test('loseAnswers: the service acts, then a proxy 502 page replaces its answer, for the next N requests only', async () => {
    const filters = `/zones/${h.zoneOf('pro')}/filters`;
    await h.emulator.admin.setFaults({ loseAnswers: 1, match: { method: 'POST' } });
    const lost = await fetch(`${h.emulator.baseUrl}${filters}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emulator.credentials.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ expression: 'ip.src eq 192.0.2.7' }]),
    });
    expect(lost.status).toBe(502);
    expect(lost.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await lost.text()).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
    // The filter exists although its creator saw a 502.
    expect((await h.call('GET', `${filters}?expression=192.0.2.7`)).body.result).toEqual([expect.objectContaining({ expression: 'ip.src eq 192.0.2.7' })]);
    expect((await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.8' }] })).status).toBe(200);
    const log = await h.emulator.admin.requests();
    expect(log.map((entry) => [entry.method, entry.status, entry.fault])).toEqual([
      ['POST', 502, 'loseAnswers'],
      ['GET', 200, undefined],
      ['POST', 200, undefined],
    ]);
  });

  test("rateLimit: the service's own limit of N per window, then 429 code 971 with Retry-After until the block (a window) ends", async () => {
    await h.emulator.admin.setFaults({ rateLimit: { requests: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) expect((await h.call('GET', settings())).status).toBe(200);
    const limited = await h.call('GET', settings());
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(failure([971, 'Rate limited. Please wait and consider throttling your request speed']));
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  test.each<[string, { requests: number; windowMs: number; blockMs?: number }, number[], string[]]>([
    [
      // 2 per 1000 ms: the 3rd, at 1110, finds only 600 in the last 1000 ms (a fixed window restarted at 1110 would
      // count it alone too, but one started at 0 would refuse it); the 4th, at 1120, finds 600 and 1110: refused, and
      // the caller is blocked until 2120, so 1600 and 1700 are refused though the sliding window would admit 1600.
      'counts any window and blocks the caller for a window after it went over',
      { requests: 2, windowMs: 1000 },
      [0, 600, 1110, 1120, 1600, 1700, 2119, 2120],
      ['admitted', 'admitted', 'admitted', '429, Retry-After 1', '429, Retry-After 1', '429, Retry-After 1', '429, Retry-After 1', 'admitted'],
    ],
    [
      'blocks for blockMs, the refusals inside it not lengthening it',
      { requests: 1, windowMs: 1000, blockMs: 3000 },
      [0, 500, 1000, 2600, 3499, 3500],
      ['admitted', '429, Retry-After 3', '429, Retry-After 3', '429, Retry-After 1', '429, Retry-After 1', 'admitted'],
    ],
    [
      'with no block, refuses only while the window is full (refused requests not counted)',
      { requests: 2, windowMs: 1000, blockMs: 0 },
      [0, 600, 1110, 1120, 1600, 1700],
      ['admitted', 'admitted', 'admitted', '429, Retry-After 1', 'admitted', '429, Retry-After 1'],
    ],
  ])('rateLimit %s', (_name, rateLimit, times, expected) => {
    const engine = new FaultEngine();
    engine.set(FaultSpecSchema.parse({ rateLimit }));
    const answer = (now: number) => {
      const { outcome } = engine.decide('GET', '/zones', '/client/v4/zones', now);
      return outcome?.kind === 'answer' ? `429, Retry-After ${outcome.retryAfterSeconds}` : 'admitted';
    };
    expect(times.map(answer)).toEqual(expected);
  });

  test('ipRateLimit: per address, 200 a second by default; over it 429 code 971 with Retry-After 1, not counted, and not in the user\'s count', () => {
    const engine = new FaultEngine();
    engine.set(FaultSpecSchema.parse({ ipRateLimit: {}, rateLimit: { requests: 1000, windowMs: 60_000 } }));
    const answer = (now: number, ip: string) => {
      const { outcome, word } = engine.decide('GET', '/zones', '/client/v4/zones', now, Math.random, 'user', ip);
      return outcome?.kind === 'answer' ? `${outcome.status} ${outcome.code} ${outcome.fault}, Retry-After ${outcome.retryAfterSeconds}, ${word?.remaining}` : `admitted, ${word?.remaining}`;
    };
    for (let n = 0; n < 200; n++) answer(n, '192.0.2.1');
    // The 201st of the second from one address; another address and the next second are admitted.
    expect(answer(500, '192.0.2.1')).toBe('429 971 ipRateLimit, Retry-After 1, undefined');
    expect(answer(501, '192.0.2.2')).toBe('admitted, 799');
    expect(answer(999, '192.0.2.1')).toBe('429 971 ipRateLimit, Retry-After 1, undefined');
    expect(answer(1000, '192.0.2.1')).toBe('admitted, 798');
  });

  test('ipRateLimit over loopback: the answer a client gets past the limit, and the request log', async () => {
    await h.emulator.admin.setFaults({ ipRateLimit: { requests: 3 } });
    const answers = await Promise.all(Array.from({ length: 4 }, () => h.call('GET', settings())));
    const limited = answers.filter((answer) => answer.status === 429);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429]);
    expect(limited[0]!.body).toEqual(failure([971, 'Rate limited. Please wait and consider throttling your request speed']));
    expect(limited[0]!.headers.get('retry-after')).toBe('1');
    expect((await h.emulator.admin.requests()).filter((entry) => entry.fault === 'ipRateLimit')).toHaveLength(1);
  });

  test('rateLimit: a new window lets requests through again', async () => {
    await h.emulator.admin.setFaults({ rateLimit: { requests: 1, windowMs: 300 } });
    expect((await h.call('GET', settings())).status).toBe(200);
    const limited = await h.call('GET', settings());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await h.call('GET', settings())).status).toBe(200);
  });

  test('faults answer before credentials are checked, and a refused write changes nothing', async () => {
    await h.emulator.admin.setFaults({ tooManyRequests: { count: 2, retryAfterSeconds: 1 } });
    expect((await h.call('GET', settings(), { auth: 'none' })).status).toBe(429);
    expect((await h.call('PUT', settings(), { body: { enabled: false } })).status).toBe(429);
    expect((await h.call('GET', settings())).body.result.enabled).toBe(true);
  });

  test('match restricts a fault to a method and a path prefix; several specs combine', async () => {
    await h.emulator.admin.setFaults([
      { serverErrors: 5, match: { method: 'PUT' } },
      { tooManyRequests: { count: 5, retryAfterSeconds: 2 }, match: { pathPrefix: `/zones/${h.zoneOf('free')}/` } },
    ]);
    expect((await h.call('GET', settings())).status).toBe(200);
    expect((await h.call('PUT', settings(), { body: { enabled: true } })).status).toBe(500);
    expect((await h.call('GET', `/zones/${h.zoneOf('free')}/page_guard`)).status).toBe(429);
    // The absolute form of the prefix works too.
    await h.emulator.admin.setFaults({ serverErrors: 1, match: { pathPrefix: `/client/v4/zones/${h.zoneOf('enterprise')}` } });
    expect((await h.call('GET', settings())).status).toBe(200);
    expect((await h.call('GET', `/zones/${h.zoneOf('enterprise')}/page_guard`)).status).toBe(500);
  });

  test('clearFaults removes them, and the admin API is never faulted', async () => {
    await h.emulator.admin.setFaults({ serverErrorRate: 1 });
    expect((await h.emulator.admin.zones()).length).toBe(4);
    await h.emulator.admin.clearFaults();
    expect((await h.call('GET', settings())).status).toBe(200);
  });

  test.each([
    ['a value out of range', { serverErrorRate: 2 }, 'serverErrorRate: must be at most 1'],
    ['a misspelt field (serverError for serverErrors)', { serverError: 3 }, 'unknown key "serverError"'],
    ['a misspelt match field', { latencyMs: 1, match: { path: '/zones' } }, 'match: unknown key "path"'],
    ['a latency a timer cannot wait', { latencyMs: 2 ** 53 - 1 }, 'latencyMs: must be at most 600000 (10 minutes)'],
    ['in an array, the index and the field', [{ latencyMs: 1 }, { serverErrors: -1, resetConnection: 1 }], '1.serverErrors: must be at least 0; 1: unknown key "resetConnection"'],
  ])('a malformed fault spec is refused with the field named: %s, and nothing is set', async (_name, spec, message) => {
    await h.emulator.admin.setFaults({ latencyMs: 0 });
    await expect(h.emulator.admin.setFaults(spec as never)).rejects.toThrow(`PUT /faults: ${message}`);
    const faults = (await fetch(`${h.emulator.adminUrl}/faults`).then((r) => r.json())) as { result: { latencyMs?: number }[] };
    expect(faults.result.map((f) => f.latencyMs)).toEqual([0]);
  });

  test('a migration delay past a day is refused when seeding, and nothing is seeded', async () => {
    await expect(h.emulator.admin.seedZone({ name: 'slow.example', plan: 'pro', migrationDelayMs: 2 ** 53 - 1 })).rejects.toThrow(
      'POST /zones: migrationDelayMs: must be at most 86400000 (a day)',
    );
    await expect(h.emulator.admin.seedZone({ name: 'typo.example', plan: 'pro', migrationDelay: 5 } as never)).rejects.toThrow('POST /zones: unknown key "migrationDelay"');
    expect((await h.emulator.admin.zones()).map((z) => z.name)).not.toContain('slow.example');
  });
});

describe('the rate limit headers (docs/service.md#rate-limit)', () => {
  const said = (answer: { headers: Headers }) => [answer.headers.get('ratelimit'), answer.headers.get('ratelimit-policy')];

  test('without a rateLimit fault the emulator enforces no limit, and says none', async () => {
    expect(said(await h.call('GET', settings()))).toEqual([null, null]);
  });

  test("a rateLimit fault is the limit the headers say, counted across the user's tokens and key", async () => {
    await h.emulator.admin.setFaults({ rateLimit: { requests: 3, windowMs: 2000 } });
    const { token } = await h.emulator.admin.addToken({});
    const { apiEmail, apiKey } = h.emulator.credentials;
    expect(said(await h.call('GET', settings()))).toEqual(['"default";r=2;t=2', '"default";q=3;w=2']);
    expect(said(await h.call('GET', settings(), { auth: { token } }))).toEqual(['"default";r=1;t=2', '"default";q=3;w=2']);
    expect(said(await h.call('GET', settings(), { auth: { email: apiEmail, key: apiKey } }))).toEqual(['"default";r=0;t=2', '"default";q=3;w=2']);
    const refused = await h.call('GET', settings(), { auth: { token } });
    expect(refused.status).toBe(429);
    expect(said(refused)).toEqual(['"default";r=0;t=2', '"default";q=3;w=2']);
    // A refusal for the credentials is counted too, as the service counts it.
    await h.emulator.admin.setFaults({ rateLimit: { requests: 3, windowMs: 2000 } });
    const denied = await h.call('GET', settings(), { auth: { token: 'not-a-token' } });
    expect(denied.status).toBe(403);
    expect(said(denied)).toEqual(['"default";r=2;t=2', '"default";q=3;w=2']);
  });

  test('rateLimitHeaders false: the limit is enforced and not said', async () => {
    await h.emulator.admin.setFaults({ rateLimit: { requests: 1, windowMs: 2000 }, rateLimitHeaders: false });
    expect(said(await h.call('GET', settings()))).toEqual([null, null]);
    expect((await h.call('GET', settings())).status).toBe(429);
  });
});
