import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { budgetKey, sharedRateBudget, systemClock, type Budget, type BudgetKeyParts, type Clock, type RateBudget, type RateBudgetLimits, type Release } from './rate-budget';

/**
 * A budget shared by every process that uses the same credentials, through a Redis server (`zoneguard:rateBudgetStore`).
 *
 * The counting is rate-limiter-flexible's RateLimiterRedis: one atomic Lua script per request increments a counter
 * that expires with its window, so any number of processes on any number of machines count together. Its windows
 * are fixed and whole seconds, while the service counts any 5 minutes (docs/service.md#rate-limit): two fixed
 * windows of N side by side would let 2N through in one sliding window. So the store counts in short windows
 * (`storeWindows`) with a share of the budget small enough that any span of `windowMs` holds no more than
 * `requests`, even counting one more window for a request counted at the end of one and received in the next.
 *
 * The process's own budget (RateBudget) still applies on top: it keeps this process within the limit when the
 * store cannot be reached. `Retry-After` is honoured by the transport's retry loop, as without a store.
 */

/** How long the first connection to the store may take before the process gives up on it and keeps its own budget. */
export const STORE_CONNECT_TIMEOUT_MS = 2_000;
/** How long one counting command may take: past it the request is counted by the process's own budget. */
export const STORE_COMMAND_TIMEOUT_MS = 1_000;
/** The store's windows per window of the budget: more gives a smoother pace, fewer a larger share of the budget. */
export const STORE_WINDOWS_PER_BUDGET = 10;

/**
 * The store's fixed windows for a budget: `durationSec` long (RateLimiterRedis counts whole seconds) with `points`
 * requests each. Any span of `windowMs` overlaps at most `ceil(windowMs / duration) + 1` windows, plus one for a
 * request counted at the end of a window and received by the service in the next, so `points` is the budget over
 * that many windows. Pure.
 */
export function storeWindows(limits: RateBudgetLimits): { durationSec: number; points: number } {
  const durationSec = Math.max(1, Math.ceil(limits.windowMs / STORE_WINDOWS_PER_BUDGET / 1000));
  const spanned = Math.ceil(limits.windowMs / (durationSec * 1000)) + 2;
  // Below `spanned` requests a window the store still lets one through per window; each process's own budget holds.
  return { durationSec, points: Math.max(1, Math.floor(limits.requests / spanned)) };
}

/** The store key of a budget: a SHA-256 of base URL, credentials and limits (budgetKey), never a credential. */
export function storeKeyOf(parts: BudgetKeyParts): string {
  return `zoneguard:rate-budget:${budgetKey(parts)}`;
}

/** A store URL without its user and password, for messages: a `redis://` URL may carry the store's password. */
export function storeUrlForMessages(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the store';
  }
}

/** Told once per process and store when the store cannot be used and the process's own budget applies alone. */
export type StoreWarning = (message: string) => void;

const defaultWarning: StoreWarning = (message) => process.emitWarning(message, { code: 'ZONEGUARD_RATE_BUDGET_STORE' });

/** One Redis connection per store URL in the process, opened on first use, never holding the process open. */
export class StoreConnection {
  readonly url: string;
  #ready: Promise<Redis | undefined> | undefined;
  #warned = false;
  readonly #warn: StoreWarning;

  constructor(url: string, warn: StoreWarning) {
    this.url = url;
    this.#warn = warn;
  }

  /** The connected client, or undefined when the store could not be reached within STORE_CONNECT_TIMEOUT_MS. */
  ready(): Promise<Redis | undefined> {
    this.#ready ??= this.#connect();
    return this.#ready;
  }

  /** Says once that the store is not used, and why. */
  unusable(reason: string): void {
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

/** A budget counted in a Redis store shared by processes, with the process's own budget under it. */
export class StoreRateBudget implements Budget {
  readonly #connection: StoreConnection;
  readonly #local: RateBudget;
  readonly #key: string;
  readonly #limits: RateBudgetLimits;
  readonly #clock: Clock;
  #limiter: RateLimiterRedis | undefined;

  constructor(connection: StoreConnection, local: RateBudget, key: string, clock: Clock = systemClock) {
    this.#connection = connection;
    this.#local = local;
    this.#key = key;
    this.#limits = local.limits;
    this.#clock = clock;
  }

  async acquire(onWait?: (waitMs: number) => void): Promise<Release> {
    await this.#takeShared(onWait);
    return this.#local.acquire(onWait);
  }

  async #takeShared(onWait?: (waitMs: number) => void): Promise<void> {
    const redis = await this.#connection.ready();
    if (!redis) return;
    const { durationSec, points } = storeWindows(this.#limits);
    this.#limiter ??= new RateLimiterRedis({ storeClient: redis, keyPrefix: 'zoneguard', points, duration: durationSec });
    let told = false;
    for (;;) {
      try {
        await this.#limiter.consume(this.#key, 1);
        return;
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) {
          this.#connection.unusable(describe(outcome));
          return;
        }
        if (!told && onWait) {
          onWait(outcome.msBeforeNext);
          told = true;
        }
        await this.#clock.sleep(Math.max(1, outcome.msBeforeNext));
      }
    }
  }
}

const REGISTRY = Symbol.for('pulumi-zoneguard.rate-budget-stores');

function connections(): Map<string, StoreConnection> {
  const holder = globalThis as { [REGISTRY]?: Map<string, StoreConnection> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/**
 * The budget for these credentials counted in the store at `storeUrl` (one connection per store in the process),
 * over the process-wide budget of sharedRateBudget.
 */
export function storeRateBudget(parts: BudgetKeyParts, storeUrl: string, warn: StoreWarning = defaultWarning): StoreRateBudget {
  const stores = connections();
  let connection = stores.get(storeUrl);
  if (!connection) {
    connection = new StoreConnection(storeUrl, warn);
    stores.set(storeUrl, connection);
  }
  return new StoreRateBudget(connection, sharedRateBudget(parts), storeKeyOf(parts));
}
