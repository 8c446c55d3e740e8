import {
  allowanceAfter,
  DEFAULT_RATE_BUDGET,
  allowanceAt,
  budgetKey,
  NO_ALLOWANCE,
  nextSlot,
  perSecondBudget,
  RateBudget,
  requestsPerSecondProblem,
  sharedRateBudget,
  withPerSecondCap,
  type Budget,
  type Clock,
  type OwnCount,
  type RateBudgetLimits,
} from '../../src/client/rate-budget';
import { parseRateLimitHeaders, strictestLimits } from '../../src/client/service-word';

/** A clock that only moves when the test says so; sleepers wake in time order. */
class FakeClock implements Clock {
  time = 0;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.sleepers.push({ at: this.time + ms, wake: resolve }));
  }

  /** Moves the clock, waking due sleepers and letting the promise chains they start settle. */
  async advance(ms: number): Promise<void> {
    this.time += ms;
    const due = this.sleepers.filter((s) => s.at <= this.time);
    this.sleepers = this.sleepers.filter((s) => s.at > this.time);
    for (const sleeper of due) sleeper.wake();
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}

describe('nextSlot', () => {
  it.each<[number[], number, number | undefined, { index: number; waitMs: number }]>([
    [[-Infinity, -Infinity], 0, undefined, { index: 0, waitMs: 0 }],
    [[Infinity, -Infinity], 0, undefined, { index: 1, waitMs: 0 }],
    [[1000, 400], 100, undefined, { index: 1, waitMs: 300 }],
    [[1000, 400], 500, undefined, { index: 1, waitMs: 0 }],
    [[Infinity, Infinity], 5, undefined, { index: 0, waitMs: Infinity }],
    [[Infinity, 900], 100, undefined, { index: 1, waitMs: 800 }],
    // held: the hold's end when it is later than the slot's
    [[-Infinity, -Infinity], 0, 700, { index: 0, waitMs: 700 }],
    [[1000, 400], 100, 200, { index: 1, waitMs: 300 }],
    [[1000, 400], 100, 600, { index: 1, waitMs: 500 }],
    [[1000, 400], 700, 600, { index: 1, waitMs: 0 }],
    [[Infinity, Infinity], 5, 600, { index: 0, waitMs: Infinity }],
  ])('slots %j at %i held until %j', (slots, now, heldUntil, expected) => {
    expect(nextSlot(slots, now, heldUntil)).toEqual(expected);
  });
});

