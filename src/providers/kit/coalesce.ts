// Refresh reads coalesced (issue 17): the engine asks a provider for the reads of a refresh as separate calls, a few at
// a time (its `--parallel`, 4 per CPU by default), and sends the next ones as soon as those are answered. Reads of one
// kind in one zone that arrive within a short window are answered from a walk of the zone's list, page by page, and
// what the walk has seen answers the reads that follow while they keep coming back to back, so a refresh walks each
// zone's list about once instead of reading every object. What a read returns stays exactly what a single read
// returns: an object the walk has not shown is read on its own, so only the service's own 10013 says it is gone
// (docs/service.md#errors).
//
// The price is staleness, and it is bounded to what the engine's stream of reads needs (issue 27): a walk answers a
// batch only if it arrives within STREAM_GAP_MS of the walk's last answers, and never past LISTING_FRESH_MS. Each
// answer is then at most as old as the run of reads it belongs to. Any pause longer than the gap (the end of a
// refresh, a `get` later in the program, a test changing the zone out of band between two reads) starts a new walk,
// so a change made during such a pause is seen. Exactness for every read would need a listing after each batch
// arrives: about one call per `--parallel` reads instead of one per list.

import type { ZoneGuardClient } from '../../client';

/** How long a read waits for others of its kind and zone: the engine sends a refresh's reads within milliseconds. */
export const COALESCE_WINDOW_MS = 5;

/**
 * The most time from a walk's first page to a read it answers, however steadily the reads come: about one refresh of
 * a few thousand resources (a refresh of 1,600 took 7.9 s, BENCHMARKS.md). Any write of this process to the zone and
 * kind ends the walk at once (`forget`).
 */
export const LISTING_FRESH_MS = 10_000;

/**
 * The longest pause between a walk's answers and the next batch it may answer. The engine sends a refresh's next
 * reads as soon as the previous ones are answered (a few ms apart; tens under load), so a longer pause means the
 * stream of reads the walk was made for has ended; a later batch gets a walk of its own.
 */
export const STREAM_GAP_MS = 1_000;

/**
 * Whether a batch of reads walks one more page of the zone's list. Pure: the whole policy of coalescing is this
 * function. A batch walks only while some of its reads are still unanswered, and spends fewer pages than it has
 * reads, so a lone read is a single GET, and a walk of a zone far larger than the stack costs at most about twice
 * the single reads it was meant to save (the walk's pages are then left to the next batches).
 */
export function walkNextPage(batch: number, spent: number, unanswered: number): boolean {
  return unanswered > 0 && spent + 1 < batch;
}

/**
 * Whether a walk begun at `since`, which last answered a batch at `served`, may answer a batch whose first read
 * arrived at `arrived`, at `now`. Pure.
 */
export function isFresh(walk: { since: number; served: number }, arrived: number, now: number): boolean {
  return now - walk.since < LISTING_FRESH_MS && arrived - walk.served < STREAM_GAP_MS;
}

/** Which of the read ids the listed objects answer, and which must be read on their own. Pure. */
export function matchListed<T>(ids: readonly string[], listed: ReadonlyMap<string, T>): { found: Map<string, T>; unlisted: string[] } {
  const found = new Map<string, T>();
  const unlisted: string[] = [];
  for (const id of ids) {
    const object = listed.get(id);
    if (object === undefined) unlisted.push(id);
    else found.set(id, object);
  }
  return { found, unlisted };
}

/**
 * What a coalescer needs of one kind of object, each call made with the client of the read that asked (the
 * handler's context, kit/context.ts). The client is also what the walks belong to: another one starts them afresh.
 */
export interface CoalescedKind<T extends { id: string }> {
  /** The single read: the object, or undefined when the service said 10013. */
  read(client: ZoneGuardClient, zoneId: string, id: string): Promise<T | undefined>;
  /** The zone's list, one page (one call) at a time, in pages of the largest size the service allows. */
  pages(client: ZoneGuardClient, zoneId: string): AsyncIterator<{ items: readonly T[] }>;
}

interface Batch<T> {
  arrived: number;
  /** The client of the batch's first read: one per provider process and configuration. */
  client: ZoneGuardClient;
  waiters: Array<Waiter<T>>;
}

interface Waiter<T> {
  id: string;
  resolve(value: T | undefined): void;
  reject(error: unknown): void;
}

/** A walk of one zone's list: what it has seen so far, and where it stands. */
interface Walk<T> {
  scope: ZoneGuardClient;
  since: number;
  /** When it last answered a batch (its start until then). */
  served: number;
  seen: Map<string, T>;
  pages: AsyncIterator<{ items: readonly T[] }>;
  done: boolean;
}

/**
 * Gathers the reads of one kind per zone for COALESCE_WINDOW_MS, then answers what the zone's walk has seen, walks on
 * while walkNextPage says so, and reads the rest one by one. Batches of one zone run one after the other, so they
 * share its walk. A page that fails ends the walk, and its reads are read one by one, so each read fails or
 * succeeds as it would alone.
 */
