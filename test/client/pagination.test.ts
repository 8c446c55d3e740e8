import { hasNextPage, PageIterator, type Page } from '../../src/client/pagination';

const info = (page: number, total_pages: number, count = 2) => ({ page, per_page: 2, count, total_count: total_pages * 2, total_pages });

describe('hasNextPage', () => {
  it.each<[string, Page<number>, number, number | undefined, boolean]>([
    ['an unpaged list', { items: [1, 2], resultInfo: undefined }, 1, undefined, false],
    ['first of three', { items: [1, 2], resultInfo: info(1, 3) }, 1, 2, true],
    ['last of three', { items: [5, 6], resultInfo: info(3, 3) }, 3, 2, false],
    ['empty page although total_pages says more', { items: [], resultInfo: info(2, 5, 0) }, 2, 2, false],
    ['zero pages', { items: [], resultInfo: info(1, 0, 0) }, 1, 2, false],
    ['a full page without result_info', { items: [1, 2], resultInfo: undefined }, 1, 2, true],
    ['a short page without result_info', { items: [3], resultInfo: undefined }, 2, 2, false],
    ['an empty page without result_info', { items: [], resultInfo: undefined }, 3, 2, false],
    ['page 1 of 5 items without total_pages', { items: [1, 2], resultInfo: { page: 1, per_page: 2, count: 2, total_count: 5 } }, 1, 2, true],
    ['page 3 of 5 items without total_pages', { items: [5], resultInfo: { page: 3, per_page: 2, count: 1, total_count: 5 } }, 3, 2, false],
    ['page 2 of 4 items without total_pages', { items: [3, 4], resultInfo: { page: 2, per_page: 2, count: 2, total_count: 4 } }, 2, 2, false],
  ])('%s', (_label, page, number, perPage, expected) => {
    expect(hasNextPage(page, number, perPage)).toBe(expected);
  });
});

describe('PageIterator', () => {
  const pages: Array<Page<number>> = [
    { items: [1, 2], resultInfo: info(1, 3) },
    { items: [3, 4], resultInfo: info(2, 3) },
    { items: [5], resultInfo: info(3, 3, 1) },
  ];

  it('walks every page lazily, in order', async () => {
    const asked: number[] = [];
    const iterator = new PageIterator(async (n) => {
      asked.push(n);
      return pages[n - 1]!;
    });
    expect(asked).toEqual([]);
    const seen: number[] = [];
    // The pages asked for when each item was handed out: the first page is never read past.
    const askedAt: number[][] = [];
    for await (const item of iterator) {
      seen.push(item);
      askedAt.push([...asked]);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(askedAt.slice(0, 2)).toEqual([[1], [1]]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('stops fetching when the loop breaks', async () => {
    const asked: number[] = [];
    for await (const item of new PageIterator(async (n) => (asked.push(n), pages[n - 1]!))) {
      if (item === 1) break;
    }
    expect(asked).toEqual([1]);
  });

  it('collects with toArray and walks whole pages with pages()', async () => {
    const iterator = new PageIterator(async (n) => pages[n - 1]!);
    expect(await iterator.toArray()).toEqual([1, 2, 3, 4, 5]);
    const infos: number[] = [];
    for await (const page of iterator.pages()) infos.push(page.resultInfo!.page);
    expect(infos).toEqual([1, 2, 3]);
  });

  it('walks a paged list whose answers carry no result_info until a short page', async () => {
    const bare = [[1, 2], [3, 4], [5]].map((items) => ({ items, resultInfo: undefined }));
    const asked: number[] = [];
    expect(await new PageIterator(async (n) => (asked.push(n), bare[n - 1]!), 2).toArray()).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('stops when the service ignores the page number and answers the first page again', async () => {
    const asked: number[] = [];
    const same = new PageIterator(async (n) => (asked.push(n), { items: [1, 2], resultInfo: undefined }), 2);
    expect(await same.toArray()).toEqual([1, 2]);
    expect(asked).toEqual([1, 2]);
  });

  it('passes a failure of a page through to the loop', async () => {
    const iterator = new PageIterator(async (n) => {
      if (n === 2) throw new Error('page 2 failed');
      return pages[n - 1]!;
    });
    await expect(iterator.toArray()).rejects.toThrow('page 2 failed');
  });
});
