import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  RateLimitedError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  ZoneGuardClient,
  type ClientLogger,
  type ZoneGuardClientOptions,
} from '../../src/client';
import { freePort } from './redis-server';
import { fail, json, ok, StubServer } from './stub-server';

// Corner cases of the transport against a scripted loopback server; endpoint behaviour is tested against the emulator.

const ZONE = '0123456789abcdef0123456789abcdef';
const ID = 'fedcba9876543210fedcba9876543210';
const TOKEN = 'tok-SUPER-secret-0123456789';
const KEY = 'key-SUPER-secret-abcdef';
/**
 * A zone of its own for a test whose stub answers 403: the client then sends nothing more to that zone with that
 * credential in this process (src/client/refused-credentials.ts), so the other tests keep ZONE.
 */
let refusedZones = 0;
const refusedZone = () => `ee${(refusedZones += 1).toString(16).padStart(30, '0')}`;

const stub = new StubServer();
beforeAll(() => stub.start());
afterAll(() => stub.close());
beforeEach(() => stub.reset());

function client(options: Partial<ZoneGuardClientOptions> = {}): ZoneGuardClient {
  return new ZoneGuardClient({ baseUrl: stub.baseUrl, credentials: { apiToken: TOKEN }, rateBudget: false, ...options });
}

const policy = { id: ID, description: 'd', action: 'log', expression: 'http.host eq "x"', enabled: 'true', value: "script-src 'self'" };

