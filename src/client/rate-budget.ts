import { createHash } from 'node:crypto';

/**
 * What the service said of the caller's budget on one answer (docs/service.md#rate-limit): how many requests it
 * still takes and when that count rises, and, when it said so, its limit.
 */
export interface ServiceWord {
  remaining: number;
  /** Milliseconds from the answer until the remaining count rises; at most SERVICE_WINDOW_MS. */
  resetMs: number;
  /**
   * The service's quota and window (`Ratelimit-Policy`, every policy of it honoured; the window unsaid, as with
   * `X-RateLimit-Limit`: undefined).
   */
  limits?: RateBudgetLimits;
  /** What was odd in the headers and how it was read; absent when nothing was. */
  notes?: WordNote[];
}

/** Something odd in the service's word, said once per process and kind (src/client/notices.ts). */
export interface WordNote {
  kind: 'reset' | 'window' | 'policies';
  line: string;
}

/** At most `requests` requests in any window of `windowMs` milliseconds. */
export interface RateBudgetLimits {
  requests: number;
  windowMs: number;
}

/** The service's limit: 1200 requests per 5 minutes per user. */
export const DEFAULT_RATE_BUDGET: RateBudgetLimits = Object.freeze({ requests: 1200, windowMs: 300_000 });

/**
 * The service's window (docs/service.md#rate-limit: 1200 requests per 5 minutes; a raised limit keeps the window):
 * nothing the service says of its count can mean a longer wait. An answer saying longer is hostile or broken (a reset
 * of a day, a Unix time in milliseconds read as seconds, a window of 24.8 days), and taken as said it made a deploy
 * wait a day, or overflowed Node's timers (2^31-1 ms), which then fire at once: a busy loop that never sends. So a
 * longer reset or window is read as this one (service-word.ts), and a 429 holds the budget no longer (`hold`).
 */
export const SERVICE_WINDOW_MS = DEFAULT_RATE_BUDGET.windowMs;

/**
 * The service's other limit: 200 requests a second per IP address, whatever the credentials (docs/service.md#rate-limit).
 * The client keeps every request of the process to one host under it (`perSecondBudget`).
 */
export const DEFAULT_REQUESTS_PER_SECOND = 200;

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