describe('RateBudget', () => {
  it('lets N requests through at once and makes request N+1 wait for the window', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ requests: 3, windowMs: 1000 }, clock);
    const granted: number[] = [];
    const waits: number[] = [];
    const all = Array.from({ length: 4 }, async () => {
      const release = await budget.acquire((ms) => waits.push(ms));
      granted.push(clock.now());
      clock.time += 10; // the request takes 10 ms
      release();
      clock.time -= 10;
    });
    await flush();
    expect(granted).toEqual([0, 0, 0]);
    expect(waits).toEqual([1010]); // the first slot frees 1000 ms after its request ENDED (at 10)
    await clock.advance(1009);
    expect(granted).toHaveLength(3);
    await clock.advance(1);
    await Promise.all(all);
    expect(granted).toEqual([0, 0, 0, 1010]);
  });

  it('gives no slot while held, then serves the waiting callers in order; a shorter hold does not shorten it', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1000 }, clock);
    budget.hold(500);
    budget.hold(200);
    const granted: Array<[number, number]> = [];
    const waits: number[] = [];
    const all = [1, 2].map(async (caller) => {
      const release = await budget.acquire((ms) => waits.push(ms));
      granted.push([caller, clock.now()]);
      release();
    });
    await flush();
    expect(granted).toEqual([]);
    expect(waits).toEqual([500]);
    await clock.advance(499);
    expect(granted).toEqual([]);
    await clock.advance(1);
    await Promise.all(all);
    expect(granted).toEqual([
      [1, 500],
      [2, 500],
    ]);
  });

  it('never has more than N requests in any window, even with slow requests', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ requests: 2, windowMs: 100 }, clock);
    const starts: number[] = [];
    const pending = Array.from({ length: 6 }, async () => {
      const release = await budget.acquire();
      starts.push(clock.now());
      await clock.sleep(50); // each request is in flight for 50 ms
      release();
    });
    for (let t = 0; t < 600; t += 10) await clock.advance(10);
    await Promise.all(pending);
    expect(starts).toHaveLength(6);
    for (const start of starts) {
      // The service counts a request somewhere in [start, start + 50]; the window is 100 ms.
      expect(starts.filter((s) => s > start - 150 && s <= start).length).toBeLessThanOrEqual(2);
    }
  });

  it('waits for an in-flight request to end when every slot is in flight', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ requests: 1, windowMs: 100 }, clock);
    const first = await budget.acquire();
    let secondAt: number | undefined;
    const second = budget.acquire().then((release) => {
      secondAt = clock.now();
      release();
    });
    await clock.advance(500);
    expect(secondAt).toBeUndefined();
    first();
    await flush();
    await clock.advance(100);
    await second;
    expect(secondAt).toBe(600);
  });

  it('serves callers in order', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ requests: 1, windowMs: 10 }, clock);
    const order: number[] = [];
    const calls = [1, 2, 3, 4].map(async (n) => {
      const release = await budget.acquire();
      order.push(n);
      release();
    });
    for (let i = 0; i < 10; i += 1) await clock.advance(10);
    await Promise.all(calls);
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('ignores a second release of the same slot', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ requests: 1, windowMs: 100 }, clock);
    const release = await budget.acquire();
    release();
    clock.time = 50;
    release(); // would push the slot's free time to 150 if counted
    clock.time = 100;
    expect(budget.available()).toBe(1);
  });

  it.each([
    [{ requests: 0, windowMs: 1000 }, 'rateBudget.requests must be a whole number from 1 to 100000, got 0'],
    [{ requests: 2.5, windowMs: 1000 }, 'rateBudget.requests must be a whole number from 1 to 100000, got 2.5'],
    // 2^32 slots would be an array JavaScript cannot allocate ("Invalid array length").
    [{ requests: 4294967296, windowMs: 1 }, 'rateBudget.requests must be a whole number from 1 to 100000, got 4294967296'],
    [{ requests: 10, windowMs: 0 }, 'rateBudget.windowMs must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days), got 0'],
    // A timer longer than 2^31-1 ms fires at once: the wait would become a busy loop.
    [{ requests: 10, windowMs: 2 ** 31 }, 'rateBudget.windowMs must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days), got 2147483648'],
  ])('refuses %j', (limits, message) => {
    expect(() => new RateBudget(limits)).toThrow(new TypeError(message));
  });

  it('takes the largest limits it allows', () => {
    expect(new RateBudget({ requests: 100_000, windowMs: 2 ** 31 - 1 }).available()).toBe(100_000);
  });
});

describe('the shared budget', () => {
  const limits = { requests: 5, windowMs: 1000 };
  const base = { baseUrl: 'https://api.example.com/client/v4', secrets: ['token', 's3cret-token-value'], limits };

  it('is one budget for the same credentials, base URL and limits', () => {
    expect(sharedRateBudget(base)).toBe(sharedRateBudget({ ...base, baseUrl: `${base.baseUrl}/` }));
  });

  it.each([
    ['other credentials', { ...base, secrets: ['token', 'another'] }],
    ['another base URL', { ...base, baseUrl: 'https://api.example.org/client/v4' }],
    ['other limits', { ...base, limits: { requests: 6, windowMs: 1000 } }],
  ])('is another budget for %s', (_label, parts) => {
    expect(sharedRateBudget(parts)).not.toBe(sharedRateBudget(base));
  });

  it('is keyed by a hash from which the credential cannot be read', () => {
    const key = budgetKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toContain('s3cret');
  });
});