describe('what goes on the wire', () => {
  it('sends the token as a Bearer, JSON headers and the user agent', async () => {
    stub.next((_req, res) => json(res, 200, ok({ enabled: true })));
    await client({ userAgent: 'zoneguard-test/1' }).pageGuard.update({ zoneId: ZONE, enabled: true });
    const [seen] = stub.seen;
    expect(seen!.method).toBe('PUT');
    expect(seen!.url).toBe(`/client/v4/zones/${ZONE}/page_guard`);
    expect(seen!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(seen!.headers['x-auth-key']).toBeUndefined();
    expect(seen!.headers['content-type']).toBe('application/json');
    expect(seen!.headers['accept']).toBe('application/json');
    expect(seen!.headers['user-agent']).toBe('zoneguard-test/1');
    expect(JSON.parse(seen!.body)).toEqual({ enabled: true });
  });

  it('sends an email and key as X-Auth-Email and X-Auth-Key', async () => {
    stub.next((_req, res) => json(res, 200, ok({ enabled: false })));
    await client({ credentials: { apiEmail: 'ops@example.com', apiKey: KEY } }).pageGuard.get({ zoneId: ZONE });
    const [seen] = stub.seen;
    expect(seen!.headers['x-auth-email']).toBe('ops@example.com');
    expect(seen!.headers['x-auth-key']).toBe(KEY);
    expect(seen!.headers['authorization']).toBeUndefined();
  });

  it.each([
    [true, 'true'],
    [false, 'false'],
    ['true', 'true'],
    ['false', 'false'],
  ] as const)('sends CSP enabled %j as the text %j', async (enabled, wire) => {
    stub.next((_req, res) => json(res, 200, ok(policy)));
    await client().cspPolicies.create({ zoneId: ZONE, description: 'd', action: 'log', expression: 'true', enabled, value: "script-src 'self'" });
    expect(JSON.parse(stub.seen[0]!.body).enabled).toBe(wire);
  });

  it.each([
    ['true', true],
    [true, true],
    ['false', false],
    [false, false],
  ])('reads CSP enabled %j as %j', async (wire, expected) => {
    stub.next((_req, res) => json(res, 200, ok({ ...policy, enabled: wire })));
    expect((await client().cspPolicies.get({ zoneId: ZONE, policyId: ID })).enabled).toBe(expected);
  });

  it('sends the firewall rules as a JSON array with string actions', async () => {
    stub.next((_req, res) => json(res, 200, ok([{ id: ID, paused: false, action: 'block', filter: { id: ID, expression: 'ip.src eq 192.0.2.1', paused: false } }])));
    const rules = await client().firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'ip.src eq 192.0.2.1' } }] });
    expect(JSON.parse(stub.seen[0]!.body)).toEqual([{ action: 'block', filter: { expression: 'ip.src eq 192.0.2.1' } }]);
    expect(rules.map((r) => r.filter.id)).toEqual([ID]);
  });

  it('puts phase_two=1 and waf_migration on the entry point update', async () => {
    stub.next((_req, res) => json(res, 200, ok({ id: ID, name: 'default', rules: [] })));
    await client().wafMigration.updateEntrypoint({ zoneId: ZONE, mode: 'validation', ruleset: { name: 'default', rules: [] } });
    expect(stub.seen[0]!.url).toBe(
      `/client/v4/zones/${ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=validation&phase_two=1`,
    );
  });

  it('encodes ids so that they stay in their path segment', async () => {
    stub.next((_req, res) => json(res, 404, fail(10013, 'not found')));
    await expect(client().cspPolicies.get({ zoneId: ZONE, policyId: '../../x?y=1' })).rejects.toBeInstanceOf(Error);
    expect(stub.seen[0]!.url).toBe(`/client/v4/zones/${ZONE}/page_guard/policies/..%2F..%2Fx%3Fy%3D1`);
    expect(() => client().cspPolicies.get({ zoneId: ZONE, policyId: '..' })).toThrow(
      new TypeError('path segment must be a non-empty identifier, got ".."'),
    );
  });

  it('does not follow a redirect, so the credentials never reach another host', async () => {
    const other = await new StubServer().start();
    try {
      stub.next((_req, res) => {
        res.writeHead(302, { location: `${other.baseUrl}/zones/${ZONE}/page_guard` });
        res.end();
      });
      const error = await client().pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as Error).message).toBe(`GET /zones/${ZONE}/page_guard failed: HTTP 302`);
      expect(other.seen).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe('answers that are not what the schema says', () => {
  it('accepts a 204 with no body on policy delete', async () => {
    stub.next((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(client().cspPolicies.delete({ zoneId: ZONE, policyId: ID })).resolves.toBeUndefined();
    expect(stub.seen[0]!.method).toBe('DELETE');
  });

  it('refuses an empty 200 where a result is expected', async () => {
    stub.next((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const error = await client().pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toBe(
      `GET /zones/${ZONE}/page_guard answered HTTP 200 with an unexpected body: body is empty, expected the response envelope`,
    );
  });

  it('refuses a body that is not JSON', async () => {
    stub.next((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    await expect(client().pageGuard.get({ zoneId: ZONE })).rejects.toThrow(
      new ResponseValidationError(`GET /zones/${ZONE}/page_guard answered HTTP 200 with an unexpected body: body is not JSON`, {
        method: 'GET',
        path: '',
        issues: [],
      }),
    );
  });

  it("names every field of the result that does not match, in our words (not zod's)", async () => {
    stub.next((_req, res) => json(res, 200, ok({ enabled: 'yes', updated_at: 'yesterday' })));
    const error = (await client().pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues).toEqual(['result.enabled: must be true or false', 'result.updated_at: must be a valid datetime']);
    expect(error.status).toBe(200);
  });

  it('locates a bad item of a list by its index', async () => {
    stub.next((_req, res) => json(res, 200, ok([{ ...policy }, { ...policy, id: 'nope' }])));
    const error = (await client().cspPolicies.list({ zoneId: ZONE }).toArray().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error.issues).toEqual(['result.1.id: must be an identifier: 32 lowercase hexadecimal characters']);
  });

  it('refuses a body that is not the envelope', async () => {
    stub.next((_req, res) => json(res, 200, { enabled: true }));
    const error = (await client().pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error.issues).toEqual([
      'result: is required',
      'success: is required',
      'errors: is required',
    ]);
  });

  it('tolerates fields the schemas do not know, and drops them', async () => {
    stub.next((_req, res) => json(res, 200, ok({ enabled: true, brand_new_field: 1 }, { new_envelope_field: true })));
    expect(await client().pageGuard.get({ zoneId: ZONE })).toEqual({ enabled: true });
  });

  it('treats a 200 whose envelope says success false as a refusal', async () => {
    stub.next((_req, res) => json(res, 200, fail(1004, 'enabled: required')));
    await expect(client().pageGuard.update({ zoneId: ZONE, enabled: true })).rejects.toThrow(
      `PUT /zones/${ZONE}/page_guard failed: HTTP 200: 1004 enabled: required`,
    );
  });

  it('keeps the status of a proxy error page that is not JSON', async () => {
    stub.always((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const error = (await client({ retry: false }).pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(502);
    expect(error.message).toBe(`GET /zones/${ZONE}/page_guard failed: HTTP 502 Bad Gateway`);
  });
});

describe('how an answer is decoded', () => {
  // The transport reads the answer as bytes and decodes it once (docs/client.md#list-walk-cost), as got's text did.
  it('reads UTF-8 split between chunks, after a byte order mark', async () => {
    const description = 'caf\u00e9 \u2713 \u{1F512}';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(ok({ ...policy, description })))]);
    const cut = bytes.indexOf(Buffer.from('\u2713')) + 1;
    stub.next((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 20);
    });
    expect((await client().cspPolicies.get({ zoneId: ZONE, policyId: ID })).description).toBe(description);
  });

  it('shows a malformed byte of a refusal as U+FFFD', async () => {
    const text = JSON.stringify(fail(1004, 'bad XX here'));
    const bytes = Buffer.from(text.replace('XX', '\u0000'));
    bytes[bytes.indexOf(0)] = 0xff;
    stub.next((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.end(bytes);
    });
    await expect(client({ retry: false }).pageGuard.get({ zoneId: ZONE })).rejects.toThrow('1004 bad \ufffd here');
  });
});

describe('retries', () => {
  it('honours an HTTP-date Retry-After', async () => {
    // HTTP-dates have whole seconds: 2 s ahead is a wait of 1-2 s depending on where in the second we are.
    const retryAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 2000);
    stub.next((_req, res) => json(res, 429, fail(971, 'Rate limited'), { 'retry-after': retryAt.toUTCString() }));
    stub.next((_req, res) => json(res, 200, ok({ enabled: true })));
    await client({ retry: { baseDelayMs: 1 } }).pageGuard.get({ zoneId: ZONE });
    expect(stub.seen).toHaveLength(2);
    expect(stub.seen[1]!.at).toBeGreaterThanOrEqual(retryAt.getTime() - 50);
  });

  it('gives up at once on a Retry-After longer than maxRetryAfterMs', async () => {
    stub.next((_req, res) => json(res, 429, fail(971, 'Rate limited'), { 'retry-after': '600' }));
    const error = (await client({ retry: { maxRetryAfterMs: 1000 } }).pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterMs).toBe(600_000);
    expect(error.attempts).toBe(1);
    expect(stub.seen).toHaveLength(1);
  });

  it('does not start a retry that would end past the deadline', async () => {
    stub.always((_req, res) => json(res, 503, fail(10001, 'down'), { 'retry-after': '1' }));
    const started = Date.now();
    const error = (await client({ retry: { deadlineMs: 500 } }).pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('retries a POST whose connection was refused, since it never left', async () => {
    const port = await freePort();
    const events: string[] = [];
    const refused = new ZoneGuardClient({
      baseUrl: `http://127.0.0.1:${port}/client/v4`,
      credentials: { apiToken: TOKEN },
      rateBudget: false,
      retry: { maxAttempts: 3, baseDelayMs: 5 },
      logger: { onRetry: (e) => events.push(`${e.method} ${e.attempt} ${e.reason}`) },
    });
    const error = (await refused.firewallRules
      .create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'true' } }] })
      .catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.attempts).toBe(3);
    expect(error.message).toBe(`POST /zones/${ZONE}/firewall/rules failed: connection error ECONNREFUSED, no answer from the service`);
    expect(events).toEqual(['POST 1 ECONNREFUSED', 'POST 2 ECONNREFUSED']);
  });

  it('times out an attempt that gets no answer, and retries a GET', async () => {
    stub.always(() => undefined); // never answers
    const error = (await client({ timeoutMs: 100, retry: { maxAttempts: 2, baseDelayMs: 1 } })
      .pageGuard.get({ zoneId: ZONE })
      .catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.timeoutMs).toBe(100);
    expect(error.attempts).toBe(2);
    expect(error.message).toBe(`GET /zones/${ZONE}/page_guard failed: no answer within 100 ms`);
  });
});

describe('credentials stay secret', () => {
  const both = [
    { apiToken: TOKEN },
    { apiEmail: 'ops@example.com', apiKey: KEY },
  ];

  it.each(both)('are not on the client object (%#)', (credentials) => {
    const c = client({ credentials });
    const shown = [JSON.stringify(c), inspect(c, { depth: Infinity, showHidden: true, getters: true })].join('\n');
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toContain(KEY);
    expect(shown).not.toMatch(/SUPER-secret/);
    expect(JSON.parse(JSON.stringify(c))).toEqual({
      baseUrl: stub.baseUrl,
      pageGuard: {},
      scripts: {},
      connections: {},
      cookies: {},
      cspPolicies: {},
      firewallRules: {},
      filters: {},
      wafMigration: {},
      wafOverrides: {},
      wafPackages: {},
      rulesets: {},
    });
  });

  it.each(both)('are not in errors or log events (%#)', async (credentials) => {
    const events: unknown[] = [];
    const logger: ClientLogger = {
      onRequest: (e) => events.push(e),
      onResponse: (e) => events.push(e),
      onRetry: (e) => events.push(e),
      onThrottle: (e) => events.push(e),
    };
    stub.next((_req, res) => json(res, 503, fail(10001, 'down')));
    stub.next((_req, res) => json(res, 403, fail(10000, 'Authentication error: invalid API token')));
    const error = (await client({ credentials, logger, retry: { baseDelayMs: 1 } }).pageGuard.get({ zoneId: refusedZone() }).catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(events).toHaveLength(5); // request, response 503, retry, request, response 403
    const shown = [error.message, error.stack, JSON.stringify(error), inspect(error, { depth: Infinity, showHidden: true }), JSON.stringify(events)].join('\n');
    expect(shown).not.toMatch(/SUPER-secret/);
  });

  it('refuses plain http to a host that is not loopback, before any request', () => {
    expect(
      () => new ZoneGuardClient({ baseUrl: 'http://api.example.com/client/v4', credentials: { apiToken: TOKEN } }),
    ).toThrow(
      new TypeError('baseUrl: refusing to send credentials over plain http to api.example.com: use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)'),
    );
  });

  it('does not echo a credential it refuses', () => {
    let message = '';
    try {
      new ZoneGuardClient({ baseUrl: stub.baseUrl, credentials: { apiToken: `${TOKEN}\n` } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'credentials.apiToken: has a line break (U+000A) at position 28, which a request header cannot carry; copy it again without spaces or line breaks',
    );
  });
});

describe('hostile answers', () => {
  const path = `/zones/${ZONE}/page_guard`;

  /** Starts a 200 answer, sends `sent` bytes of it, then destroys the socket. */
  const cutAfter = (sent: string, headers: Record<string, string>) => (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.write(sent);
    setTimeout(() => res.socket?.destroy(), 10);
  };

  it('stops reading an answer whose Content-Length passes maxResponseBytes, and says so', async () => {
    stub.next((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(600 * 1024 * 1024) });
      res.write('{"success":true,"result":"');
    });
    const error = (await client({ maxResponseBytes: 1024 }).pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as ResponseTooLargeError;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.message).toBe(
      `GET ${path} failed: the answer (HTTP 200) is larger than 1024 bytes, the client's maxResponseBytes; it was not read further`,
    );
    expect(error.limitBytes).toBe(1024);
    expect(stub.seen).toHaveLength(1); // not retried: the same answer would come again
  });

  it('stops reading a chunked answer once it passes maxResponseBytes', async () => {
    stub.next((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(chunk)), 1);
      res.on('close', () => clearInterval(timer));
    });
    const error = (await client({ maxResponseBytes: 256 * 1024 }).pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as ResponseTooLargeError;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.message).toBe(
      `GET ${path} failed: the answer (HTTP 503 Service Unavailable) is larger than 262144 bytes, the client's maxResponseBytes; it was not read further`,
    );
    expect(stub.seen).toHaveLength(1);
  });

  it('reads an answer of exactly maxResponseBytes', async () => {
    const body = JSON.stringify(ok({ enabled: true }));
    stub.next((_req, res) => json(res, 200, ok({ enabled: true })));
    expect((await client({ maxResponseBytes: Buffer.byteLength(body) }).pageGuard.get({ zoneId: ZONE })).enabled).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxResponseBytes %p at the constructor', (maxResponseBytes) => {
    expect(() => client({ maxResponseBytes })).toThrow(
      new TypeError(`maxResponseBytes must be a whole number of bytes of at least 1, got ${String(maxResponseBytes)}`),
    );
  });

  it.each([
    ['with a Content-Length', { 'content-length': '4096' }],
    ['chunked', {}],
  ])('retries a GET whose answer was cut off %s, as a reset', async (_name, headers) => {
    const retries: string[] = [];
    stub.next(cutAfter('{"success":true,', headers));
    stub.next((_req, res) => json(res, 200, ok({ enabled: true })));
    const settings = await client({ retry: { baseDelayMs: 1 }, logger: { onRetry: (e) => retries.push(e.reason) } }).pageGuard.get({ zoneId: ZONE });
    expect(settings.enabled).toBe(true);
    expect(retries).toEqual(['ECONNRESET']);
    expect(stub.seen).toHaveLength(2);
  });

  it('says the answer was cut off when every attempt was', async () => {
    stub.always(cutAfter('{"success":true,', { 'content-length': '4096' }));
    const error = (await client({ retry: { baseDelayMs: 1, maxAttempts: 3 } }).pageGuard.update({ zoneId: ZONE, enabled: true }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(`PUT ${path} failed: the answer was cut off (ECONNRESET)`);
    expect(error.code).toBe('ECONNRESET');
    expect(error.attempts).toBe(3);
  });

  it('does not repeat a POST whose answer was cut off: the service acted on it', async () => {
    stub.always(cutAfter('{"success":true,', { 'content-length': '4096' }));
    const error = (await client({ retry: { baseDelayMs: 1 } })
      .firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'ip.src eq 192.0.2.1' } }] })
      .catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(`POST /zones/${ZONE}/firewall/rules failed: the answer was cut off (ECONNRESET)`);
    expect(stub.seen).toHaveLength(1);
  });
});

