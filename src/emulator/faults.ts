import { z } from 'zod';
import { EMULATOR_USER } from './credentials';
import { ErrorCode, Messages } from './errors';

/** The longest injected latency: Node's timers fire at once past 2^31 ms, which would be no delay at all. */
export const MAX_LATENCY_MS = 600_000;

/** Which requests a fault applies to: a method and/or a path prefix (relative to the base URL, or absolute). */
export const FaultMatchSchema = z.strictObject({
  method: z.string().min(1).optional(),
  pathPrefix: z.string().min(1).optional(),
});

/** One set of faults, all restricted by the same optional `match`. */
export const FaultSpecSchema = z.strictObject({
  /** Delay before every matching request is handled; at most 10 minutes (a longer timer would fire at once). */
  latencyMs: z.number().int().min(0).max(MAX_LATENCY_MS, `must be at most ${MAX_LATENCY_MS} (10 minutes)`).optional(),
  /** Share (0-1) of matching requests answered 500, 502 or 503 at random. */
  serverErrorRate: z.number().min(0).max(1).optional(),
  /** The next N matching requests answer `serverErrorStatus`. */
  serverErrors: z.number().int().min(0).optional(),
  /** Status of `serverErrors`; defaults to 500. */
  serverErrorStatus: z.number().int().min(500).max(599).optional(),
  /** The next `count` matching requests answer 429 code 971 with `Retry-After: retryAfterSeconds`. */
  tooManyRequests: z.strictObject({ count: z.number().int().min(0), retryAfterSeconds: z.number().int().min(0).max(86_400).default(1) }).optional(),
  /** The next N matching requests have their connection destroyed before any answer. */
  resetConnections: z.number().int().min(0).optional(),
  /**
   * The next N matching requests reach the service, which acts and answers, but the answer is lost on the way back:
   * a proxy's 502 page (not the service's envelope) arrives instead. The client cannot tell it from a 502 before.
   */
  loseAnswers: z.number().int().min(0).optional(),
  /**
   * The service's own limit: at most `requests` in any window of `windowMs`; a request over it is refused with 429
   * code 971 and blocks the caller for `blockMs` from then (default `windowMs`: the service's block is 5 minutes, its
   * window at its limit), every request refused until the block ends.
   */
  rateLimit: z
    .strictObject({
      requests: z.number().int().min(1),
      windowMs: z.number().int().min(1).max(86_400_000),
      blockMs: z.number().int().min(0).max(86_400_000).optional(),
    })
    .optional(),
  /**
   * The service's limit per IP address (docs/service.md#rate-limit): at most `requests` (default 200) in any window of
   * `windowMs` (default 1000) from one address, whatever the credentials; a request over it is refused with 429 code
   * 971 and `Retry-After: 1`, is not counted (neither here nor in the user's `rateLimit`), and blocks nothing further.
   */
  ipRateLimit: z
    .strictObject({
      requests: z.number().int().min(1).default(200),
      windowMs: z.number().int().min(1).max(86_400_000).default(1000),
    })
    .optional(),
  /**
   * `false`: matching answers carry no `Ratelimit` headers, as behind a proxy that strips them or from a revision of
   * the service before them; the client then keeps to its own budget alone.
   */
  rateLimitHeaders: z.boolean().optional(),
  match: FaultMatchSchema.optional(),
});
export type FaultSpec = z.input<typeof FaultSpecSchema>;
type RateLimitSpec = NonNullable<z.output<typeof FaultSpecSchema>['rateLimit']>;

/**
 * Body of PUT /__admin/faults: one spec, or several with their own `match`. The shape is chosen before parsing, so
 * that every error names its field (`0.serverError: ...`), which a union of the two would lose.
 */
export function faultsBodySchema(body: unknown) {
  return Array.isArray(body) ? z.array(FaultSpecSchema) : FaultSpecSchema;
}

/** What the fault layer does to a request. */
export type FaultOutcome =
  | { kind: 'reset'; fault: string }
  /** Let the request through; replace its answer with a proxy's 502 page. */
  | { kind: 'lose'; fault: string }
  | { kind: 'answer'; fault: string; status: number; code: number; message: string; retryAfterSeconds?: number };

