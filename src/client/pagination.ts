import type { ResultInfo } from '../schemas';

/** One page of a list: its items and the service's paging facts (absent on lists the service does not page). */
export interface Page<T> {
  items: T[];
  resultInfo: ResultInfo | undefined;
}

/**
 * Every item of a list, page after page, fetched as the loop asks for more (past the first page, one page ahead:
 * see `pages()`): `for await (const script of client.scripts.list({ zoneId }))`. `pages()` walks whole pages, `toArray()` collects.
 * `perPage` is the page size the walk asks for, or undefined for a list the service answers in one page.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: (page: number) => Promise<Page<T>>;
  readonly #perPage: number | undefined;

  constructor(fetchPage: (page: number) => Promise<Page<T>>, perPage?: number) {
    this.#fetchPage = fetchPage;
    this.#perPage = perPage;
  }

  /**
   * Pages from the first until there is no next one (see `hasNextPage`). From the second page on, the walk reads one
   * page ahead where the paging facts received so far say that page exists (`pageExists`): the page after the one
   * handed out is asked for as soon as that one has arrived, or as soon as the loop asks for a page already asked for
   * ahead, so the service prepares it while this process reads the current one (docs/client.md#list-walk-cost).
   * At most two requests are in flight, the page the loop waits for and the one after it; each goes through the rate
   * budget and the retries as any call. A loop that stops early has cost that one request more, and the walk ends
   * only once it has settled, so no request outlives the walk. The first page is never read past: a loop that wants
   * one page (or part of it) makes one request.
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let previousFirst: string | undefined;
    /** The page asked for ahead of the loop, not yet handed out. */
    let ahead: { number: number; page: Promise<Page<T>> } | undefined;
    /** The last page received and its number: the facts that say whether a later page exists. */
    let known: { page: Page<T>; number: number } | undefined;
    const readAhead = (number: number) =>
      known && pageExists(known.page, known.number, number) ? { number, page: this.#fetch(number) } : undefined;
    try {
      for (let number = 1; ; number += 1) {
        let current: Promise<Page<T>>;
        if (ahead?.number === number) {
          // This page was asked for while the previous one was read: the next one can be asked for now.
          current = ahead.page;
          ahead = readAhead(number + 1);
        } else {
          current = this.#fetch(number);
          ahead = undefined;
        }
        const page = await current;
        // A service that ignores `page` would answer the first page forever: a page starting like the previous one ends the walk.
        const first = page.items.length > 0 ? JSON.stringify(page.items[0]) : undefined;
        if (number > 1 && first !== undefined && first === previousFirst) return;
        previousFirst = first;
        known = { page, number };
        if (!ahead && number > 1) ahead = readAhead(number + 1);
        yield page;
        if (!hasNextPage(page, number, this.#perPage)) return;
      }
    } finally {
      // A page asked for ahead and not handed out: its answer (or failure) is dropped once it has arrived.
      if (ahead) await ahead.page.catch(() => undefined);
    }
  }

  /** One page; a failure stays unobserved until the walk awaits it (a page read ahead may never be). */
  #fetch(number: number): Promise<Page<T>> {
    const page = this.#fetchPage(number);
    page.catch(() => undefined);
    return page;
  }

  /**
   * Items one by one. Written as a plain iterator rather than `yield*` in an async generator: that resumes a generator
   * and settles extra promises per item, a cost that shows when a walk has 10,000 of them (BENCHMARKS.md). Pages are
   * asked for as `pages()` does; `break` (return) ends the walk.
   */
  [Symbol.asyncIterator](): AsyncIterator<T, void, undefined> {
    const pages = this.pages();
    let items: readonly T[] = [];
    let index = 0;
    return {
      async next(): Promise<IteratorResult<T, void>> {
        while (index >= items.length) {
          const page = await pages.next();
          if (page.done) return { done: true, value: undefined };
          items = page.value.items;
          index = 0;
        }
        const value = items[index]!;
        index += 1;
        return { done: false, value };
      },
      async return(): Promise<IteratorResult<T, void>> {
        await pages.return();
        return { done: true, value: undefined };
      },
    };
  }

  /** Every item of every page in one array. */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/**
 * Whether to ask for page `number + 1`. With `result_info`, while `total_pages` says so, or `total_count` and
 * `per_page` when total_pages is absent (the public API's firewall rules, filters and previous-WAF lists omit
 * it). Without `result_info` (the emulator's lists outside page security, docs/service.md#envelope), while pages come back full: stopping after
 * the first page there is the bug of the generated SDKs. An empty page always ends the walk, so a list that
 * shrinks while it is walked cannot loop forever.
 */
export function hasNextPage(page: Page<unknown>, number: number, perPage: number | undefined): boolean {
  if (page.items.length === 0) return false;
  const info = page.resultInfo;
  if (info?.total_pages !== undefined) return number < info.total_pages;
  if (info && info.per_page > 0) return number * info.per_page < info.total_count;
  return perPage !== undefined && page.items.length === perPage;
}

/**
 * Whether page `number` exists by the paging facts of an earlier page: only a list whose `result_info` counts its
 * pages or items says so ahead of time. Without it, a full page does not tell whether the next one has items, so the
 * walk reads no page ahead.
 */
export function pageExists(page: Page<unknown>, pageNumber: number, number: number): boolean {
  if (page.items.length === 0 || number <= pageNumber) return false;
  const info = page.resultInfo;
  if (info?.total_pages !== undefined) return number <= info.total_pages;
  if (info && info.per_page > 0) return (number - 1) * info.per_page < info.total_count;
  return false;
}
