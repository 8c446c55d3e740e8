import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  RateLimitedError,
  RetiredApiError,
  ServerError,
  TimeoutError,
  ZoneGuardError,
} from '../../src/client';
import { MISSING_ID, ZONE, clientOf, failure, useClientZones } from './harness';

// One test per error kind against the emulator, the message asserted. ResponseValidationError needs a service
// that answers the wrong shape, which the emulator does not: transport.test.ts covers it with a scripted server.

const emulator = useClientZones();
const settings = `/zones/${ZONE}/page_guard`;

describe('every error kind, from the emulator', () => {
  it('BadRequestError: an invalid identifier in the path (7003)', async () => {
    const error = await failure<BadRequestError>(clientOf(emulator()).pageGuard.get({ zoneId: 'not-a-zone' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ name: 'BadRequestError', status: 400, method: 'GET', path: '/zones/not-a-zone/page_guard' });
    expect(error.message).toBe(
      'GET /zones/not-a-zone/page_guard failed: HTTP 400 Bad Request: 7003 Could not route to /zones/not-a-zone/page_guard, perhaps your object identifier is invalid?',
    );
  });

  it('AuthenticationError: a wrong token (10000)', async () => {
    const error = await failure<AuthenticationError>(
      clientOf(emulator(), { credentials: { apiToken: 'wrong-token-value' } }).pageGuard.get({ zoneId: ZONE }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ name: 'AuthenticationError', status: 403, errors: [{ code: 10000, message: 'Authentication error: invalid API token' }] });
    expect(error.message).toBe(`GET ${settings} failed: HTTP 403 Forbidden: 10000 Authentication error: invalid API token`);
    expect(error.message).not.toContain('wrong-token-value');
  });

  it('AuthenticationError: a wrong email/key pair', async () => {
    const error = await failure<AuthenticationError>(
      clientOf(emulator(), { credentials: { apiEmail: 'x@example.com', apiKey: 'nope-key' } }).pageGuard.get({ zoneId: ZONE }),
    );
    expect(error.message).toBe(`GET ${settings} failed: HTTP 403 Forbidden: 10000 Authentication error: invalid X-Auth-Email or X-Auth-Key`);
  });

  it('NotFoundError: a zone that does not exist (10013)', async () => {
    const error = await failure<NotFoundError>(clientOf(emulator()).pageGuard.get({ zoneId: MISSING_ID }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe(`GET /zones/${MISSING_ID}/page_guard failed: HTTP 404 Not Found: 10013 zone ${MISSING_ID} not found`);
  });

  it('RetiredApiError: the legacy firewall API of a zone in maintenance mode (10020) or retired (410)', async () => {
    const client = clientOf(emulator());
    const maintenance = await emulator().admin.seedZone({ name: 'maintenance.example', plan: 'pro', legacyFirewall: 'maintenance' });
    const refused = await failure<RetiredApiError>(client.filters.create({ zoneId: maintenance.id, filters: [{ expression: 'http.host eq "m.example"' }] }));
    expect(refused).toBeInstanceOf(RetiredApiError);
    expect(refused).toMatchObject({ name: 'RetiredApiError', status: 400, codes: [10020] });
    const retired = await emulator().admin.seedZone({ name: 'retired.example', plan: 'pro', legacyFirewall: 'retired' });
    const gone = await failure<RetiredApiError>(client.firewallRules.list({ zoneId: retired.id }).toArray());
    expect(gone).toBeInstanceOf(RetiredApiError);
    expect(gone.message).toBe(
      `GET /zones/${retired.id}/firewall/rules failed: HTTP 410 Gone: 10020 the firewall rules and filters API is retired for this zone (end of life 2025-06-15); use custom rules of the rulesets API (phase http_request_firewall_custom)`,
    );
  });

  it('ConflictError: deleting a filter still in use (10027)', async () => {
    const client = clientOf(emulator());
    const [filter] = await client.filters.create({ zoneId: ZONE, filters: [{ expression: 'http.host eq "k.example"' }] });
    const [rule] = await client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { id: filter!.id } }] });
    const error = await failure<ConflictError>(client.filters.delete({ zoneId: ZONE, filterId: filter!.id }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.status).toBe(409);
    expect(error.message).toBe(
      `DELETE /zones/${ZONE}/filters/${filter!.id} failed: HTTP 409 Conflict: 10027 filter ${filter!.id} is referenced by firewall rule ${rule!.id}; delete or repoint the rule first`,
    );
  });

  it('RateLimitedError: 429 (971) when the deadline leaves no time for another wait', async () => {
    // Retry-After 1 s plus up to 500 ms of spread: the second attempt starts before 1.9 s, a third could not.
    await emulator().admin.setFaults({ tooManyRequests: { count: 10, retryAfterSeconds: 1 } });
    const error = await failure<RateLimitedError>(clientOf(emulator(), { retry: { deadlineMs: 1900 } }).pageGuard.get({ zoneId: ZONE }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, attempts: 2, retryAfterMs: 1000 });
    expect(error.message).toBe(
      `GET ${settings} failed: HTTP 429 Too Many Requests: 971 Rate limited. Please wait and consider throttling your request speed`,
    );
  });

  it('ServerError: 5xx after the attempts are spent', async () => {
    await emulator().admin.setFaults({ serverErrors: 10, serverErrorStatus: 503 });
    const error = await failure<ServerError>(clientOf(emulator(), { retry: { maxAttempts: 3, baseDelayMs: 1 } }).pageGuard.get({ zoneId: ZONE }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 503, attempts: 3 });
    expect(error.message).toBe(
      `GET ${settings} failed: HTTP 503 Service Unavailable: 10001 Internal server error (injected fault, HTTP 503)`,
    );
  });

  it('ConnectionError: the connection reset before any answer', async () => {
    await emulator().admin.setFaults({ resetConnections: 10 });
    const error = await failure<ConnectionError>(clientOf(emulator(), { retry: { maxAttempts: 2, baseDelayMs: 1 } }).pageGuard.get({ zoneId: ZONE }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'ECONNRESET', status: undefined, errors: [], attempts: 2 });
    expect(error.message).toBe(`GET ${settings} failed: connection error ECONNRESET, no answer from the service`);
  });

  it('TimeoutError: the answer comes later than the timeout', async () => {
    await emulator().admin.setFaults({ latencyMs: 600 });
    const started = Date.now();
    const error = await failure<TimeoutError>(clientOf(emulator(), { timeoutMs: 150, retry: false }).pageGuard.get({ zoneId: ZONE }));
    expect(Date.now() - started).toBeLessThan(550);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 150, status: undefined, attempts: 1 });
    expect(error.message).toBe(`GET ${settings} failed: no answer within 150 ms`);
  });

  it('every kind is a ZoneGuardError', async () => {
    const error = await failure(clientOf(emulator()).pageGuard.get({ zoneId: MISSING_ID }));
    expect(error).toBeInstanceOf(ZoneGuardError);
    expect(error).toBeInstanceOf(Error);
  });
});
