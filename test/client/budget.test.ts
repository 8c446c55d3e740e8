import { DEFAULT_RATE_BUDGET, RateLimitedError } from '../../src/client';
import { ZONE, clientOf, useClientZones } from './harness';

// The client-side rate budget against the emulator's own limit (over any window, answering 429 code 971).

const emulator = useClientZones();
const WINDOW_MS = 1200;
const N = 5;

describe('rate budget', () => {
  beforeEach(async () => {
    await emulator().admin.setFaults({ rateLimit: { requests: N, windowMs: WINDOW_MS } });
  });

  it('makes request N+1 of a window of N wait instead of failing', async () => {
    // The process's own budget alone: with the service's word, the budget would also keep half of what it hears is
    // left for another spender of the user (test/client/calibration.test.ts).
    await emulator().admin.setFaults({ rateLimit: { requests: N, windowMs: WINDOW_MS }, rateLimitHeaders: false });
    const throttled: Array<number | undefined> = [];
    // Retries off: a single 429 would fail the test.
    const client = clientOf(emulator(), {
      retry: false,
      rateBudget: { requests: N, windowMs: WINDOW_MS },
      logger: { onThrottle: (e) => throttled.push(e.waitMs) },
    });
    const started = Date.now();
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: N + 1 }, () => client.pageGuard.get({ zoneId: ZONE }).then(() => done.push(Date.now() - started))),
    );
    done.sort((a, b) => a - b);
    expect(done[N - 1]!).toBeLessThan(WINDOW_MS / 2);
    expect(done[N]!).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(throttled).toHaveLength(1);
    const log = await emulator().admin.requests();
    expect(log.map((r) => r.status)).toEqual(Array(N + 1).fill(200));
  });

  it('is shared by every client of the process with the same credentials', async () => {
    const budget = { requests: N, windowMs: WINDOW_MS };
    const a = clientOf(emulator(), { retry: false, rateBudget: budget });
    const b = clientOf(emulator(), { retry: false, rateBudget: budget });
    await Promise.all([0, 1, 2].flatMap(() => [a.pageGuard.get({ zoneId: ZONE }), b.scripts.listPage({ zoneId: ZONE })]));
    const log = await emulator().admin.requests();
    expect(log).toHaveLength(N + 1);
    expect(log.every((r) => r.status === 200)).toBe(true);
  });

  it('without it, request N+1 trips the service limit (the control)', async () => {
    const client = clientOf(emulator(), { retry: false, rateBudget: false });
    const results = await Promise.allSettled(Array.from({ length: N + 1 }, () => client.pageGuard.get({ zoneId: ZONE })));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(RateLimitedError);
    expect((refused[0] as RateLimitedError).codes).toEqual([971]);
  });

  it('counts retries against the budget too', async () => {
    await emulator().admin.setFaults([
      { rateLimit: { requests: N, windowMs: WINDOW_MS } },
      { serverErrors: 1, match: { method: 'PUT' } },
    ]);
    const client = clientOf(emulator(), { retry: { baseDelayMs: 1 }, rateBudget: { requests: N, windowMs: WINDOW_MS } });
    // 4 GETs and a PUT that fails once: 6 attempts in a window of 5, so the last one waits for the window.
    const gets = Array.from({ length: N - 1 }, () => client.pageGuard.get({ zoneId: ZONE }));
    await Promise.all([...gets, client.pageGuard.update({ zoneId: ZONE, enabled: false })]);
    const log = await emulator().admin.requests();
    expect(log.filter((r) => r.status === 429)).toEqual([]);
  });

  it('without it but with retries, the 429 is sat out as Retry-After says', async () => {
    const client = clientOf(emulator(), { rateBudget: false });
    const started = Date.now();
    await Promise.all(Array.from({ length: N + 1 }, () => client.pageGuard.get({ zoneId: ZONE })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const log = await emulator().admin.requests();
    expect(log.filter((r) => r.status === 429)).not.toEqual([]);
  });

  it('above the service limit, a herd refused together gets through: a 429 is retried past maxAttempts, until the deadline', async () => {
    // The default budget (1200 per 300 s) does not hold 3N requests back; the service admits N per window, so
    // the last N need a third round of attempts, which maxAttempts 2 would not allow any other failure. Without the
    // service's word on its answers (a proxy that strips it): with it, the budget would follow the service's count.
    await emulator().admin.setFaults({ rateLimit: { requests: N, windowMs: WINDOW_MS }, rateLimitHeaders: false });
    const retried: number[] = [];
    const client = clientOf(emulator(), {
      rateBudget: DEFAULT_RATE_BUDGET,
      retry: { maxAttempts: 2 },
      logger: { onRetry: (e) => retried.push(e.attempt) },
    });
    await Promise.all(Array.from({ length: 3 * N }, () => client.pageGuard.get({ zoneId: ZONE })));
    const log = await emulator().admin.requests();
    expect(log.filter((r) => r.status === 200)).toHaveLength(3 * N);
    expect(Math.max(...retried)).toBeGreaterThanOrEqual(2);
  });
});

