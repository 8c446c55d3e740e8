import { randomUUID, scryptSync } from 'node:crypto';
import { Redis } from 'ioredis';
import { sayOnce } from './notices';
import { CLEAN_COMMAND, CLEAN_SCRIPT, END_COMMAND, END_SCRIPT, FLEET_COMMAND, FLEET_SCRIPT } from './rate-budget-store-scripts';
import { redactStoreUrl } from './settings';
import { RedisSlidingWindowRateLimiter, type RedisSlidingWindowRateLimiterOptions } from 'sliding-window-rate-limiter';
import {
  budgetKey,
  sharedRateBudget,
  systemClock,
  type Budget,
  type BudgetKeyParts,
  type Clock,
  type OwnCount,
  type RateBudget,
  type RateBudgetLimits,
  type Release,
} from './rate-budget';
import type { ServiceWord } from './rate-budget';

/**
 * A budget shared by every process that uses the same credentials, through a Redis server (`zoneguard:rateBudgetStore`).
 *
 * The counting is sliding-window-rate-limiter's RedisSlidingWindowRateLimiter: one atomic Lua script per request
 * keeps the times of the requests of the last interval in a sorted set, on the Redis server's clock (`TIME`), so any
 * number of processes on any number of machines, their clocks skewed or not, count together, to the microsecond.
 * It is an exact sliding window, as the service counts (docs/service.md#rate-limit): no interval holds more than
 * `requests` reservations, and a refused reservation says how long until a slot frees (`reset`), which is how long
 * a waiter sleeps.
 *
 * The service counts a request when it receives it, somewhere between our reservation and the answer. So a
 * reservation is moved to the moment its request ended when the slot is given back (StoreConnection.end), as the
 * process's own budget counts from a request's end, and the interval is the budget's window plus a margin for a
 * request still in flight (storeIntervalMs). The process's own budget (RateBudget) is taken
 * first: it bounds the process's requests in flight, keeps the process within the limit when the store cannot be
 * reached, and may wait; the reservation comes after it, right before the request leaves. `Retry-After` is
 * honoured by the transport's retry loop, as without a store.
 */

/** How long the first connection to the store may take before the process gives up on it and keeps its own budget. */
export const STORE_CONNECT_TIMEOUT_MS = 2_000;
/**
 * The deadline of every store call: past it the request is counted by the process's own budget. A store on the
 * fleet's network answers in milliseconds; reservations are made one at a time in a process, so a store that
 * answers in 800 ms would hold each of the process's requests that long (10 sent at once: 8 s).
 */
export const STORE_COMMAND_TIMEOUT_MS = 500;
/**
 * After a store call failed (its deadline passed, the connection is down), how long the process keeps to its own
 * budget alone before it tries the store again: one slow call, not one per request.
 */
export const STORE_RETRY_AFTER_MS = 30_000;
/**
 * The budget of time of a store call: a store on the fleet's network answers in milliseconds. Reservations are made
 * one at a time in a process, so a store answering each call in 400 ms, under the deadline, held every request that
 * long (10 reads at once: 4.98 s, against 0.02 s with a fast store), and said nothing. Past this budget twice in a
 * row (once can be a stalled event loop, measured at 0.3-0.5 s on a loaded machine: BENCHMARKS.md, the fleet bench),
 * the store is left for the process's own budget, as after a failed call (`unusable`), and that is said.
 */
export const STORE_SLOW_CALL_MS = 250;

/**
 * The store's interval for a budget: its window plus a margin of 5% of it (100 ms at 20 per 2 s, 15 s at the
 * service's 1200 per 5 minutes). Requests the service receives in any window were reserved within the window plus
 * the delay between reservation and arrival: the event loop and the request's transit (the reservation is the last
 * step before sending), milliseconds on a working network, but a loaded machine was measured stalling 0.3-0.5 s
 * (BENCHMARKS.md, the fleet bench). Over the limit the service blocks the caller for up to 5 minutes
 * (docs/service.md#rate-limit), so the margin is not capped: it covers a 15 s stall at the service's limit, for 5%
 * of the fleet's pace. Pure.
 */
export function storeIntervalMs(limits: RateBudgetLimits): number {
  return limits.windowMs + Math.ceil(limits.windowMs * 0.05);
}

/**
 * How the store key is derived from the credential: scrypt, a slow and memory-hard KDF (about 0.1 s and 32 MiB
 * each), so that whoever reads the store cannot test guessed tokens against its keys at the speed of a hash (the
 * key was a SHA-256 of base URL and token). Not an HMAC with a per-user secret: every process of a fleet would need
 * that secret beside the credential, one more setting to distribute, and a process with another one would count
 * apart from the others without a word. The credential is the one thing they already share. Derived once per
 * process and credential.
 */