/** One user's count under a limit (docs/service.md#rate-limit: the service counts per user). */
interface UserWindow {
  /** Arrival times of the requests let through in the last window, oldest first. */
  admitted: number[];
  /** Until when every request is refused: the user went over the limit. */
  blockedUntil: number;
}

interface ActiveFault {
  spec: z.output<typeof FaultSpecSchema>;
  serverErrorsLeft: number;
  tooManyLeft: number;
  resetsLeft: number;
  losesLeft: number;
  /** `rateLimit`'s count, per user. */
  windows: Map<string, UserWindow>;
  /** `ipRateLimit`'s count, per address. */
  ipWindows: Map<string, UserWindow>;
}

/**
 * What the service says of a user's budget on every answer (docs/service.md#rate-limit): `Ratelimit:
 * "default";r=<remaining>;t=<seconds>` and `Ratelimit-Policy: "default";q=<quota>;w=<window seconds>`.
 */
export interface RateLimitWord {
  remaining: number;
  /** Seconds until the remaining count rises: the oldest counted request leaves the window, or the block ends. */
  resetSeconds: number;
  quota: number;
  windowSeconds: number;
}

/** A user's word under a limit at `now`, once the request being answered was counted. Pure. */
export function rateLimitWord(window: UserWindow, limit: { requests: number; windowMs: number }, now: number): RateLimitWord {
  const blocked = now < window.blockedUntil;
  const oldest = window.admitted[0];
  const resetMs = blocked ? window.blockedUntil - now : oldest === undefined ? 0 : oldest + limit.windowMs - now;
  return {
    remaining: blocked ? 0 : Math.max(0, limit.requests - window.admitted.length),
    resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)),
    quota: limit.requests,
    windowSeconds: Math.max(1, Math.ceil(limit.windowMs / 1000)),
  };
}

/** The response headers of a word, as the service writes them. */
export function rateLimitHeaders(word: RateLimitWord): Record<string, string> {
  return {
    ratelimit: `"default";r=${word.remaining};t=${word.resetSeconds}`,
    'ratelimit-policy': `"default";q=${word.quota};w=${word.windowSeconds}`,
  };
}

function windowOf(windows: Map<string, UserWindow>, user: string): UserWindow {
  let window = windows.get(user);
  if (!window) {
    window = { admitted: [], blockedUntil: Number.NEGATIVE_INFINITY };
    windows.set(user, window);
  }
  return window;
}

const RANDOM_STATUSES = [500, 502, 503] as const;

/** The injected faults and their counters; `decide` is called once per API request. */
export class FaultEngine {
  private active: ActiveFault[] = [];

  set(specs: z.output<typeof FaultSpecSchema> | z.output<typeof FaultSpecSchema>[]): void {
    this.active = (Array.isArray(specs) ? specs : [specs]).map((spec) => ({
      spec,
      serverErrorsLeft: spec.serverErrors ?? 0,
      tooManyLeft: spec.tooManyRequests?.count ?? 0,
      resetsLeft: spec.resetConnections ?? 0,
      losesLeft: spec.loseAnswers ?? 0,
      windows: new Map(),
      ipWindows: new Map(),
    }));
  }

  clear(): void {
    this.active = [];
  }

  /** The faults as set, with what is left of their counts. */
  describe() {
    return this.active.map((a) => ({
      ...a.spec,
      remaining: { serverErrors: a.serverErrorsLeft, tooManyRequests: a.tooManyLeft, resetConnections: a.resetsLeft, loseAnswers: a.losesLeft },
    }));
  }

