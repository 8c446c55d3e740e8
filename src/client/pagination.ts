import type { ResultInfo } from '../schemas';

/** One page of a list: its items and the service's paging facts (absent on lists the service does not page). */
export interface Page<T> {
  items: T[];
  resultInfo: ResultInfo | undefined;
}

/**
 * Every item of a list, page after page, fetched lazily as the loop asks for more:
 * `for await (const script of client.scripts.list({ zoneId }))`. `pages()` walks whole pages, `toArray()` collects.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: (page: number) => Promise<Page<T>>;

  constructor(fetchPage: (page: number) => Promise<Page<T>>) {
    this.#fetchPage = fetchPage;
  }

  /** Pages from the first until `result_info` says there is no next one (a list without it is one page). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    for (let number = 1; ; number += 1) {
      const page = await this.#fetchPage(number);
      yield page;
      if (!hasNextPage(page, number)) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Every item of every page in one array. */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/**
 * Whether to ask for page `number + 1`. An empty page ends the walk even if `total_pages` says otherwise, so a
 * list that shrinks while it is walked cannot loop forever.
 */
export function hasNextPage(page: Page<unknown>, number: number): boolean {
  const info = page.resultInfo;
  if (!info || page.items.length === 0) return false;
  return number < info.total_pages;
}