describe('the per-second cap (the service\'s limit per IP address)', () => {
  it.each<[number, string | undefined]>([
    [1, undefined],
    [200, undefined],
    [100_000, undefined],
    [0, 'must be a whole number of requests from 1 to 100000, got 0'],
    [100_001, 'must be a whole number of requests from 1 to 100000, got 100001'],
    [1.5, 'must be a whole number of requests from 1 to 100000, got 1.5'],
    [Number.NaN, 'must be a whole number of requests from 1 to 100000, got NaN'],
  ])('a cap of %d: %s', (requests, problem) => {
    expect(requestsPerSecondProblem(requests)).toBe(problem);
  });

  it('is one budget per origin and cap, whatever the credentials and the path', () => {
    const cap = perSecondBudget('https://api.example.com/client/v4', 200);
    expect(perSecondBudget('https://api.example.com/other/', 200)).toBe(cap);
    expect(perSecondBudget('https://api.example.com:8443/client/v4', 200)).not.toBe(cap);
    expect(perSecondBudget('https://api.example.com/client/v4', 100)).not.toBe(cap);
    expect(cap.limits).toEqual({ requests: 200, windowMs: 1000 });
  });

  /** Takes a slot of `budget` for a 10 ms request, noting when it was granted. */
  const request = (clock: FakeClock, budget: Budget, granted: Array<[string, number]>, name: string) =>
    budget.acquire().then((release) => {
      granted.push([name, clock.now()]);
      clock.time += 10;
      release();
      clock.time -= 10;
    });

  it("takes the user's slot first: a request waiting for its user's budget holds no slot of the cap", async () => {
    const clock = new FakeClock();
    const cap = new RateBudget({ requests: 2, windowMs: 1000 }, clock);
    const a = withPerSecondCap(new RateBudget({ requests: 1, windowMs: 1000 }, clock), cap);
    const b = withPerSecondCap(new RateBudget({ requests: 10, windowMs: 1000 }, clock), cap);
    const granted: Array<[string, number]> = [];
    const all = [request(clock, a, granted, 'a1'), request(clock, a, granted, 'a2'), request(clock, b, granted, 'b1'), request(clock, b, granted, 'b2')];
    await flush();
    // a2 waits for a's budget; b1 takes the cap's second slot; b2 waits for the cap.
    expect(granted).toEqual([['a1', 0], ['b1', 0]]);
    await clock.advance(1010);
    await Promise.all(all);
    expect(granted.slice(2).sort()).toEqual([['a2', 1010], ['b2', 1010]]);
  });

  it('alone (the user budget off), it is the whole budget: request 3 of a cap of 2 waits a second', async () => {
    const clock = new FakeClock();
    const capped = withPerSecondCap(undefined, new RateBudget({ requests: 2, windowMs: 1000 }, clock));
    const granted: Array<[string, number]> = [];
    const all = ['1', '2', '3'].map((name) => request(clock, capped, granted, name));
    await flush();
    expect(granted).toEqual([['1', 0], ['2', 0]]);
    await clock.advance(1010);
    await Promise.all(all);
    expect(granted).toEqual([['1', 0], ['2', 0], ['3', 1010]]);
  });

  it("leaves the service's word and a 429's hold to the user's budget", async () => {
    const clock = new FakeClock();
    const user = new RateBudget({ requests: 5, windowMs: 1000 }, clock);
    const capped = withPerSecondCap(user, new RateBudget({ requests: 5, windowMs: 1000 }, clock));
    capped.observe({ remaining: 100, resetMs: 60_000, limits: { requests: 100, windowMs: 60_000 } });
    expect(user.limits).toEqual({ requests: 100, windowMs: 60_000 });
    capped.hold(500);
    const granted: Array<[string, number]> = [];
    const held = request(clock, capped, granted, 'held');
    await clock.advance(499);
    expect(granted).toEqual([]);
    await clock.advance(1);
    await held;
    expect(granted).toEqual([['held', 500]]);
  });
});

