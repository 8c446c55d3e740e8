/** How the client retries a failed attempt. Every field is documented where the default is set. */
export interface RetryPolicy {
  idempotentMethods: readonly string[];
  idempotentStatusCodes: readonly number[];
  postStatusCodes: readonly number[];
  idempotentErrorCodes: readonly string[];
  notSentErrorCodes: readonly string[];
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  deadlineMs: number;
}

/** The retry policy of every client unless its `retry` option overrides fields of it. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  /** Methods that can be repeated without changing the outcome: retried on any failure listed below. */
  idempotentMethods: Object.freeze(['GET', 'HEAD', 'PUT', 'DELETE']),
  /** Statuses that retry an idempotent method: request timeout, rate limited, and the transient 5xx. */
  idempotentStatusCodes: Object.freeze([408, 429, 500, 502, 503, 504]),
  /**
   * Statuses that retry a POST. Only 429: the rate limiter refused the request before the service acted on it.
   * A 5xx may come after the rule or policy was created, so a POST is never repeated on one (no duplicates).
   */
  postStatusCodes: Object.freeze([429]),
  /** Network failures that retry an idempotent method, whether or not the request had been sent. */
  idempotentErrorCodes: Object.freeze([
    'ECONNRESET',
    'ECONNREFUSED',
    'EPIPE',
    'ETIMEDOUT',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'ECONNABORTED',
  ]),
  /**
   * Network failures that happen before a single byte of the request left: the service cannot have acted, so
   * even a POST is retried. A reset or timeout after sending is not in this list.
   */
  notSentErrorCodes: Object.freeze(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']),
  /**
   * Attempts in all, the first one included, when attempts fail for any reason but the rate limit. A 429 is not
   * counted against it: the service did not act and said when to come back, so it is retried while the deadline
   * allows. Processes whose budgets overshoot the limit together (a fleet without the shared store) can each see
   * several 429s in a row before their turn comes; five attempts would fail a deploy that only had to wait.
   */
  maxAttempts: 5,
  /**
   * First backoff cap; the cap doubles each attempt (500, 1000, 2000, ... ms) before the full jitter. Also the
   * spread added to a `Retry-After`: requests refused together come back over this much time, not in one burst.
   */
  baseDelayMs: 500,
  /** Largest backoff cap, whatever the attempt number. */
  maxDelayMs: 30_000,
  /**
   * Longest `Retry-After` the client sits out; a longer one fails the call at once with RateLimitedError.
   * The service blocks an over-limit caller for 5 minutes, so 5 minutes is honoured.
   */
  maxRetryAfterMs: 300_000,
  /**
   * Overall time one call may spend on attempts and retry waits, from its first attempt. A retry whose wait
   * would end past it is not made. Time queued for the rate budget is not counted: that wait is the budget
   * doing its job, not the call failing. Six minutes: one full 5-minute block plus a margin.
   */
  deadlineMs: 360_000,
});

/** A policy with overrides applied; `false` means a single attempt, a 429 included (no time for a retry). */
export function resolveRetryPolicy(override: Partial<RetryPolicy> | false | undefined): RetryPolicy {
  if (override === false) return { ...DEFAULT_RETRY_POLICY, maxAttempts: 1, deadlineMs: 0 };
  const policy = { ...DEFAULT_RETRY_POLICY, ...(override ?? {}) };
  for (const field of ['maxAttempts', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs', 'deadlineMs'] as const) {
    const value = policy[field];
    if (!Number.isFinite(value) || value < 0) {
      throw new TypeError(`retry.${field} must be a non-negative finite number, got ${String(value)}`);
    }
  }
  if (policy.maxAttempts < 1 || !Number.isInteger(policy.maxAttempts)) {
    throw new TypeError(`retry.maxAttempts must be a whole number of at least 1, got ${policy.maxAttempts}`);
  }
  return policy;
}

/** What went wrong with one attempt, as far as the retry decision cares. */
export type AttemptFailure =
  | { kind: 'status'; status: number }
  /** `code` is the system error code; got's own timer reports ETIMEDOUT. */
  | { kind: 'network'; code: string };

/** Whether the failure is the service's rate limiter refusing the request: it did not act on it. */
export function isRateLimited(failure: AttemptFailure): boolean {
  return failure.kind === 'status' && failure.status === 429;
}

/**
 * Whether the attempt count leaves room for another attempt after this failure (`attempt` is the number of the one
 * that failed). A 429 is bounded by the deadline only (see `maxAttempts`).
 */
export function attemptsLeft(attempt: number, failure: AttemptFailure, policy: Pick<RetryPolicy, 'maxAttempts'>): boolean {
  return isRateLimited(failure) || attempt < policy.maxAttempts;
}

/** Whether the policy allows another attempt after this failure (attempt count and deadline aside). */
export function isRetryable(method: string, failure: AttemptFailure, policy: RetryPolicy): boolean {
  const idempotent = policy.idempotentMethods.includes(method.toUpperCase());
  if (failure.kind === 'status') {
    return (idempotent ? policy.idempotentStatusCodes : policy.postStatusCodes).includes(failure.status);
  }
  return (idempotent ? policy.idempotentErrorCodes : policy.notSentErrorCodes).includes(failure.code);
}

/**
 * The wait before the next attempt, in milliseconds. `attempt` is the number of the attempt that just failed
 * (1 for the first). When the service sent a `Retry-After`, that wait plus a uniform draw in [0, baseDelayMs): the
 * service says when it takes requests again, and every request it refused together hears the same time, so each
 * comes back at its own moment past it rather than all in the same millisecond (a herd that the limit refuses
 * again). Otherwise exponential backoff with full jitter: a uniform draw in
 * [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))). `random` is injectable for tests.
 */
export function computeRetryDelay(input: {
  attempt: number;
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  retryAfterMs?: number;
  random?: () => number;
}): number {
  const random = input.random ?? Math.random;
  if (input.retryAfterMs !== undefined) {
    return Math.max(0, Math.ceil(input.retryAfterMs)) + Math.floor(random() * Math.min(input.policy.baseDelayMs, input.policy.maxDelayMs));
  }
  const exponent = Math.max(0, input.attempt - 1);
  const cap = Math.min(input.policy.maxDelayMs, input.policy.baseDelayMs * 2 ** exponent);
  return Math.floor(random() * cap);
}

/**
 * `Retry-After` in milliseconds from now: delta-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00
 * GMT`). A date in the past means now (0). Anything else is ignored (undefined).
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP-date has a weekday or month name; a bare number with a sign or fraction is not valid delta-seconds.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
