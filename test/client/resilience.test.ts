import { ConnectionError, ServerError, TimeoutError } from '../../src/client';
import { ZONE, clientOf, failure, useClientZones } from './harness';

// Retries against the emulator's injected faults: what is retried, what is not, and how long the client waits.

const emulator = useClientZones();
const rulesPath = `/zones/${ZONE}/firewall/rules`;
const settingsPath = `/zones/${ZONE}/page_guard`;
const CREATE = 'POST /zones/:zone_id/firewall/rules';
const UPDATE = 'PUT /zones/:zone_id/page_guard';

const oneRule = [{ action: 'block' as const, filter: { expression: 'http.host eq "retry.example"' } }];

describe('Retry-After', () => {
  it('is honoured: the retry comes after the wait the service asked for', async () => {
    await emulator().admin.setFaults({ tooManyRequests: { count: 1, retryAfterSeconds: 1 } });
    const retries: number[] = [];
    const started = Date.now();
    const settings = await clientOf(emulator(), { logger: { onRetry: (e) => retries.push(e.delayMs) } }).pageGuard.get({ zoneId: ZONE });
    const elapsed = Date.now() - started;
    expect(settings.enabled).toBe(true);
    // Retry-After plus the spread, a draw below baseDelayMs (5 ms in these tests' clients).
    expect(retries).toHaveLength(1);
    expect(retries[0]).toBeGreaterThanOrEqual(1000);
    expect(retries[0]).toBeLessThan(1005);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    const log = await emulator().admin.requests();
    expect(log.map((r) => r.status)).toEqual([429, 200]);
    expect(Date.parse(log[1]!.at) - Date.parse(log[0]!.at)).toBeGreaterThanOrEqual(990);
  });

  it('lets a POST retry on 429: the rate limiter refused it before the service acted', async () => {
    await emulator().admin.setFaults({ tooManyRequests: { count: 2, retryAfterSeconds: 0 }, match: { method: 'POST' } });
    const created = await clientOf(emulator()).firewallRules.create({ zoneId: ZONE, rules: oneRule });
    expect(created).toHaveLength(1);
    expect((await emulator().admin.counters()).byRoute[CREATE]).toBe(3);
    expect(await clientOf(emulator()).firewallRules.list({ zoneId: ZONE }).toArray()).toHaveLength(1);
  });
});

describe('5xx', () => {
  it('retries a PUT until it succeeds', async () => {
    await emulator().admin.setFaults({ serverErrors: 2, serverErrorStatus: 502, match: { method: 'PUT' } });
    const result = await clientOf(emulator()).pageGuard.update({ zoneId: ZONE, enabled: false });
    expect(result.enabled).toBe(false);
    expect((await emulator().admin.counters()).byRoute[UPDATE]).toBe(3);
    const log = await emulator().admin.requests();
    expect(log.map((r) => r.status)).toEqual([502, 502, 200]);
  });

  it('never retries a POST: one create reached the service, no duplicate', async () => {
    await emulator().admin.setFaults({ serverErrors: 1, serverErrorStatus: 503, match: { method: 'POST', pathPrefix: rulesPath } });
    const error = await failure<ServerError>(clientOf(emulator()).firewallRules.create({ zoneId: ZONE, rules: oneRule }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.attempts).toBe(1);
    expect(error.message).toBe(
      `POST ${rulesPath} failed: HTTP 503 Service Unavailable: 10001 Internal server error (injected fault, HTTP 503)`,
    );
    expect((await emulator().admin.counters()).byRoute[CREATE]).toBe(1);
  });

  it('retries a DELETE and a GET', async () => {
    const client = clientOf(emulator());
    const [rule] = await client.firewallRules.create({ zoneId: ZONE, rules: oneRule });
    await emulator().admin.setFaults({ serverErrors: 1 });
    await expect(client.firewallRules.get({ zoneId: ZONE, ruleId: rule!.id })).resolves.toMatchObject({ id: rule!.id });
    await emulator().admin.setFaults({ serverErrors: 1 });
    await expect(client.firewallRules.delete({ zoneId: ZONE, ruleId: rule!.id, deleteFilterIfUnused: true })).resolves.toMatchObject({ id: rule!.id });
  });
});

describe('connection resets', () => {
  it('retries a PUT whose connection was reset', async () => {
    await emulator().admin.setFaults({ resetConnections: 1, match: { method: 'PUT' } });
    const reasons: string[] = [];
    await clientOf(emulator(), { logger: { onRetry: (e) => reasons.push(e.reason) } }).pageGuard.update({ zoneId: ZONE, enabled: false });
    expect(reasons).toEqual(['ECONNRESET']);
    const log = await emulator().admin.requests();
    expect(log.map((r) => r.status)).toEqual([0, 200]);
  });

  it('does not retry a POST reset after it was sent: it may have been acted on', async () => {
    await emulator().admin.setFaults({ resetConnections: 1, match: { method: 'POST' } });
    const error = await failure<ConnectionError>(clientOf(emulator()).firewallRules.create({ zoneId: ZONE, rules: oneRule }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(`POST ${rulesPath} failed: connection error ECONNRESET, no answer from the service`);
    expect((await emulator().admin.counters()).byRoute[CREATE]).toBe(1);
  });
});

describe('timeouts', () => {
  it('retries a GET that timed out, then gives up with TimeoutError', async () => {
    await emulator().admin.setFaults({ latencyMs: 500 });
    const error = await failure<TimeoutError>(
      clientOf(emulator(), { timeoutMs: 100, retry: { maxAttempts: 2, baseDelayMs: 1 } }).pageGuard.get({ zoneId: ZONE }),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.attempts).toBe(2);
    expect(error.message).toBe(`GET ${settingsPath} failed: no answer within 100 ms`);
  });

  it('succeeds when only the first attempt is slow', async () => {
    await emulator().admin.setFaults({ latencyMs: 400, match: { method: 'GET', pathPrefix: settingsPath } });
    const client = clientOf(emulator(), { timeoutMs: 150, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const pending = client.pageGuard.get({ zoneId: ZONE });
    // Lift the latency while the first attempt waits: the retry is answered at once.
    setTimeout(() => void emulator().admin.clearFaults(), 50);
    await expect(pending).resolves.toMatchObject({ enabled: true });
  });
});