describe('the service word (docs/service.md#rate-limit)', () => {
  const NOW = 1_700_000_000_000;
  it.each<[string, Record<string, string>, ReturnType<typeof parseRateLimitHeaders>]>([
    ['Ratelimit and its policy', { ratelimit: '"default";r=42;t=7', 'ratelimit-policy': '"default";q=1200;w=300' }, { remaining: 42, resetMs: 7000, limits: { requests: 1200, windowMs: 300_000 } }],
    ['a raised limit', { ratelimit: '"default";r=4999;t=300', 'ratelimit-policy': '"default";q=5000;w=300' }, { remaining: 4999, resetMs: 300_000, limits: { requests: 5000, windowMs: 300_000 } }],
    ['Ratelimit without its policy', { ratelimit: '"default";r=0;t=12' }, { remaining: 0, resetMs: 12_000 }],
    ['the older X-RateLimit-*, reset in seconds', { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': '30' }, { remaining: 10, resetMs: 30_000 }],
    ['the older X-RateLimit-*, reset as a Unix time', { 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': String(NOW / 1000 + 45) }, { remaining: 3, resetMs: 45_000 }],
    ['a policy past the budget bounds is not taken', { ratelimit: '"default";r=1;t=1', 'ratelimit-policy': '"default";q=0;w=300' }, { remaining: 1, resetMs: 1000 }],
    ['nothing', {}, undefined],
    ['garbage', { ratelimit: 'r=many;t=soon' }, undefined],
    // Two members of each header: the fewest remaining governs, and the limit keeps to both policies (strictestLimits).
    [
      'two policies and two counts',
      { ratelimit: '"default";r=900;t=200, "burst";r=3;t=1', 'ratelimit-policy': '"default";q=1200;w=300, "burst";q=10;w=1' },
      {
        remaining: 3,
        resetMs: 1000,
        limits: { requests: 4, windowMs: 1000 },
        notes: [{ kind: 'policies', line: 'zoneguard: the service said 2 rate limit policies (1200 per 300 s, 10 per 1 s): keeping to all of them, at 4 per 1 s' }],
      },
    ],
  ])('%s', (_name, headers, expected) => {
    expect(parseRateLimitHeaders(headers, NOW)).toEqual(expected);
  });

  // Hostile or broken answers: a reset or a window past the service's (5 minutes) is read as 5 minutes, with a note.
  it.each<[string, Record<string, string>, number, RegExp, { requests: number; windowMs: number } | undefined]>([
    ['a reset of 30 days (past what a timer holds)', { ratelimit: '"default";r=0;t=2592000' }, 300_000, /a reset of 2592000 s \(Ratelimit t=2592000\)/, undefined],
    ['a reset of a day', { ratelimit: '"default";r=0;t=86400' }, 300_000, /a reset of 86400 s \(Ratelimit t=86400\), longer than its 300 s window .*: read as 300 s$/, undefined],
    [
      'an older reset as a Unix time in milliseconds, 30 days ahead',
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 30 * 86_400_000) },
      300_000,
      /a reset of 2592000 s \(X-RateLimit-Reset 1702592000000\)/,
      undefined,
    ],
    ['a policy of one request per 24.8 days', { ratelimit: '"default";r=0;t=10', 'ratelimit-policy': '"default";q=1;w=2142720' }, 10_000, /a window of 2142720 s \(Ratelimit-Policy w=2142720\)/, { requests: 1, windowMs: 300_000 }],
  ])('%s', (_name, headers, resetMs, note, limits) => {
    const word = parseRateLimitHeaders(headers, NOW)!;
    expect(word.resetMs).toBe(resetMs);
    expect(word.limits).toEqual(limits);
    expect(word.notes).toHaveLength(1);
    expect(word.notes![0]!.line).toMatch(note);
    expect(word.notes![0]!.line).toMatch(/^zoneguard: the service said a (reset|window) of \d+ s \(.*\), longer than its 300 s window \(docs\/service.md#rate-limit\): read as 300 s$/);
  });

  it.each([
    ['a reset of 30 days', { ratelimit: '"default";r=0;t=2592000' }],
    ['an older reset of 30 days in epoch milliseconds', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(30 * 86_400_000) }],
    ['a policy of one request per 24.8 days', { ratelimit: '"default";r=1;t=1', 'ratelimit-policy': '"default";q=1;w=2142720' }],
  ])('a budget hearing %s waits the service window at most, then sends', async (_name, headers) => {
    const clock = new FakeClock();
    const budget = new RateBudget(DEFAULT_RATE_BUDGET, clock);
    const first = await budget.acquire();
    budget.observe(parseRateLimitHeaders(headers, clock.now())!);
    first();
    const waits: number[] = [];
    let sent = false;
    const next = budget.acquire((waitMs) => waits.push(waitMs)).then((release) => ((sent = true), release));
    await flush();
    expect(sent).toBe(false);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeLessThanOrEqual(300_000);
    await clock.advance(300_000);
    expect(sent).toBe(true);
    (await next)();
  });

  it('a 429 holds the budget for the service window at most, whatever it said', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(DEFAULT_RATE_BUDGET, clock);
    budget.hold(30 * 86_400_000);
    const waits: number[] = [];
    let sent = false;
    void budget.acquire((waitMs) => waits.push(waitMs)).then((release) => ((sent = true), release()));
    await flush();
    expect(waits).toEqual([300_000]);
    await clock.advance(300_000);
    expect(sent).toBe(true);
  });

  it('an older reset as a Unix time in milliseconds, 45 s ahead: 45 s, nothing odd', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': String(NOW + 45_000) }, NOW)).toEqual({ remaining: 3, resetMs: 45_000 });
  });

  it.each<[string, Array<{ requests: number; windowMs: number }>, { requests: number; windowMs: number } | undefined]>([
    ['none', [], undefined],
    ['one: itself', [{ requests: 1200, windowMs: 300_000 }], { requests: 1200, windowMs: 300_000 }],
    // 4 a second keeps to 1200 per 300 s (300 windows of 4) and to 10 a second; 10 per 300 s would too, slower.
    ['a window and a burst', [{ requests: 1200, windowMs: 300_000 }, { requests: 10, windowMs: 1000 }], { requests: 4, windowMs: 1000 }],
    ['the burst allows less than the window can: its own pace', [{ requests: 1200, windowMs: 300_000 }, { requests: 2, windowMs: 1000 }], { requests: 2, windowMs: 1000 }],
    // One per 300 s cannot be held in windows of a second: the longer window, at the one request.
    ['a slow policy and a burst', [{ requests: 1, windowMs: 300_000 }, { requests: 10, windowMs: 1000 }], { requests: 1, windowMs: 300_000 }],
    // 300 s is not a whole number of 7 s windows: 43 of them cover it, so 1200 / 43 = 27 a window, not 28.
    ['windows that do not divide', [{ requests: 1200, windowMs: 300_000 }, { requests: 100, windowMs: 7000 }], { requests: 27, windowMs: 7000 }],
  ])('strictestLimits: %s', (_name, policies, expected) => {
    expect(strictestLimits(policies)).toEqual(expected);
  });

  const word = (remaining: number, resetMs: number) => ({ remaining, resetMs });
  it.each<[string, { left: number; resetAt: number }, { remaining: number; resetMs: number }, number, OwnCount, { left: number; resetAt: number }]>([
    ['alone: half of what is left', NO_ALLOWANCE, word(99, 5000), 1000, { inFlight: 0, used: 1, quota: 100 }, { left: 49, resetAt: 6000 }],
    ['alone: half of what is left, less what is in flight', NO_ALLOWANCE, word(41, 5000), 1000, { inFlight: 3, used: 59, quota: 100 }, { left: 17, resetAt: 6000 }],
    ['alone, after a grant: a fresh grant', { left: 0, resetAt: 3000 }, word(40, 5000), 1000, { inFlight: 0, used: 60, quota: 100 }, { left: 20, resetAt: 6000 }],
    ['another spender, after a grant: no more than it left', { left: 2, resetAt: 3000 }, word(40, 5000), 1000, { inFlight: 0, used: 10, quota: 100 }, { left: 2, resetAt: 6000 }],
    ['another spender, less than the grant left: the less', { left: 9, resetAt: 3000 }, word(6, 5000), 1000, { inFlight: 1, used: 10, quota: 100 }, { left: 2, resetAt: 6000 }],
    ['another spender, past the last reset: a fresh grant', { left: 0, resetAt: 900 }, word(40, 5000), 1000, { inFlight: 0, used: 10, quota: 100 }, { left: 20, resetAt: 6000 }],
    ['one left: none', NO_ALLOWANCE, word(1, 2000), 0, { inFlight: 0, used: 1, quota: 2 }, { left: 0, resetAt: 2000 }],
    ['more in flight than left', NO_ALLOWANCE, word(4, 2000), 0, { inFlight: 5, used: 6, quota: 10 }, { left: 0, resetAt: 2000 }],
    // The other processes of a fleet, as the shared store counts them: ours, not another spender's.
    ['a fleet, no spender beyond it: all that is left, less what is in flight', NO_ALLOWANCE, word(10, 2000), 0, { inFlight: 1, used: 4, quota: 20, fleet: { requests: 6, processes: 4 } }, { left: 9, resetAt: 2000 }],
    ['a fleet, after a grant: a fresh grant', { left: 0, resetAt: 1500 }, word(3, 2000), 1000, { inFlight: 0, used: 5, quota: 20, fleet: { requests: 12, processes: 4 } }, { left: 3, resetAt: 3000 }],
    ['a fleet, a spender beyond it: half of what is left, split among its processes', NO_ALLOWANCE, word(8, 2000), 0, { inFlight: 0, used: 4, quota: 20, fleet: { requests: 4, processes: 2 } }, { left: 2, resetAt: 2000 }],
    ['a fleet, a spender beyond it, after a grant: no more than it left', { left: 1, resetAt: 1500 }, word(12, 2000), 1000, { inFlight: 0, used: 2, quota: 20, fleet: { requests: 2, processes: 2 } }, { left: 1, resetAt: 3000 }],
    ['the same counts seen as the process\'s alone: another spender, no more than it left', { left: 0, resetAt: 1500 }, word(3, 2000), 1000, { inFlight: 0, used: 5, quota: 20 }, { left: 0, resetAt: 3000 }],
  ])('allowanceAfter: %s', (_name, previous, said, now, own, expected) => {
    expect(allowanceAfter(previous, said, now, own)).toEqual(expected);
  });

  it.each<[string, { left: number; resetAt: number }, number, { waitMs: number; next: { left: number; resetAt: number } }]>([
    ['no word yet', NO_ALLOWANCE, 0, { waitMs: 0, next: NO_ALLOWANCE }],
    ['some left', { left: 2, resetAt: 900 }, 100, { waitMs: 0, next: { left: 1, resetAt: 900 } }],
    ['spent: wait for the reset', { left: 0, resetAt: 900 }, 100, { waitMs: 800, next: { left: 0, resetAt: 900 } }],
    ['past the reset: one goes to hear the service again, the next a second later', { left: 0, resetAt: 900 }, 1000, { waitMs: 0, next: { left: 0, resetAt: 2000 } }],
  ])('allowanceAt: %s', (_name, allowance, now, expected) => {
    expect(allowanceAt(allowance, now)).toEqual(expected);
  });

  /** A budget of `limits` on a fake clock that took one request and heard `word` from the service before releasing it. */
  async function budgetThatHeard(limits: RateBudgetLimits, word: Parameters<RateBudget['observe']>[0]): Promise<{ clock: FakeClock; budget: RateBudget }> {
    const clock = new FakeClock();
    const budget = new RateBudget(limits, clock);
    const release = await budget.acquire();
    budget.observe(word);
    release();
    return { clock, budget };
  }

  /** Starts `count` acquisitions of `budget` and lets them settle; answers how many have been granted, then and later. */
  async function startAcquiring(budget: RateBudget, count: number): Promise<() => number> {
    let taken = 0;
    for (let i = 0; i < count; i += 1) void budget.acquire().then(() => (taken += 1));
    for (let i = 0; i < 5; i += 1) await flush();
    return () => taken;
  }

  it('a raised limit is used: the budget grows to the service quota', async () => {
    const { budget } = await budgetThatHeard({ requests: 2, windowMs: 1000 }, { remaining: 19, resetMs: 1000, limits: { requests: 20, windowMs: 1000 } });
    expect(budget.limits).toEqual({ requests: 20, windowMs: 1000 });
    expect(budget.available()).toBe(19);
    const taken = await startAcquiring(budget, 12);
    // Half of the 19 the service has left: more than the 2 of the budget as configured.
    expect(taken()).toBe(9);
  });

  it('another spender of the same user slows the process down: nothing more before the reset once half of what is left is spent', async () => {
    // The service has 4 left where this process's budget has 9 free: someone else spends the same count.
    const { clock, budget } = await budgetThatHeard({ requests: 10, windowMs: 1000 }, { remaining: 4, resetMs: 600, limits: { requests: 10, windowMs: 1000 } });
    // Half of it, 2, before the reset.
    const taken = await startAcquiring(budget, 4);
    expect(taken()).toBe(2);
    await clock.advance(599);
    expect(taken()).toBe(2);
    await clock.advance(1);
    expect(taken()).toBe(3);
  });
});
