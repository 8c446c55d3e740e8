import { CONNECTION_COUNT, COOKIE_COUNT, SCRIPT_COUNT, ZONE, clientOf, failure, useClientZones, MISSING_ID } from './harness';
import { NotFoundError } from '../../src/client';

// Scripts, connections and cookies against the emulator: every page walked, one page with its result_info, get.

const emulator = useClientZones();

/** The page numbers of the list requests the emulator saw, in order. */
async function pagesAsked(segment: string): Promise<string[]> {
  const log = await emulator().admin.requests();
  return log.filter((r) => r.method === 'GET' && r.path.endsWith(`/page_guard/${segment}`)).map((r) => String(r.query['page']));
}

describe('scripts', () => {
  it('walks every page with for await (4 pages of 10)', async () => {
    const client = clientOf(emulator());
    const urls: string[] = [];
    for await (const script of client.scripts.list({ zoneId: ZONE, perPage: 10 })) urls.push(script.url);
    expect(urls).toHaveLength(SCRIPT_COUNT.active);
    expect(new Set(urls).size).toBe(SCRIPT_COUNT.active);
    expect(await pagesAsked('scripts')).toEqual(['1', '2', '3', '4']);
  });

  it('asks for 100 a page by default, the fewest requests under the rate limit', async () => {
    const all = await clientOf(emulator()).scripts.list({ zoneId: ZONE }).toArray();
    expect(all).toHaveLength(SCRIPT_COUNT.active);
    const log = await emulator().admin.requests();
    // exclude_cdn_cgi=false: the service's default leaves /cdn-cgi/ scripts out, the client's lists them.
    expect(log.map((r) => r.query)).toEqual([{ page: '1', per_page: '100', exclude_cdn_cgi: 'false' }]);
  });

  it('fetches one page with its result_info', async () => {
    const { items, resultInfo } = await clientOf(emulator()).scripts.listPage({ zoneId: ZONE, page: 2, perPage: 10 });
    expect(items).toHaveLength(10);
    expect(resultInfo).toEqual({ page: 2, per_page: 10, count: 10, total_count: SCRIPT_COUNT.active, total_pages: 4 });
  });

  it('filters by status and hosts', async () => {
    const client = clientOf(emulator());
    const both = await client.scripts.list({ zoneId: ZONE, status: ['active', 'infrequent'], perPage: 15 }).toArray();
    expect(both).toHaveLength(SCRIPT_COUNT.active + SCRIPT_COUNT.infrequent);
    const infrequent = await client.scripts.list({ zoneId: ZONE, status: 'infrequent' }).toArray();
    expect(infrequent.map((s) => s.status)).toEqual(['infrequent', 'infrequent', 'infrequent']);
    const blog = await client.scripts.list({ zoneId: ZONE, hosts: 'blog.*', perPage: 5 }).toArray();
    expect(blog.length).toBeGreaterThan(5);
    expect(blog.every((s) => s.host === 'blog.example.com')).toBe(true);
    const log = await emulator().admin.requests();
    expect(log[0]!.query).toEqual({ page: '1', per_page: '15', status: 'active,infrequent', exclude_cdn_cgi: 'false' });
  });

  it('gets one script with its pages and versions', async () => {
    const client = clientOf(emulator());
    const { items } = await client.scripts.listPage({ zoneId: ZONE, perPage: 1 });
    const script = await client.scripts.get({ zoneId: ZONE, scriptId: items[0]!.id });
    expect(script.id).toBe(items[0]!.id);
    expect(script.page_urls).toEqual([`https://${script.host}/`, `https://${script.host}/checkout`]);
    expect(script.versions).toEqual([{ hash: 'ab'.repeat(32), js_integrity_score: 80, fetched_at: expect.any(String) }]);
  });

  it('answers NotFoundError for a script that does not exist', async () => {
    const error = await failure<NotFoundError>(clientOf(emulator()).scripts.get({ zoneId: ZONE, scriptId: MISSING_ID }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe(
      `GET /zones/${ZONE}/page_guard/scripts/${MISSING_ID} failed: HTTP 404 Not Found: 10013 script ${MISSING_ID} not found`,
    );
  });
});

describe('connections', () => {
  it('walks every page (3 pages of 10) and gets one', async () => {
    const client = clientOf(emulator());
    const all = [];
    for await (const connection of client.connections.list({ zoneId: ZONE, perPage: 10 })) all.push(connection);
    expect(all).toHaveLength(CONNECTION_COUNT);
    expect(await pagesAsked('connections')).toEqual(['1', '2', '3']);
    const one = await client.connections.get({ zoneId: ZONE, connectionId: all[22]!.id });
    expect(one.url).toBe(all[22]!.url);
  });

  it('fetches one page with its result_info', async () => {
    const { items, resultInfo } = await clientOf(emulator()).connections.listPage({ zoneId: ZONE, page: 3, perPage: 10 });
    expect(items).toHaveLength(3);
    expect(resultInfo).toEqual({ page: 3, per_page: 10, count: 3, total_count: CONNECTION_COUNT, total_pages: 3 });
  });
});

describe('cookies', () => {
  it('walks every page (4 pages of 10) and gets one', async () => {
    const client = clientOf(emulator());
    const pages = [];
    for await (const page of client.cookies.list({ zoneId: ZONE, perPage: 10 }).pages()) pages.push(page.items.length);
    expect(pages).toEqual([10, 10, 10, COOKIE_COUNT - 30]);
    const [first] = await client.cookies.list({ zoneId: ZONE }).toArray();
    const cookie = await client.cookies.get({ zoneId: ZONE, cookieId: first!.id });
    expect(cookie).toMatchObject({ name: 'cookie_0', type: 'first_party', max_age_attribute: null, same_site_attribute: 'strict' });
  });

  it("takes the filters the service takes on cookies, every one of them, and the compiler refuses the other lists' own", async () => {
    const client = clientOf(emulator());
    await client.cookies.list({ zoneId: ZONE, hosts: ['www.example.com', 'shop.*'], status: 'active', orderBy: 'first_seen_at', direction: 'desc', perPage: 50 }).toArray();
    const log = await emulator().admin.requests();
    expect(log.map((r) => [r.status, r.query])).toEqual([
      [200, { page: '1', per_page: '50', hosts: 'www.example.com,shop.*', status: 'active', order_by: 'first_seen_at', direction: 'desc' }],
    ]);
    // The service refuses exclude_cdn_cgi and prioritize_malicious on the cookies list, and exclude_duplicates on every
    // list but the scripts' (docs/service.md#lists): the lists' arguments do not take them. tsc checks these lines.
    // @ts-expect-error excludeCdnCgi is a filter of the scripts and connections lists only
    client.cookies.list({ zoneId: ZONE, excludeCdnCgi: true });
    // @ts-expect-error prioritizeMalicious is a filter of the scripts and connections lists only
    client.cookies.list({ zoneId: ZONE, prioritizeMalicious: true });
    // @ts-expect-error excludeDuplicates is a filter of the scripts list only
    client.connections.list({ zoneId: ZONE, excludeDuplicates: true });
    client.scripts.list({ zoneId: ZONE, excludeCdnCgi: true, prioritizeMalicious: true, excludeDuplicates: true });
    // Lazy: a list asks for nothing until it is walked.
    expect(await emulator().admin.requests()).toHaveLength(1);
  });

  it('stops early when the loop breaks, fetching no further page', async () => {
    for await (const cookie of clientOf(emulator()).cookies.list({ zoneId: ZONE, perPage: 10 })) {
      if (cookie.name === 'cookie_3') break;
    }
    expect(await pagesAsked('cookies')).toEqual(['1']);
  });
});