  /**
   * The delay, the outcome and the rate limit word for a request of `user` from address `ip`; `apiPath` is the path
   * after the base URL.
   * The word is the first matching `rateLimit` fault's count: the emulator says the limit it enforces, and without
   * the fault it enforces none (a limit said but not enforced would slow every client that follows it for nothing).
   */
  decide(
    method: string,
    apiPath: string,
    fullPath: string,
    now: number,
    random: () => number = Math.random,
    user = EMULATOR_USER,
    ip = '127.0.0.1',
  ): { latencyMs: number; outcome?: FaultOutcome; word?: RateLimitWord } {
    let latencyMs = 0;
    let outcome: FaultOutcome | undefined;
    let word: RateLimitWord | undefined;
    let silent = false;
    for (const fault of this.active) {
      const { spec } = fault;
      if (spec.match?.method !== undefined && spec.match.method.toUpperCase() !== method.toUpperCase()) continue;
      const prefix = spec.match?.pathPrefix;
      if (prefix !== undefined && !apiPath.startsWith(prefix) && !fullPath.startsWith(prefix)) continue;
      latencyMs = Math.max(latencyMs, spec.latencyMs ?? 0);
      if (spec.rateLimitHeaders === false) silent = true;
      if (outcome) continue;
      // The address's limit first: a request it refuses never reaches the user's count.
      const ipLimit = spec.ipRateLimit && { ...spec.ipRateLimit, blockMs: 0 };
      const ipRetryAfter = ipLimit ? this.countInWindow(windowOf(fault.ipWindows, ip), ipLimit, now) : undefined;
      // A request the rate limit admits counts in its window, whatever else happens to it.
      const window = spec.rateLimit && ipRetryAfter === undefined ? windowOf(fault.windows, user) : undefined;
      const retryAfterSeconds = spec.rateLimit && window ? this.countInWindow(window, spec.rateLimit, now) : undefined;
      if (spec.rateLimit && window && word === undefined) word = rateLimitWord(window, spec.rateLimit, now);
      if (fault.resetsLeft > 0) {
        fault.resetsLeft--;
        outcome = { kind: 'reset', fault: 'resetConnections' };
      } else if (ipRetryAfter !== undefined) {
        outcome = {
          kind: 'answer',
          fault: 'ipRateLimit',
          status: 429,
          code: ErrorCode.rateLimited,
          message: Messages.rateLimited,
          retryAfterSeconds: ipRetryAfter,
        };
      } else if (retryAfterSeconds !== undefined) {
        outcome = { kind: 'answer', fault: 'rateLimit', status: 429, code: ErrorCode.rateLimited, message: Messages.rateLimited, retryAfterSeconds };
      } else if (fault.tooManyLeft > 0) {
        fault.tooManyLeft--;
        outcome = {
          kind: 'answer',
          fault: 'tooManyRequests',
          status: 429,
          code: ErrorCode.rateLimited,
          message: Messages.rateLimited,
          retryAfterSeconds: spec.tooManyRequests?.retryAfterSeconds ?? 1,
        };
      } else if (fault.serverErrorsLeft > 0) {
        fault.serverErrorsLeft--;
        const status = spec.serverErrorStatus ?? 500;
        outcome = { kind: 'answer', fault: 'serverErrors', status, code: ErrorCode.internal, message: Messages.injectedServerError(status) };
      } else if (fault.losesLeft > 0) {
        fault.losesLeft--;
        outcome = { kind: 'lose', fault: 'loseAnswers' };
      } else if (spec.serverErrorRate !== undefined && random() < spec.serverErrorRate) {
        const status = RANDOM_STATUSES[Math.floor(random() * RANDOM_STATUSES.length)] ?? 500;
        outcome = { kind: 'answer', fault: 'serverErrorRate', status, code: ErrorCode.internal, message: Messages.injectedServerError(status) };
      }
    }
    const said = silent || word === undefined ? {} : { word };
    return outcome ? { latencyMs, outcome, ...said } : { latencyMs, ...said };
  }

  /**
   * The service's limit counts any window (docs/service.md#rate-limit): a request is refused while the last
   * `windowMs` already hold `requests` admitted ones, and that refusal blocks the caller for `blockMs` (default
   * `windowMs`), with `Retry-After` until the block ends; a request during the block is refused the same way and does
   * not lengthen it. Refused requests are not counted. Returns the seconds to wait, or undefined when the request is
   * admitted.
   */
  private countInWindow(fault: UserWindow, limit: Omit<RateLimitSpec, 'blockMs'> & { blockMs?: number }, now: number): number | undefined {
    const { admitted } = fault;
    const retryAfter = () => Math.max(1, Math.ceil((fault.blockedUntil - now) / 1000));
    if (now < fault.blockedUntil) return retryAfter();
    while (admitted.length > 0 && now - admitted[0]! >= limit.windowMs) admitted.shift();
    if (admitted.length < limit.requests) {
      admitted.push(now);
      return undefined;
    }
    fault.blockedUntil = now + (limit.blockMs ?? limit.windowMs);
    return retryAfter();
  }
}