describe('a credential the server quotes is masked in errors', () => {
  const SLASHED = 'tok/with/slashes-SUPER-secret';
  const shownOf = (error: Error) => [error.message, error.stack, JSON.stringify(error), inspect(error, { depth: Infinity, showHidden: true })].join('\n');

  it.each([
    ['a 403 quoting the token', { apiToken: TOKEN }, 403, `invalid token ${TOKEN}`, `403 Forbidden: 10000 invalid token ***`],
    ['a 400 quoting the key', { apiEmail: 'ops@example.com', apiKey: KEY }, 400, `key "${KEY}" rejected`, `400 Bad Request: 1004 key "***" rejected`],
    ['a 500 quoting the percent-encoded token', { apiToken: SLASHED }, 500, `bad ${encodeURIComponent(SLASHED)}`, '500 Internal Server Error: 10001 bad ***'],
  ])('%s', async (_name, credentials, status, quoted, shown) => {
    stub.always((_req, res) => json(res, status, fail(status === 500 ? 10001 : status === 403 ? 10000 : 1004, quoted)));
    const zone = refusedZone();
    const error = (await client({ credentials, retry: false }).pageGuard.get({ zoneId: zone }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`GET /zones/${zone}/page_guard failed: HTTP ${shown}`);
    expect(shownOf(error)).not.toMatch(/SUPER-secret/);
  });

  it('masks a token a server escapes as \\/ in its JSON (PHP does)', async () => {
    stub.always((_req, res) => {
      const text = `{"success":false,"errors":[{"code":10000,"message":"bad ${SLASHED.replace(/\//g, '\\/')}"}],"messages":[],"result":null}`;
      res.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    const zone = refusedZone();
    const error = (await client({ credentials: { apiToken: SLASHED }, retry: false }).pageGuard.get({ zoneId: zone }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`GET /zones/${zone}/page_guard failed: HTTP 403 Forbidden: 10000 bad ***`);
  });

  it('masks a token quoted in a 200 whose envelope says success false', async () => {
    stub.always((_req, res) => json(res, 200, fail(10000, `token ${TOKEN} expired`)));
    const error = (await client({ retry: false }).pageGuard.get({ zoneId: ZONE }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`GET /zones/${ZONE}/page_guard failed: HTTP 200: 10000 token *** expired`);
    expect(shownOf(error)).not.toMatch(/SUPER-secret/);
  });
});

describe('a credential a header cannot carry', () => {
  it.each([
    [`${TOKEN}\n`, 'a line break (U+000A) at position 28'],
    [`tok en`, 'a space (U+0020) at position 4'],
    ['tokén-1234', 'a character outside ASCII (U+00E9) at position 4'],
    ['tok\u2028x', 'a character outside ASCII (U+2028) at position 4'],
    ['tok\u0000x', 'a control character (U+0000) at position 4'],
  ])('refuses %j at the constructor, naming the character, not the value', (apiToken, what) => {
    expect(() => client({ credentials: { apiToken } })).toThrow(
      new TypeError(`credentials.apiToken: has ${what}, which a request header cannot carry; copy it again without spaces or line breaks`),
    );
  });
});

describe('paging facts of the public API', () => {
  it('walks a firewall rules list whose result_info has no total_pages (public API shape)', async () => {
    const rule = (n: number) => ({ id: n.toString(16).padStart(32, '0'), paused: false, action: 'block', filter: { id: ID, expression: `ip.src eq 192.0.2.${n}` } });
    const info = (page: number, count: number) => ({ result_info: { page, per_page: 2, count, total_count: 5 } });
    stub.next(
      (_req, res) => json(res, 200, ok([rule(1), rule(2)], info(1, 2))),
      (_req, res) => json(res, 200, ok([rule(3), rule(4)], info(2, 2))),
      (_req, res) => json(res, 200, ok([rule(5)], info(3, 1))),
    );
    const all = await client().firewallRules.list({ zoneId: ZONE, perPage: 2 }).toArray();
    expect(all.map((r) => r.filter.expression)).toEqual([1, 2, 3, 4, 5].map((n) => `ip.src eq 192.0.2.${n}`));
    expect(stub.seen.map((s) => new URL(s.url, 'http://x').searchParams.get('page'))).toEqual(['1', '2', '3']);
  });
});