export const STORE_KEY_KDF = Object.freeze({ N: 2 ** 15, r: 8, p: 1, keyLength: 32, salt: 'pulumi-zoneguard rate budget store key v2' });

const derivedKeys = new Map<string, string>();

/** The store key of a budget: scrypt (STORE_KEY_KDF) of base URL, credentials and limits, never a credential. */
export function storeKeyOf(parts: BudgetKeyParts): string {
  const id = budgetKey(parts);
  let key = derivedKeys.get(id);
  if (key === undefined) {
    const { N, r, p, keyLength, salt } = STORE_KEY_KDF;
    const input = JSON.stringify([parts.baseUrl.replace(/\/+$/, ''), parts.secrets, parts.limits.requests, parts.limits.windowMs]);
    key = `zoneguard:rate-budget:v2:${scryptSync(input, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 }).toString('hex')}`;
    derivedKeys.set(id, key);
  }
  return key;
}

/** A store URL without its user and password, for messages: a `redis://` URL may carry the store's password. */
export function storeUrlForMessages(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    // Not a URL, as one whose password holds an unencoded `/`: masked as text (redactStoreUrl), its path cut.
    return redactStoreUrl(url).replace(/^([a-z][a-z0-9+.-]*:\/\/[^/\s]*).*$/i, '$1');
  }
}

/** Told once per process and store when the store cannot be used and the process's own budget applies alone. */
export type StoreWarning = (message: string) => void;

// On stderr, not as a process warning, which `--no-warnings` silences (src/client/notices.ts). Said once per store by
// StoreConnection.
const defaultWarning: StoreWarning = (message) => console.error(message);

/** What the store says of the fleet as an answer is heard (FLEET_SCRIPT). */
export interface FleetCount {
  /** The fleet's requests in the service's window, this process's included. */
  requests: number;
  /** The processes of the fleet heard from within the window, this one included. */
  processes: number;
  /** Members of the set of processes dated after the server's time, removed by this count. */
  removedAhead: number;
}

/** One Redis connection per store URL in the process, opened on first use, never holding the process open. */
export class StoreConnection {
  readonly url: string;
  #ready: Promise<Redis | undefined> | undefined;
  #warned = false;
  readonly #warn: StoreWarning;
  readonly #limiters = new Map<number, RedisSlidingWindowRateLimiter>();
  #endDefined = false;
  #cleanDefined = false;
  #fleetDefined = false;
  /** No store call before this time: the last one failed (`unusable`). */
  #downUntil = Number.NEGATIVE_INFINITY;
  /** Store calls in a row past STORE_SLOW_CALL_MS (`#timed`). */
  #slowCalls = 0;

  constructor(url: string, warn: StoreWarning) {
    this.url = url;
    this.#warn = warn;
  }

  /** The connected client, or undefined when the store could not be reached within STORE_CONNECT_TIMEOUT_MS. */
  ready(): Promise<Redis | undefined> {
    this.#ready ??= this.#connect();
    return this.#ready;
  }

  /** The limiter counting intervals of `intervalMs` on this connection: one per interval, its scripts defined once. */
  limiter(redis: Redis, intervalMs: number): RedisSlidingWindowRateLimiter {
    let limiter = this.#limiters.get(intervalMs);
    if (!limiter) {
      // The library types its `redis` option as its own ioredis 5 with the scripts it defines on it; ours is ioredis
      // 6, whose `defineCommand` and `evalsha` it uses alike (docs/development.md, "Runtime dependencies"). Its own timeout stays
      // off: the connection's command timeout (STORE_COMMAND_TIMEOUT_MS) bounds every count.
      limiter = new RedisSlidingWindowRateLimiter({ redis: redis as unknown as RedisSlidingWindowRateLimiterOptions['redis'], interval: intervalMs });
      this.#limiters.set(intervalMs, limiter);
    }
    return limiter;
  }

  /**
   * Moves a reservation to the moment its request ended, on the server's clock: from then on it counts for a window
   * after the end, as the process's own budget counts, so a request that reached the service late (a stalled event
   * loop, a slow network) is still counted over every window the service counted it in. Member and score stay one
   * value, the microsecond, as the library keeps them (it reads a member as its time). A failure leaves the
   * reservation at its start, where the margin covers the usual delay: nothing to tell.
   */
  async end(redis: Redis, key: string, token: number): Promise<void> {
    if (!this.#endDefined) {
      redis.defineCommand(END_COMMAND, { numberOfKeys: 1, lua: END_SCRIPT });
      this.#endDefined = true;
    }
    try {
      await (redis as unknown as Record<typeof END_COMMAND, (key: string, member: string) => Promise<unknown>>)[END_COMMAND](key, String(token));
    } catch {
      // The reservation stays where it was made.
    }
  }

