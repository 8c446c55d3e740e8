import { z } from 'zod';
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

interface ActiveFault {
  spec: z.output<typeof FaultSpecSchema>;
  serverErrorsLeft: number;
  tooManyLeft: number;
  resetsLeft: number;
  losesLeft: number;
  /** Arrival times of the requests `rateLimit` let through in its last window, oldest first. */
  admitted: number[];
  /** Until when `rateLimit` refuses every request: the caller went over the limit. */
  blockedUntil: number;
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
      admitted: [],
      blockedUntil: Number.NEGATIVE_INFINITY,
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

  /** The delay and the outcome for a request; `apiPath` is the path after the base URL. */
  decide(method: string, apiPath: string, fullPath: string, now: number, random: () => number = Math.random): { latencyMs: number; outcome?: FaultOutcome } {
    let latencyMs = 0;
    let outcome: FaultOutcome | undefined;
    for (const fault of this.active) {
      const { spec } = fault;
      if (spec.match?.method !== undefined && spec.match.method.toUpperCase() !== method.toUpperCase()) continue;
      const prefix = spec.match?.pathPrefix;
      if (prefix !== undefined && !apiPath.startsWith(prefix) && !fullPath.startsWith(prefix)) continue;
      latencyMs = Math.max(latencyMs, spec.latencyMs ?? 0);
      if (outcome) continue;
      // A request the rate limit admits counts in its window, whatever else happens to it.
      const retryAfterSeconds = spec.rateLimit ? this.countInWindow(fault, spec.rateLimit, now) : undefined;
      if (fault.resetsLeft > 0) {
        fault.resetsLeft--;
        outcome = { kind: 'reset', fault: 'resetConnections' };
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
    return outcome ? { latencyMs, outcome } : { latencyMs };
  }

  /**
   * The service's limit counts any window (docs/service.md#rate-limit): a request is refused while the last
   * `windowMs` already hold `requests` admitted ones, and that refusal blocks the caller for `blockMs` (default
   * `windowMs`), with `Retry-After` until the block ends; a request during the block is refused the same way and does
   * not lengthen it. Refused requests are not counted. Returns the seconds to wait, or undefined when the request is
   * admitted.
   */
  private countInWindow(fault: ActiveFault, limit: RateLimitSpec, now: number): number | undefined {
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