describe('a 429 with Retry-After', () => {
  it("holds the process's other requests until then: none is sent to be refused", async () => {
    await emulator().admin.setFaults({ tooManyRequests: { count: 1, retryAfterSeconds: 1 } });
    const client = clientOf(emulator(), { rateBudget: DEFAULT_RATE_BUDGET });
    let other: Promise<unknown> | undefined;
    const logged = clientOf(emulator(), {
      rateBudget: DEFAULT_RATE_BUDGET,
      logger: {
        // Once the 429 is in, another call of the process (same credentials, same budget) starts.
        onRetry: () => {
          other = client.scripts.listPage({ zoneId: ZONE });
        },
      },
    });
    await logged.pageGuard.get({ zoneId: ZONE });
    await other;
    const log = await emulator().admin.requests();
    expect(log.map((r) => [r.method, r.status])).toEqual([
      ['GET', 429],
      ['GET', 200],
      ['GET', 200],
    ]);
    const [refused, ...after] = log.map((r) => Date.parse(r.at));
    expect(Math.min(...after) - refused!).toBeGreaterThanOrEqual(1000);
  });
});

describe('the per-second cap, against the emulator\'s limit per address (docs/service.md#rate-limit)', () => {
  const CAP = 10;
  const READS = 25;
  beforeEach(async () => {
    await emulator().admin.setFaults({ ipRateLimit: { requests: CAP } });
  });
  const reads = (client: ReturnType<typeof clientOf>) => Array.from({ length: READS }, () => client.pageGuard.get({ zoneId: ZONE }));

  it('keeps every client of the process under it, whatever their credentials: 50 reads at 10 a second, no 429, over 4 s', async () => {
    const { token } = await emulator().admin.addToken({});
    // Retries off: a single 429 would fail a read. Two credentials, so two user budgets (off here) but one cap.
    const a = clientOf(emulator(), { retry: false, rateBudgetPerSecond: CAP });
    const b = clientOf(emulator(), { retry: false, rateBudgetPerSecond: CAP, credentials: { apiToken: token } });
    const started = Date.now();
    const results = await Promise.allSettled([...reads(a), ...reads(b)]);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const log = await emulator().admin.requests();
    expect(log.map((entry) => entry.status)).toEqual(Array(2 * READS).fill(200));
    // 50 reads at 10 a second: the last ten start after four seconds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
  });

  it('without it (the control), the same reads at once trip the limit', async () => {
    const client = clientOf(emulator(), { retry: false, rateBudgetPerSecond: false });
    const results = await Promise.allSettled(reads(client));
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(READS - CAP);
    expect((await emulator().admin.requests()).filter((entry) => entry.status === 429)).toHaveLength(READS - CAP);
  });
});