/** What is wrong with a per-second cap, as `must be ...`, or undefined when it is usable. */
export function requestsPerSecondProblem(requests: number): string | undefined {
  const { maxRequests } = RATE_BUDGET_BOUNDS;
  return Number.isInteger(requests) && requests >= 1 && requests <= maxRequests
    ? undefined
    : `must be a whole number of requests from 1 to ${maxRequests}, got ${String(requests)}`;
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

/** How many more requests may leave before `resetAt`, from the service's last word. */
export interface Allowance {
  left: number;
  resetAt: number;
}

/** No word from the service yet: nothing held. */
export const NO_ALLOWANCE: Allowance = Object.freeze({ left: Number.POSITIVE_INFINITY, resetAt: Number.NEGATIVE_INFINITY });

/** What the process knows of its own spending as an answer arrives. */
export interface OwnCount {
  /** Its other requests on their way (the answer's own not included). */
  inFlight: number;
  /** Its requests the service's window still holds: in flight or within the window (the answer's own included). */
  used: number;
  /** The limit in force (the service's, once it said it). */
  quota: number;
  /**
   * With the shared store, once another process of the fleet heard the service within the window: the others'
   * requests the window holds and how many processes the fleet has, this one included, as the store counts them.
   */
  fleet?: { requests: number; processes: number };
}

/**
 * The allowance after the service's word, heard at `now`: half of what is left, less the process's requests in
 * flight. The service counts per user, so another spender of the same user (a second token, the dashboard, another
 * tool) spends the same count, and a process cannot tell one is there until both have spent: two that each take half
 * of what they hear never pass it together. Once the word shows another spender (the service counted more than this
 * process and its fleet used), an answer no longer adds to what the last one granted until that one's reset: the
 * other's requests in flight are not in the count yet, and each re-grant would spend them twice. A process alone gets
 * a fresh grant from every answer, so it still spends all but the last request of a window.
 *
 * A process of a fleet (`own.fleet`: the shared store counts the other processes' requests, which are then ours, not
 * another spender's) whose word shows no spender beyond the fleet takes all that is left, less its requests in flight:
 * every process of the fleet hears the same count, so the half one of them kept would be taken by the others and kept
 * for no one; the store, which counts every request of the fleet, keeps them together under the limit. Halved, a fleet
 * of four went at 1.2 times the least time of the limit (BENCHMARKS.md, the fleet bench). Once a spender beyond the
 * fleet shows, the half is kept for it, and each of the fleet's processes takes its part of the other half. Pure.
 */
export function allowanceAfter(previous: Allowance, word: ServiceWord, now: number, own: OwnCount): Allowance {
  const others = own.quota - word.remaining - own.used - (own.fleet?.requests ?? 0);
  const processes = Math.max(1, own.fleet?.processes ?? 1);
  const share = processes > 1 && others <= 0 ? word.remaining : Math.floor(word.remaining / 2 / processes);
  const fresh = { left: Math.max(0, share - own.inFlight), resetAt: now + word.resetMs };
  if (others > 0 && now < previous.resetAt) {
    return { left: Math.min(previous.left, fresh.left), resetAt: Math.max(previous.resetAt, fresh.resetAt) };
  }
  return fresh;
}

/**
 * The allowance as a request is about to take a slot at `now`: spent, it holds until `resetAt`; past that, one
 * request goes to hear the service again (and another each second while none answers). Pure.
 */
export function allowanceAt(allowance: Allowance, now: number): { waitMs: number; next: Allowance } {
  if (allowance.left > 0) return { waitMs: 0, next: { left: allowance.left - 1, resetAt: allowance.resetAt } };
  if (now < allowance.resetAt) return { waitMs: allowance.resetAt - now, next: allowance };
  return { waitMs: 0, next: { left: 0, resetAt: now + 1000 } };
}

/** What the transport needs of a budget: RateBudget in the process, StoreRateBudget shared through a store. */
export interface Budget {
  /**
   * The service said what is left of the user's count and its limit (on any answer): the budget follows it, so a
   * raised limit is used and another spender of the same user slows this process down instead of causing 429s.
   */
  observe(word: ServiceWord): void;
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
export class RateBudget implements Budget {
  /** The limits in force: as configured, until the service says its own (`observe`). */
  limits: RateBudgetLimits;
  readonly #clock: Clock;
  readonly #slots: number[];
  /** Resolvers of the caller waiting for an in-flight slot to end. */
  #wakers: Array<() => void> = [];
  /** The previous caller's turn: each acquire queues behind it (FIFO). */
  #tail: Promise<unknown> = Promise.resolve();
  /** No slot is given before this time (`hold`). */
  #heldUntil = Number.NEGATIVE_INFINITY;
  /** What the service's last word leaves (`observe`). */
  #allowance: Allowance = NO_ALLOWANCE;

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
    // The service blocks an over-limit caller for up to its window (docs/service.md#rate-limit).
    this.#heldUntil = Math.max(this.#heldUntil, this.#clock.now() + Math.min(ms, SERVICE_WINDOW_MS));
  }

  observe(word: ServiceWord): void {
    this.adopt(word);
    // The answer's own request is still in flight (its slot is given back after this).
    this.follow(word, this.spent(1));
  }

  /** The service's limits, when it said them, replace the ones assumed (`Ratelimit-Policy`). */
  adopt(word: ServiceWord): void {
    if (word.limits) this.#resize(word.limits);
  }

  /** What the process has spent as the budget counts it now, `answered` of its requests in flight answered already. */
  spent(answered = 0): OwnCount {
    const now = this.#clock.now();
    const inFlight = Math.max(0, this.#slots.filter((freeAt) => freeAt === IN_FLIGHT).length - answered);
    const used = this.#slots.filter((freeAt) => freeAt > now).length;
    return { inFlight, used, quota: this.limits.requests };
  }

  /**
   * The allowance after the service's word, with `own` what is ours of the service's count: the process's (`spent`),
   * or with the shared store, the fleet's (StoreRateBudget.observe).
   */
  follow(word: ServiceWord, own: OwnCount): void {
    this.#allowance = allowanceAfter(this.#allowance, word, this.#clock.now(), own);
    this.#wake();
  }

  /** The service's limit replaces the one assumed: slots added free, or free ones dropped (those in flight stay). */
  #resize(limits: RateBudgetLimits): void {
    if (limits.requests === this.limits.requests && limits.windowMs === this.limits.windowMs) return;
    this.limits = { requests: limits.requests, windowMs: limits.windowMs };
    while (this.#slots.length < limits.requests) this.#slots.push(Number.NEGATIVE_INFINITY);
    // Only from the end, so the index an in-flight request will give back stays its own.
    while (this.#slots.length > limits.requests && this.#slots.at(-1) !== IN_FLIGHT) this.#slots.pop();
  }

  /** How many slots are free right now (for tests and logs). */
  available(): number {
    const now = this.#clock.now();
    return this.#slots.filter((freeAt) => freeAt <= now).length;
  }

  async #take(onWait?: (waitMs: number) => void): Promise<Release> {
    let told = false;
    for (;;) {
      const now = this.#clock.now();
      const slot = nextSlot(this.#slots, now, this.#heldUntil);
      const allowance = allowanceAt(this.#allowance, now);
      const waitMs = slot.waitMs === IN_FLIGHT ? IN_FLIGHT : Math.max(slot.waitMs, allowance.waitMs);
      if (waitMs === 0) {
        this.#allowance = allowance.next;
        this.#slots[slot.index] = IN_FLIGHT;
        return this.#releaser(slot.index);
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
      if (index < this.#slots.length) this.#slots[index] = this.#clock.now() + this.limits.windowMs;
      this.#wake();
    };
  }

  #wake(): void {
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const wake of wakers) wake();
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

/**
 * The process's budget of requests per second to the host of `baseUrl`, shared by every client of the process that
 * talks to it, whatever their credentials: the service counts this limit per IP address, so per machine, not per user
 * (the store, shared per user across machines, does not hold it). Created on first use.
 */
export function perSecondBudget(baseUrl: string, requests: number): RateBudget {
  const key = `per-second ${new URL(baseUrl).origin} ${requests}`;
  const budgets = registry();
  let budget = budgets.get(key);
  if (!budget) {
    budget = new RateBudget({ requests, windowMs: 1000 });
    budgets.set(key, budget);
  }
  return budget;
}

/**
 * Both budgets: a request takes a slot of the user's budget (`user`, whose waits can be minutes), then one of the
 * per-second cap, and gives both back when it ends. In that order so that no slot of the cap, which other
 * credentials of the process share, is held through a wait of the user's budget. What the service says of the user's
 * count (`observe`, `hold`) is the user's budget's alone.
 */
export function withPerSecondCap(user: Budget | undefined, cap: Budget): Budget {
  if (!user) return { observe: () => undefined, hold: () => undefined, acquire: (onWait) => cap.acquire(onWait) };
  return {
    observe: (word) => user.observe(word),
    hold: (ms) => user.hold(ms),
    async acquire(onWait) {
      const releaseUser = await user.acquire(onWait);
      let releaseCap: Release;
      try {
        releaseCap = await cap.acquire(onWait);
      } catch (error) {
        releaseUser();
        throw error;
      }
      return () => {
        releaseCap();
        releaseUser();
      };
    },
  };
}
