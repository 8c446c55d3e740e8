import { createHash } from 'node:crypto';

/** At most `requests` requests in any window of `windowMs` milliseconds. */
export interface RateBudgetLimits {
  requests: number;
  windowMs: number;
}

/** The service's limit: 1200 requests per 5 minutes per user. */
export const DEFAULT_RATE_BUDGET: RateBudgetLimits = Object.freeze({ requests: 1200, windowMs: 300_000 });

/**
 * Bounds of a budget. The budget keeps one slot per request of the window and scans them on every request, so the
 * count is capped far above any real limit (the service's is 1200). A window is waited out with one timer, and
 * Node's timers cannot wait longer than 2^31-1 ms (about 24.8 days): a longer one fires at once, which would turn
 * the wait into a busy loop.
 */
export const RATE_BUDGET_BOUNDS = Object.freeze({ maxRequests: 100_000, maxWindowMs: 2 ** 31 - 1 });

/** What is wrong with these limits, as `requests must be ...`, or undefined when they are usable. */
export function rateBudgetProblem(limits: RateBudgetLimits): string | undefined {
  const { maxRequests, maxWindowMs } = RATE_BUDGET_BOUNDS;
  if (!Number.isInteger(limits.requests) || limits.requests < 1 || limits.requests > maxRequests) {
    return `requests must be a whole number from 1 to ${maxRequests}, got ${String(limits.requests)}`;
  }
  if (!Number.isInteger(limits.windowMs) || limits.windowMs < 1 || limits.windowMs > maxWindowMs) {
    return `windowMs must be a whole number of milliseconds from 1 to ${maxWindowMs} (about 24.8 days), got ${String(limits.windowMs)}`;
  }
  return undefined;
}

/** Time as the budget sees it; injectable so tests run on a fake clock. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Gives back a slot; call it once when the attempt ended (answer or failure). */
export type Release = () => void;

/** What the transport needs of a budget: RateBudget in the process, StoreRateBudget shared through a store. */
export interface Budget {
  /** Waits for a slot and takes it; `onWait` is told the expected wait when there is one. */
  acquire(onWait?: (waitMs: number) => void): Promise<Release>;
  /**
   * The service refused a request for its rate (429) and said to come back in `ms`: no slot is given before then.
   * Every request of the process with these credentials would be refused the same way, so none is sent to be.
   */
  hold(ms: number): void;
}

/** A slot that is in flight: it frees `windowMs` after its request ends, a time not known yet. */
const IN_FLIGHT = Number.POSITIVE_INFINITY;

/**
 * Which slot the next request takes and how long it waits for it. `slots[i]` is the time slot i is free again;
 * `heldUntil` the time before which no slot is given (see `Budget.hold`). Pure: the whole policy of the budget is
 * this function.
 */
export function nextSlot(slots: readonly number[], now: number, heldUntil = Number.NEGATIVE_INFINITY): { index: number; waitMs: number } {
  let index = 0;
  for (let i = 1; i < slots.length; i += 1) {
    if (slots[i]! < slots[index]!) index = i;
  }
  return { index, waitMs: Math.max(0, slots[index]! - now, heldUntil - now) };
}

/**
 * A sliding-window budget kept as N slots. A request takes a slot; the slot frees `windowMs` after the request
 * ENDED, not after it started: the service counts a request when it receives it, at some point before its answer
 * arrives, so counting from the end keeps us under the limit whatever the transit time. Callers are served in
 * order, so N+1 requests in a window of N make the last one wait instead of tripping the service's limit (which
 * blocks the caller for 5 minutes).
 */
export class RateBudget {
  readonly limits: RateBudgetLimits;
  readonly #clock: Clock;
  readonly #slots: number[];
  /** Resolvers of the caller waiting for an in-flight slot to end. */
  #wakers: Array<() => void> = [];
  /** The previous caller's turn: each acquire queues behind it (FIFO). */
  #tail: Promise<unknown> = Promise.resolve();
  /** No slot is given before this time (`hold`). */
  #heldUntil = Number.NEGATIVE_INFINITY;

  constructor(limits: RateBudgetLimits, clock: Clock = systemClock) {
    const problem = rateBudgetProblem(limits);
    if (problem) throw new TypeError(`rateBudget.${problem}`);
    this.limits = { requests: limits.requests, windowMs: limits.windowMs };
    this.#clock = clock;
    this.#slots = new Array<number>(limits.requests).fill(Number.NEGATIVE_INFINITY);
  }

  /**
   * Waits for a slot and takes it. `onWait` is told the expected wait when there is one (for progress logs).
   * The returned release must be called when the request ended.
   */
  acquire(onWait?: (waitMs: number) => void): Promise<Release> {
    const turn = this.#tail.then(() => this.#take(onWait));
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  hold(ms: number): void {
    this.#heldUntil = Math.max(this.#heldUntil, this.#clock.now() + ms);
  }

  /** How many slots are free right now (for tests and logs). */
  available(): number {
    const now = this.#clock.now();
    return this.#slots.filter((freeAt) => freeAt <= now).length;
  }

  async #take(onWait?: (waitMs: number) => void): Promise<Release> {
    let told = false;
    for (;;) {
      const { index, waitMs } = nextSlot(this.#slots, this.#clock.now(), this.#heldUntil);
      if (waitMs === 0) {
        this.#slots[index] = IN_FLIGHT;
        return this.#releaser(index);
      }
      if (!told && onWait) {
        onWait(waitMs);
        told = true;
      }
      if (waitMs === IN_FLIGHT) {
        // Every slot is in flight: the first release decides when a slot frees.
        await new Promise<void>((resolve) => this.#wakers.push(resolve));
      } else {
        await this.#clock.sleep(waitMs);
      }
    }
  }

  #releaser(index: number): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#slots[index] = this.#clock.now() + this.limits.windowMs;
      const wakers = this.#wakers;
      this.#wakers = [];
      for (const wake of wakers) wake();
    };
  }
}

/** Identifies what the service counts against: the origin and path of the API and the caller's identity. */
export interface BudgetKeyParts {
  baseUrl: string;
  /** The credential values; they go into the hash only, never into the key itself. */
  secrets: readonly string[];
  limits: RateBudgetLimits;
}

/** A SHA-256 of the parts: the key of the shared budget, from which no credential can be read back. */
export function budgetKey(parts: BudgetKeyParts): string {
  return createHash('sha256')
    .update(JSON.stringify([parts.baseUrl.replace(/\/+$/, ''), parts.secrets, parts.limits.requests, parts.limits.windowMs]))
    .digest('hex');
}

/**
 * Budgets shared by every client of the process with the same key. Kept on globalThis under a registered symbol
 * so two copies of this package loaded in one process (nested node_modules) still share one budget.
 */
// `.v2`: budgets have `hold` now; a copy of an older version in the same process keeps its own Map.
const REGISTRY = Symbol.for('pulumi-zoneguard.rate-budgets.v2');

function registry(): Map<string, RateBudget> {
  const holder = globalThis as { [REGISTRY]?: Map<string, RateBudget> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** The process-wide budget for these credentials, base URL and limits, created on first use. */
export function sharedRateBudget(parts: BudgetKeyParts): RateBudget {
  const key = budgetKey(parts);
  const budgets = registry();
  let budget = budgets.get(key);
  if (!budget) {
    budget = new RateBudget(parts.limits);
    budgets.set(key, budget);
  }
  return budget;
}