  /** Removes the members of `key` dated past the server's time plus `intervalMs` (CLEAN_SCRIPT); answers how many. */
  async clean(redis: Redis, key: string, intervalMs: number): Promise<number> {
    if (!this.#cleanDefined) {
      redis.defineCommand(CLEAN_COMMAND, { numberOfKeys: 1, lua: CLEAN_SCRIPT });
      this.#cleanDefined = true;
    }
    const scripted = redis as unknown as Record<typeof CLEAN_COMMAND, (key: string, intervalMs: string) => Promise<unknown>>;
    const removed = Number(await this.#timed(() => scripted[CLEAN_COMMAND](key, String(intervalMs)))) || 0;
    if (removed > 0) {
      sayOnce(
        `rate budget store late ${this.url}`,
        `zoneguard: the rate budget store ${storeUrlForMessages(this.url)} held ${removed} requests dated past its own time and the window (a writer with a skewed clock, or not ours): removed`,
      );
    }
    return removed;
  }

  /** The fleet's requests in the last `windowMs` and its processes, this one (`id`) noted present (FLEET_SCRIPT). */
  async fleet(redis: Redis, key: string, windowMs: number, id: string): Promise<FleetCount> {
    if (!this.#fleetDefined) {
      redis.defineCommand(FLEET_COMMAND, { numberOfKeys: 2, lua: FLEET_SCRIPT });
      this.#fleetDefined = true;
    }
    const scripted = redis as unknown as Record<typeof FLEET_COMMAND, (key: string, processes: string, windowMs: string, id: string) => Promise<unknown[]>>;
    const answer = await this.#timed(() => scripted[FLEET_COMMAND](key, `${key}:processes`, String(windowMs), id));
    const removedAhead = Number(answer[2]) || 0;
    if (removedAhead > 0) {
      sayOnce(
        `rate budget store ahead ${this.url}`,
        `zoneguard: the rate budget store ${storeUrlForMessages(this.url)} held ${removedAhead} processes dated after its own time (a writer with a skewed clock, or not ours): removed`,
      );
    }
    return { requests: Number(answer[0]) || 0, processes: Number(answer[1]) || 0, removedAhead };
  }

  /** A reservation (the limiter's `reserve`) within the budget of time of a store call (`#timed`). */
  reserve(limiter: RedisSlidingWindowRateLimiter, key: string, requests: number): Promise<{ token?: number; reset?: number }> {
    return this.#timed(() => limiter.reserve(key, requests));
  }

  /**
   * A store call, timed: past STORE_SLOW_CALL_MS twice in a row, the store is left for the process's own budget
   * (`unusable`), which is said once. The call's answer is used all the same.
   */
  async #timed<T>(call: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const answer = await call();
    const tookMs = Date.now() - started;
    this.#slowCalls = tookMs > STORE_SLOW_CALL_MS ? this.#slowCalls + 1 : 0;
    if (this.#slowCalls >= 2) {
      this.#slowCalls = 0;
      this.unusable(`it answered in ${tookMs} ms, past its budget of ${STORE_SLOW_CALL_MS} ms a call twice in a row`);
    }
    return answer;
  }

  /** Whether the store is to be asked now: not within STORE_RETRY_AFTER_MS of a failed call. */
  usable(): boolean {
    return Date.now() >= this.#downUntil;
  }

  /** Says once that the store is not used, and why; the process keeps to its own budget for STORE_RETRY_AFTER_MS. */
  unusable(reason: string): void {
    this.#downUntil = Date.now() + STORE_RETRY_AFTER_MS;
    if (this.#warned) return;
    this.#warned = true;
    this.#warn(
      `zoneguard: the rate budget store ${storeUrlForMessages(this.url)} cannot be used (${reason}); ` +
        'this process keeps to its own budget, so processes sharing these credentials may together exceed the service limit',
    );
  }

  async #connect(): Promise<Redis | undefined> {
    const redis = new Redis(this.url, {
      lazyConnect: true,
      connectTimeout: STORE_CONNECT_TIMEOUT_MS,
      commandTimeout: STORE_COMMAND_TIMEOUT_MS,
      // A command fails at once while the connection is down rather than waiting in a queue: the request is then
      // counted by the process's own budget, and a deploy never hangs on the store.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnects in the background after a loss, a little slower each time.
      retryStrategy: (times) => Math.min(times * 500, 5_000),
    });
    redis.on('error', () => undefined); // reported through unusable(), once
    try {
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      this.unusable(describe(error));
      return undefined;
    }
    unref(redis);
    redis.on('connect', () => unref(redis));
    return redis;
  }
}

