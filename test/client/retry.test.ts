import {
  attemptsLeft,
  computeRetryDelay,
  DEFAULT_RETRY_POLICY,
  isRetryable,
  parseRetryAfter,
  resolveRetryPolicy,
  type AttemptFailure,
} from '../../src/client/retry';

const policy = { baseDelayMs: 500, maxDelayMs: 30_000 };

describe('computeRetryDelay', () => {
  describe.each([
    // attempt, random, expected: full jitter over min(maxDelayMs, 500 * 2^(attempt-1))
    [1, 0, 0],
    [1, 0.5, 250],
    [1, 0.999, 499],
    [2, 0.5, 500],
    [3, 0.5, 1000],
    [4, 1 - 1e-9, 3999],
    [7, 0.5, 15_000],
    [8, 0.5, 15_000], // 500 * 2^7 = 64000, capped at 30000
    [30, 0.5, 15_000],
  ])('attempt %i with random %d', (attempt, random, expected) => {
    it(`waits ${expected} ms`, () => {
      expect(computeRetryDelay({ attempt, policy, random: () => random })).toBe(expected);
    });
  });

  it.each([
    // Retry-After, random, base, max: the Retry-After plus a draw in [0, min(base, max)), whatever the attempt
    [0, 0, 500, 30_000, 0],
    [1000, 0, 500, 30_000, 1000],
    [1000, 0.5, 500, 30_000, 1250],
    [1000, 0.999, 500, 30_000, 1499],
    [120_000, 0.5, 500, 30_000, 120_250],
    [1500.2, 0, 500, 30_000, 1501],
    [1000, 0.9, 1, 2, 1000],
    [1000, 0.5, 500, 100, 1050],
  ])('waits out a Retry-After of %d ms, with random %d, base %i and cap %i: %i ms', (retryAfterMs, random, baseDelayMs, maxDelayMs, expected) => {
    expect(computeRetryDelay({ attempt: 9, policy: { baseDelayMs, maxDelayMs }, retryAfterMs, random: () => random })).toBe(expected);
  });

  it('never waits past the cap or below zero over many draws', () => {
    for (let attempt = 1; attempt < 40; attempt += 1) {
      const delay = computeRetryDelay({ attempt, policy });
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(policy.maxDelayMs);
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-08-01T12:00:00Z');

  it.each<[string | string[] | undefined, number | undefined]>([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 7 ', 7000],
    [['3', '9'], 3000],
    ['Thu, 01 Aug 2024 12:00:30 GMT', 30_000],
    ['Thu, 01 Aug 2024 12:05:00 GMT', 300_000],
    ['Thu, 01 Aug 2024 11:59:00 GMT', 0], // in the past: now
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['Thu, 99 Foo 2024', undefined],
  ])('reads %j as %j ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});

describe('isRetryable under DEFAULT_RETRY_POLICY', () => {
  const status = (s: number): AttemptFailure => ({ kind: 'status', status: s });
  const network = (code: string): AttemptFailure => ({ kind: 'network', code });
  const statuses = (...codes: number[]) => codes.map(status);
  const networks = (...codes: string[]) => codes.map(network);
  /** Per method, the failures retried and those that are not. */
  const cases: Array<[method: string, retried: AttemptFailure[], notRetried: AttemptFailure[]]> = [
    ['GET', [...statuses(408, 429, 500, 502, 503, 504), network('ECONNRESET')], statuses(501, 400, 404)],
    ['PUT', [status(503), network('ETIMEDOUT')], []],
    ['DELETE', [status(500), network('ECONNREFUSED')], []],
    ['HEAD', [status(502)], []],
    // POST: only when the service cannot have acted on it.
    ['POST', [status(429), ...networks('ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN')], [...statuses(500, 502, 503, 504, 408), ...networks('ECONNRESET', 'EPIPE', 'ETIMEDOUT')]],
    ['PATCH', [], [status(503)]],
    ['get', [status(503)], []],
  ];

  const rows = cases.flatMap(([method, retried, notRetried]) => [...retried.map((failure) => [method, failure, true] as const), ...notRetried.map((failure) => [method, failure, false] as const)]);
  it.each(rows)('%s after %j: %s', (method, failure, expected) => {
    expect(isRetryable(method, failure, DEFAULT_RETRY_POLICY)).toBe(expected);
  });
});

describe('DEFAULT_RETRY_POLICY', () => {
  it('is frozen, so no caller can change every client by accident', () => {
    expect(Object.isFrozen(DEFAULT_RETRY_POLICY)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RETRY_POLICY.idempotentMethods)).toBe(true);
  });

  it('sits out the service 5-minute block within its deadline', () => {
    expect(DEFAULT_RETRY_POLICY.maxRetryAfterMs).toBe(300_000);
    expect(DEFAULT_RETRY_POLICY.deadlineMs).toBeGreaterThan(DEFAULT_RETRY_POLICY.maxRetryAfterMs);
  });
});

describe('attemptsLeft', () => {
  const status = (s: number): AttemptFailure => ({ kind: 'status', status: s });
  it.each<[number, AttemptFailure, number, boolean]>([
    // attempt that failed, failure, maxAttempts, another attempt allowed by the count
    [1, status(503), 5, true],
    [4, status(503), 5, true],
    [5, status(503), 5, false],
    [1, status(503), 1, false],
    [5, { kind: 'network', code: 'ECONNRESET' }, 5, false],
    // a 429 is bounded by the deadline only: the service did not act and said when to come back
    [5, status(429), 5, true],
    [40, status(429), 5, true],
    [1, status(429), 1, true],
  ])('attempt %i failing with %j under maxAttempts %i: %s', (attempt, failure, maxAttempts, expected) => {
    expect(attemptsLeft(attempt, failure, { maxAttempts })).toBe(expected);
  });
});

describe('resolveRetryPolicy', () => {
  it('overrides only the fields given', () => {
    const resolved = resolveRetryPolicy({ maxAttempts: 2, baseDelayMs: 10 });
    expect(resolved).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2, baseDelayMs: 10 });
  });

  it('turns false into a single attempt, a 429 included: no time for a retry', () => {
    expect(resolveRetryPolicy(false)).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 1, deadlineMs: 0 });
  });

  it.each([
    [{ maxAttempts: 0 }, 'retry.maxAttempts must be a whole number of at least 1, got 0'],
    [{ maxAttempts: 1.5 }, 'retry.maxAttempts must be a whole number of at least 1, got 1.5'],
    [{ deadlineMs: -1 }, 'retry.deadlineMs must be a non-negative finite number, got -1'],
    [{ baseDelayMs: Number.NaN }, 'retry.baseDelayMs must be a non-negative finite number, got NaN'],
  ])('refuses %j', (override, message) => {
    expect(() => resolveRetryPolicy(override)).toThrow(new TypeError(message));
  });
});
