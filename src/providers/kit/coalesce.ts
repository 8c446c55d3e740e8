// Refresh reads coalesced (issue 17): the engine asks a provider for the reads of a refresh all at once, each as its
// own call. Reads of one kind in one zone that arrive within a short window are answered from one list walk when
// that costs fewer calls than one read each. What a read returns stays exactly what a single read returns: an object
// the list does not show is read on its own, so only the service's own 10013 says it is gone (docs/service.md#errors).

/** How long a read waits for others of its kind and zone: the engine sends a refresh's reads within milliseconds. */
export const COALESCE_WINDOW_MS = 5;

/** How a batch of reads of one zone is served. Pure: the whole policy of coalescing is this function. */
export function planReads(pending: number, listCalls: number): 'list' | 'single' {
  return pending > listCalls ? 'list' : 'single';
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

/** What a coalescer needs of one kind of object. */
export interface CoalescedKind<T> {
  /** The single read: the object, or undefined when the service said 10013. */
  read(zoneId: string, id: string): Promise<T | undefined>;
  /** Every object of the zone, by id, from the list endpoint. */
  list(zoneId: string): Promise<ReadonlyMap<string, T>>;
  /** Calls a list walk of the zone costs (1 for a list the service answers in one page). */
  listCalls: number;
}

interface Waiter<T> {
  id: string;
  resolve(value: T | undefined): void;
  reject(error: unknown): void;
}

/**
 * Gathers the reads of one kind per zone for COALESCE_WINDOW_MS, then serves them by one list walk or by single
 * reads (planReads). A list that fails falls back to single reads, so each read fails or succeeds as it would alone.
 */
export class ReadCoalescer<T> {
  readonly #kind: CoalescedKind<T>;
  readonly #pending = new Map<string, Array<Waiter<T>>>();

  constructor(kind: CoalescedKind<T>) {
    this.#kind = kind;
  }

  /** The object as a single read would answer it, or undefined when the service says it is gone (10013). */
  read(zoneId: string, id: string): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      let waiters = this.#pending.get(zoneId);
      if (!waiters) {
        waiters = [];
        this.#pending.set(zoneId, waiters);
        setTimeout(() => void this.#flush(zoneId), COALESCE_WINDOW_MS);
      }
      waiters.push({ id, resolve, reject });
    });
  }

  async #flush(zoneId: string): Promise<void> {
    const waiters = this.#pending.get(zoneId) ?? [];
    this.#pending.delete(zoneId);
    const ids = [...new Set(waiters.map((waiter) => waiter.id))];
    let found = new Map<string, T>();
    let unlisted = ids;
    if (planReads(ids.length, this.#kind.listCalls) === 'list') {
      try {
        ({ found, unlisted } = matchListed(ids, await this.#kind.list(zoneId)));
      } catch {
        // Served one by one instead: each read then ends as it would have alone.
      }
    }
    const singles = new Map(unlisted.map((id) => [id, this.#kind.read(zoneId, id)]));
    for (const waiter of waiters) {
      const single = singles.get(waiter.id);
      if (single) single.then(waiter.resolve, waiter.reject);
      else waiter.resolve(found.get(waiter.id));
    }
  }
}