function unref(redis: Redis): void {
  // The connection must not keep a CLI or a provider process alive after its work is done.
  (redis as unknown as { stream?: { unref?: () => void } }).stream?.unref?.();
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/redis(s)?:\/\/[^\s]*/g, (url) => storeUrlForMessages(url));
}

/** A request counted in the store: its member there, the server's microsecond when it was reserved. */
interface Reservation {
  redis: Redis;
  token: number;
}

/**
 * A budget counted in a Redis store shared by processes, over the process's own budget. One per store and key in
 * the process (storeRateBudget): its callers reserve one at a time, in the order their own slots were given, so a
 * process has one waiter at the store, which sleeps until the slot the store names frees.
 */
export class StoreRateBudget implements Budget {
  readonly #connection: StoreConnection;
  readonly #local: RateBudget;
  readonly #key: string;
  /** The limits counted in the store: the local budget's, which follow the service's word. */
  get #limits(): RateBudgetLimits {
    return this.#local.limits;
  }
  readonly #clock: Clock;
  /** The previous caller's reservation: each reservation queues behind it (FIFO). */
  #tail: Promise<unknown> = Promise.resolve();
  /** This process among the fleet's (FLEET_SCRIPT). */
  readonly #id = randomUUID();
  /** This process's requests counted in the store: those in flight, and when the others ended. */
  #mine = { inFlight: 0, ended: [] as number[] };
  /** The last count of the fleet showed another process (`observe`). */
  #shared = false;

  constructor(connection: StoreConnection, local: RateBudget, key: string, clock: Clock = systemClock) {
    this.#connection = connection;
    this.#local = local;
    this.#key = key;
    this.#clock = clock;
  }

  async acquire(onWait?: (waitMs: number) => void): Promise<Release> {
    let told = false;
    const tellOnce = (waitMs: number) => {
      if (told || !onWait) return;
      told = true;
      onWait(waitMs);
    };
    const release = await this.#local.acquire(tellOnce);
    const turn = this.#tail.then(() => this.#reserve(tellOnce));
    this.#tail = turn.catch(() => undefined);
    let reservation: Reservation | undefined;
    try {
      reservation = await turn;
    } catch (error) {
      release();
      throw error;
    }
    if (!reservation) return release;
    const { redis, token } = reservation;
    this.#mine.inFlight += 1;
    let ended = false;
    return () => {
      release();
      if (ended) return;
      ended = true;
      this.#mine.inFlight -= 1;
      this.#mine.ended.push(this.#clock.now());
      void this.#connection.end(redis, this.#key, token);
    };
  }

  /**
   * Held in this process only: the other processes of the fleet hear their own 429s. The store's count is what
   * keeps them from getting any.
   */
  hold(ms: number): void {
    this.#local.hold(ms);
  }

  /**
   * The process's own budget follows the service's word; the store then counts at the service's limit (its quota
   * and window) under the same key, so every process of the fleet that heard it counts alike.
   *
   * The other processes of the fleet are no unknown spenders: the store keeps them and this one together under the
   * limit. So their requests in the window, as the store counts them, are the fleet's, not another spender's
   * (`OwnCount.fleet`, allowanceAfter). Counted as another spender's, they made every answer show one, and the
   * allowance then added nothing before the service's reset: each process of a fleet of four went at about one request
   * a second, the fleet at 2.6 times the least time the limit allows (BENCHMARKS.md, the fleet bench). A spender the
   * store cannot see (the dashboard, another tool, a second token of the user) still shows in the service's count
   * beyond the fleet's and holds the allowance as it does without a store. The fleet's count is asked after each
   * answer (one store call, FLEET_SCRIPT), which also notes this process present. Until another process of the fleet has
   * heard the service within the window (`FleetCount.processes`), the process follows the word at once as without a
   * store; then, when the count is in; when the store cannot be asked, with its own count alone.
   */
  observe(word: ServiceWord): void {
    const shared = this.#shared;
    // Alone so far: as without a store, at once. In a fleet: when the fleet's count is in (the requests this process
    // sent meanwhile are in flight then).
    if (shared) this.#local.adopt(word);
    else this.#local.observe(word);
    void this.#fleet().then((count) => {
      this.#shared = count !== undefined;
      if (count) this.#local.follow(word, { ...this.#local.spent(), ...count });
      else if (shared) this.#local.follow(word, this.#local.spent());
    });
  }

  /**
   * What is ours of the service's count: this process's requests in the store within the service's window (`used`;
   * its replies come in order on its one connection, so every reservation and end the count saw is known here; its
   * requests still waiting for a reservation are not sent, so not counted), and the other processes' (`fleet`).
   * Undefined when no other process was heard from, or when the store cannot be asked.
   */
  async #fleet(): Promise<Pick<OwnCount, 'used' | 'fleet'> | undefined> {
    if (!this.#connection.usable()) return undefined;
    const redis = await this.#connection.ready();
    if (!redis) return undefined;
    // The service counted its window as it received the request answered; the store counts now, a little later, when
    // some of the fleet's requests it counted may have left the window: counted as another spender's, they would hold
    // the fleet back for nothing. So the count goes back a little further than the window: the store's margin
    // (storeIntervalMs), at most a second, in which an answer reaches the process and the count the store.
    const windowMs = Math.min(storeIntervalMs(this.#limits), this.#limits.windowMs + 1000);
    let fleet: FleetCount;
    try {
      fleet = await this.#connection.fleet(redis, this.#key, windowMs, this.#id);
    } catch (error) {
      this.#connection.unusable(describe(error));
      return undefined;
    }
    const since = this.#clock.now() - windowMs;
    this.#mine.ended = this.#mine.ended.filter((at) => at > since);
    const used = this.#mine.inFlight + this.#mine.ended.length;
    // Each process present heard the service within the window, so it has a request there: more processes than
    // requests are members no process of the fleet wrote, and would shrink every share for nothing.
    const processes = Math.min(fleet.processes, Math.max(1, fleet.requests));
    return processes > 1 ? { used, fleet: { requests: Math.max(0, fleet.requests - used), processes } } : undefined;
  }

  /** Reserves one request in the store, sleeping as long as it says a slot takes to free; never throws. */
  async #reserve(onWait: (waitMs: number) => void): Promise<Reservation | undefined> {
    if (!this.#connection.usable()) return undefined;
    const redis = await this.#connection.ready();
    if (!redis) return undefined;
    const intervalMs = storeIntervalMs(this.#limits);
    const limiter = this.#connection.limiter(redis, intervalMs);
    for (;;) {
      let reserved: { token?: number; reset?: number };
      let removed = 0;
      try {
        reserved = await this.#connection.reserve(limiter, this.#key, this.#limits.requests);
        // A full window: first the members no honest writer dates so late (CLEAN_SCRIPT), then ask again at once.
        if (reserved.token === undefined) removed = await this.#connection.clean(redis, this.#key, intervalMs);
      } catch (error) {
        this.#connection.unusable(describe(error));
        return undefined;
      }
      if (reserved.token !== undefined) return { redis, token: reserved.token };
      if (removed > 0) continue;
      // Never longer than an interval: no member the store keeps can hold a slot longer.
      const waitMs = Math.min(intervalMs, Math.max(1, reserved.reset ?? 1));
      onWait(waitMs);
      await this.#clock.sleep(waitMs);
    }
  }
}

// `.v2`: the registry holds budgets too now; a copy of an older version in the same process keeps its own Map.
const REGISTRY = Symbol.for('pulumi-zoneguard.rate-budget-stores.v2');

/** The process's store connections by URL and budgets by store and key, shared by copies of this package as in rate-budget.ts. */
interface StoreRegistry {
  connections: Map<string, StoreConnection>;
  budgets: Map<string, StoreRateBudget>;
}

function registry(): StoreRegistry {
  const holder = globalThis as { [REGISTRY]?: StoreRegistry };
  holder[REGISTRY] ??= { connections: new Map(), budgets: new Map() };
  return holder[REGISTRY];
}

/**
 * The budget for these credentials counted in the store at `storeUrl` (one connection per store in the process),
 * over the process-wide budget of sharedRateBudget.
 */
export function storeRateBudget(parts: BudgetKeyParts, storeUrl: string, warn: StoreWarning = defaultWarning): StoreRateBudget {
  const { connections, budgets } = registry();
  let connection = connections.get(storeUrl);
  if (!connection) {
    connection = new StoreConnection(storeUrl, warn);
    connections.set(storeUrl, connection);
  }
  const key = storeKeyOf(parts);
  const id = JSON.stringify([storeUrl, key]);
  let budget = budgets.get(id);
  if (!budget) {
    budget = new StoreRateBudget(connection, sharedRateBudget(parts), key);
    budgets.set(id, budget);
  }
  return budget;
}
