import type { ResultInfo } from '../schemas';

/** One page of a list: its items and the service's paging facts (absent on lists the service does not page). */
export interface Page<T> {
  items: T[];
  resultInfo: ResultInfo | undefined;
}

/**
 * Every item of a list, page after page, fetched lazily as the loop asks for more:
 * `for await (const script of client.scripts.list({ zoneId }))`. `pages()` walks whole pages, `toArray()` collects.
 * `perPage` is the page size the walk asks for, or undefined for a list the service answers in one page.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: (page: number) => Promise<Page<T>>;
  readonly #perPage: number | undefined;

  constructor(fetchPage: (page: number) => Promise<Page<T>>, perPage?: number) {
    this.#fetchPage = fetchPage;
    this.#perPage = perPage;
  }

  /** Pages from the first until there is no next one (see `hasNextPage`). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let previousFirst: string | undefined;
    for (let number = 1; ; number += 1) {
      const page = await this.#fetchPage(number);
      // A service that ignores `page` would answer the first page forever: a page starting like the previous one ends the walk.
      const first = page.items.length > 0 ? JSON.stringify(page.items[0]) : undefined;
      if (number > 1 && first !== undefined && first === previousFirst) return;
      previousFirst = first;
      yield page;
      if (!hasNextPage(page, number, this.#perPage)) return;
    }
  }

  /**
   * Items one by one. Written as a plain iterator rather than `yield*` in an async generator: that resumes a generator
   * and settles extra promises per item, a cost that shows when a walk has 10,000 of them (BENCHMARKS.md). The next
   * page is still asked for only when the loop wants an item past the current one; `break` (return) ends the walk.
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