export class ReadCoalescer<T extends { id: string }> {
  readonly #kind: CoalescedKind<T>;
  readonly #pending = new Map<string, Batch<T>>();
  readonly #walks = new Map<string, Walk<T>>();
  readonly #queues = new Map<string, Promise<void>>();
  readonly #listings = new Map<string, { scope: ZoneGuardClient; objects: Promise<readonly T[]> }>();

  constructor(kind: CoalescedKind<T>) {
    this.#kind = kind;
  }

  /** The object as a single read would answer it, or undefined when the service says it is gone (10013). */
  read(client: ZoneGuardClient, zoneId: string, id: string): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      let batch = this.#pending.get(zoneId);
      if (!batch) {
        batch = { arrived: Date.now(), client, waiters: [] };
        this.#pending.set(zoneId, batch);
        setTimeout(() => this.#enqueue(zoneId), COALESCE_WINDOW_MS);
      }
      batch.waiters.push({ id, resolve, reject });
    });
  }

  /**
   * The zone's whole list as it was at the first call of the provider process (one run) and its configuration:
   * where a create looks for the object its own interrupted run made (kit/marker.ts, docs/ownership.md#leftovers).
   * One list read per zone and run, whatever the number of creates; a failed one is read again by the next call.
   */
  listing(client: ZoneGuardClient, zoneId: string): Promise<readonly T[]> {
    const scope = client;
    const known = this.#listings.get(zoneId);
    if (known && known.scope === scope) return known.objects;
    const objects = (async () => {
      const all: T[] = [];
      const pages = this.#kind.pages(client, zoneId);
      for (let page = await pages.next(); !page.done; page = await pages.next()) all.push(...page.value.items);
      return all;
    })();
    this.#listings.set(zoneId, { scope, objects });
    objects.catch(() => {
      if (this.#listings.get(zoneId)?.objects === objects) this.#listings.delete(zoneId);
    });
    return objects;
  }

  /** Ends what the zone's walk answers: called on every write of this kind to the zone, so a read sees the write. */
  forget(zoneId: string): void {
    this.#walks.delete(zoneId);
  }

  /** A write to the zone, after which (done or failed: it may have acted) the zone's walk answers no more reads. */
  async writing<R>(zoneId: string, call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } finally {
      this.forget(zoneId);
    }
  }

  #enqueue(zoneId: string): void {
    const batch = this.#pending.get(zoneId);
    this.#pending.delete(zoneId);
    if (!batch) return;
    const { arrived, client, waiters } = batch;
    const previous = this.#queues.get(zoneId) ?? Promise.resolve();
    // Whatever fails before the reads are under way (no configuration yet) fails them all, rather than leave them hanging.
    const next = previous.then(() => this.#serve(client, zoneId, arrived, waiters)).catch((error: unknown) => {
      for (const waiter of waiters) waiter.reject(error);
    });
    this.#queues.set(zoneId, next);
    void next.finally(() => {
      if (this.#queues.get(zoneId) === next) this.#queues.delete(zoneId);
    });
  }

  /** The zone's walk if it may answer a batch that arrived at `arrived`, else a new one (its first page not asked for yet). */
  #walkOf(scope: ZoneGuardClient, zoneId: string, arrived: number): Walk<T> {
    const walk = this.#walks.get(zoneId);
    if (walk && walk.scope === scope && isFresh(walk, arrived, Date.now())) return walk;
    const now = Date.now();
    const fresh: Walk<T> = { scope, since: now, served: now, seen: new Map(), pages: this.#kind.pages(scope, zoneId), done: false };
    this.#walks.set(zoneId, fresh);
    return fresh;
  }

  async #serve(client: ZoneGuardClient, zoneId: string, arrived: number, waiters: ReadonlyArray<Waiter<T>>): Promise<void> {
    const ids = [...new Set(waiters.map((waiter) => waiter.id))];
    const walk = this.#walkOf(client, zoneId, arrived);
    let { unlisted } = matchListed(ids, walk.seen);
    for (let spent = 0; !walk.done && walkNextPage(ids.length, spent, unlisted.length); spent += 1) {
      try {
        const page = await walk.pages.next();
        if (page.done) walk.done = true;
        else for (const object of page.value.items) walk.seen.set(object.id, object);
      } catch {
        // Read one by one instead, each then ending as it would have alone; the next batch starts a new walk.
        this.forget(zoneId);
        break;
      }
      ({ unlisted } = matchListed(ids, walk.seen));
    }
    // A walk that has ended has seen everything it will: what it did not show is read on its own (10013 or new).
    const singles = new Map(unlisted.map((id) => [id, this.#kind.read(client, zoneId, id)]));
    // The engine sends the next reads of those workers once these are answered: the stream goes on from then.
    void Promise.allSettled(singles.values()).then(() => {
      walk.served = Math.max(walk.served, Date.now());
    });
    for (const waiter of waiters) {
      const single = singles.get(waiter.id);
      if (single) single.then(waiter.resolve, waiter.reject);
      else waiter.resolve(walk.seen.get(waiter.id));
    }
    walk.served = Date.now();
  }
}
