import { PageIterator, pageExists, type Page } from '../../src/client/pagination';
import { SCRIPT_COUNT, ZONE, clientOf, useClientZones } from './harness';

// The list walk reads one page ahead from the second page on (docs/client.md#list-walk-cost): which page it may ask
// for, when, what an early stop costs, and what the service sees.

const info = (page: number, total_pages: number, count = 2) => ({ page, per_page: 2, count, total_count: total_pages * 2, total_pages });

describe('pageExists', () => {
  it.each<[string, Page<number>, number, number, boolean]>([
    ['page 3 of 4, told by page 1', { items: [1, 2], resultInfo: info(1, 4) }, 1, 3, true],
    ['page 4 of 4, told by page 2', { items: [3, 4], resultInfo: info(2, 4) }, 2, 4, true],
    ['page 5 of 4', { items: [5, 6], resultInfo: info(3, 4) }, 3, 5, false],
    ['a page before the one that tells', { items: [3, 4], resultInfo: info(2, 4) }, 2, 2, false],
    ['an empty page tells nothing', { items: [], resultInfo: info(2, 4, 0) }, 2, 3, false],
    ['without total_pages: page 3 of 5 items', { items: [1, 2], resultInfo: { page: 1, per_page: 2, count: 2, total_count: 5 } }, 1, 3, true],
    ['without total_pages: page 4 of 5 items', { items: [1, 2], resultInfo: { page: 1, per_page: 2, count: 2, total_count: 5 } }, 1, 4, false],
    ['without result_info a full page tells nothing', { items: [1, 2], resultInfo: undefined }, 1, 2, false],
  ])('%s', (_label, page, pageNumber, number, expected) => {
    expect(pageExists(page, pageNumber, number)).toBe(expected);
  });
});

describe('PageIterator reading ahead', () => {
  const four: Array<Page<number>> = [1, 2, 3, 4].map((n) => ({ items: [2 * n - 1, 2 * n], resultInfo: info(n, 4) }));

  it('asks for the page after the one it hands out, from the second page on', async () => {
    const asked: number[] = [];
    const seen: Array<[number, number[]]> = [];
    for await (const item of new PageIterator(async (n) => (asked.push(n), four[n - 1]!))) seen.push([item, [...asked]]);
    expect(seen).toEqual([
      [1, [1]],
      [2, [1]],
      [3, [1, 2, 3]],
      [4, [1, 2, 3]],
      [5, [1, 2, 3, 4]],
      [6, [1, 2, 3, 4]],
      [7, [1, 2, 3, 4]],
      [8, [1, 2, 3, 4]],
    ]);
  });

  it('costs one request more when the loop stops in the second page, and ends once that request has settled', async () => {
    const asked: number[] = [];
    let answerThird: (page: Page<number>) => void = () => undefined;
    const third = new Promise<Page<number>>((resolve) => (answerThird = resolve));
    const events: string[] = [];
    const walk = (async () => {
      for await (const item of new PageIterator(async (n) => (asked.push(n), n === 3 ? third : four[n - 1]!))) {
        if (item === 3) break;
      }
      events.push('walk ended');
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    events.push('page 3 answered');
    answerThird(four[2]!);
    await walk;
    expect(asked).toEqual([1, 2, 3]);
    expect(events).toEqual(['page 3 answered', 'walk ended']);
  });

  it('drops the failure of a page read ahead that the loop never reaches', async () => {
    const iterator = new PageIterator(async (n) => {
      if (n === 3) throw new Error('page 3 failed');
      return four[n - 1]!;
    });
    const seen: number[] = [];
    for await (const item of iterator) {
      seen.push(item);
      if (item === 4) break;
    }
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('passes the failure of a page read ahead to the loop that reaches it', async () => {
    const iterator = new PageIterator(async (n) => {
      if (n === 3) throw new Error('page 3 failed');
      return four[n - 1]!;
    });
    await expect(iterator.toArray()).rejects.toThrow('page 3 failed');
  });

  it('reads no page ahead of a list whose answers do not count their pages', async () => {
    const bare = [[1, 2], [3, 4], [5, 6], [7]].map((items) => ({ items, resultInfo: undefined }));
    const asked: number[] = [];
    const seen: Array<[number, number[]]> = [];
    for await (const item of new PageIterator(async (n) => (asked.push(n), bare[n - 1]!), 2)) seen.push([item, [...asked]]);
    expect(seen.map(([item, before]) => [item, before.length])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 3],
      [6, 3],
      [7, 4],
    ]);
  });
});

describe('the walk against the emulator', () => {
  const emulator = useClientZones();

  async function pagesAsked(): Promise<string[]> {
    const log = await emulator().admin.requests();
    return log.filter((r) => r.method === 'GET' && r.path.endsWith('/page_guard/scripts')).map((r) => String(r.query['page']));
  }

  it('asks for each page once, however far ahead', async () => {
    const all = await clientOf(emulator()).scripts.list({ zoneId: ZONE, perPage: 5 }).toArray();
    expect(all).toHaveLength(SCRIPT_COUNT.active);
    const pages = Math.ceil(SCRIPT_COUNT.active / 5);
    expect((await pagesAsked()).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: pages }, (_, i) => String(i + 1)));
  });

  it('has asked for one page past the one where the loop stopped', async () => {
    // The loop stops at the first script.
    for await (const _script of clientOf(emulator()).scripts.list({ zoneId: ZONE, perPage: 5 })) break;
    expect(await pagesAsked()).toEqual(['1']);
    await emulator().admin.clearRequests();
    let seen = 0;
    for await (const script of clientOf(emulator()).scripts.list({ zoneId: ZONE, perPage: 5 })) {
      seen += script.url.length > 0 ? 1 : 0;
      if (seen === 6) break;
    }
    expect((await pagesAsked()).sort()).toEqual(['1', '2', '3']);
  });
});
