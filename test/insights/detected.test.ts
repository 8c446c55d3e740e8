import { listConnections, listCookies, listScripts, summarizeByHost, summarizeZone, type LoadProgress } from '../../src/insights';
import { combineSummaries } from '../../src/insights/summary';
import { BIG_HOSTS, BIG_ZONE, EMPTY_ZONE, bigZoneSeed, useInsightEmulator } from './helpers';

const h = useInsightEmulator();
const seed = bigZoneSeed();
const seededScripts = seed.scripts ?? [];
const active = seededScripts.filter((s) => s.status === 'active');
const maliciousActive = active.filter(
  (s) => (s.js_integrity_score ?? 100) < 50 || s.domain_reported_malicious === true || s.url_reported_malicious === true,
);

describe('listScripts: every page, with the classification', () => {
  test('walks all pages of a zone holding more scripts than several pages, active only by default', async () => {
    const progress: LoadProgress[] = [];
    const scripts = await listScripts({ client: h.client, zoneId: BIG_ZONE, perPage: 25, onProgress: (p) => progress.push(p) });
    expect(active.length).toBe(231);
    expect(scripts).toHaveLength(231);
    expect(new Set(scripts.map((s) => s.id)).size).toBe(231);
    expect(scripts.every((s) => s.status === 'active')).toBe(true);
    // 231 items at 25 a page: 10 pages, progress after each.
    expect(progress).toHaveLength(10);
    expect(progress[0]).toEqual({ kind: 'scripts', page: 1, totalPages: 10, loaded: 25, totalCount: 231 });
    expect(progress[9]).toEqual({ kind: 'scripts', page: 10, totalPages: 10, loaded: 231, totalCount: 231 });
    const requests = (await h.emulator.admin.requests()).filter((r) => r.path.endsWith('/page_guard/scripts'));
    expect(requests).toHaveLength(10);
  });

  test('the default page size is 100: three requests for 231 scripts', async () => {
    await h.emulator.admin.clearRequests();
    const scripts = await listScripts({ client: h.client, zoneId: BIG_ZONE });
    expect(scripts).toHaveLength(231);
    const requests = await h.emulator.admin.requests();
    expect(requests.map((r) => r.query)).toEqual([
      expect.objectContaining({ page: '1', per_page: '100' }),
      expect.objectContaining({ page: '2', per_page: '100' }),
      expect.objectContaining({ page: '3', per_page: '100' }),
    ]);
  });

  test('each script carries its reasons and merged categories', async () => {
    const scripts = await listScripts({ client: h.client, zoneId: BIG_ZONE });
    const byUrl = new Map(scripts.map((s) => [s.url, s]));
    const all3 = byUrl.get('https://bad-7.evil.example/js/active-007.js');
    expect(all3?.classification).toEqual({
      malicious: true,
      reasons: ['score', 'domain', 'url'],
      categories: ['Cryptomining', 'Malware', 'Phishing'],
    });
    expect(byUrl.get('https://bad-11.evil.example/js/active-011.js')?.classification).toEqual({
      malicious: true,
      reasons: ['domain'],
      categories: ['Malware', 'Phishing'],
    });
    expect(byUrl.get('https://bad-13.evil.example/js/active-013.js')?.classification.reasons).toEqual(['url']);
    const byScore = scripts.find((s) => s.url.endsWith('/js/active-047.js'));
    expect(byScore?.url).toBe('https://cdn.vendor-a.example/js/active-047.js');
    expect(byScore?.classification).toEqual({ malicious: true, reasons: ['score'], categories: [] });
    expect(byUrl.get('https://shop.example.com/js/active-000.js')?.classification).toEqual({ malicious: false, reasons: [], categories: [] });
  });

  test('maliciousOnly keeps exactly the malicious ones', async () => {
    const scripts = await listScripts({ client: h.client, zoneId: BIG_ZONE, maliciousOnly: true });
    expect(maliciousActive).toHaveLength(22);
    expect(scripts.map((s) => s.url).sort()).toEqual(maliciousActive.map((s) => s.url).sort());
    expect(scripts.every((s) => s.classification.malicious)).toBe(true);
  });

  test.each([
    ['infrequent', 12],
    ['inactive', 8],
    [['active', 'infrequent'] as const, 243],
    ['all', 251],
  ] as const)('status %j', async (status, count) => {
    const scripts = await listScripts({ client: h.client, zoneId: BIG_ZONE, status: status as never });
    expect(scripts).toHaveLength(count);
  });

  test('hosts: one host, a comma list, and a wildcard', async () => {
    const shop = await listScripts({ client: h.client, zoneId: BIG_ZONE, hosts: 'shop.example.com' });
    expect(shop.length).toBe(active.filter((s) => s.host === 'shop.example.com').length);
    expect(new Set(shop.map((s) => s.host))).toEqual(new Set(['shop.example.com']));
    const two = await listScripts({ client: h.client, zoneId: BIG_ZONE, hosts: ['shop.example.com', 'www.example.com'] });
    expect(new Set(two.map((s) => s.host))).toEqual(new Set(['shop.example.com', 'www.example.com']));
    const wildcard = await listScripts({ client: h.client, zoneId: BIG_ZONE, hosts: 'st*' });
    expect(new Set(wildcard.map((s) => s.host))).toEqual(new Set(['static.example.com']));
  });

  test('excludeCdnCgi leaves out the /cdn-cgi/ script', async () => {
    const all = await listScripts({ client: h.client, zoneId: BIG_ZONE });
    const without = await listScripts({ client: h.client, zoneId: BIG_ZONE, excludeCdnCgi: true });
    expect(all.some((s) => s.url.includes('/cdn-cgi/'))).toBe(true);
    expect(without).toHaveLength(all.length - 1);
    expect(without.some((s) => s.url.includes('/cdn-cgi/'))).toBe(false);
  });

  test('orderBy, direction and prioritizeMalicious reach the service', async () => {
    const desc = await listScripts({ client: h.client, zoneId: BIG_ZONE, orderBy: 'first_seen_at', direction: 'desc' });
    const seen = desc.map((s) => s.first_seen_at ?? '');
    expect(seen).toEqual([...seen].sort().reverse());
    const prioritized = await listScripts({ client: h.client, zoneId: BIG_ZONE, prioritizeMalicious: true });
    expect(prioritized.slice(0, 22).every((s) => s.classification.malicious)).toBe(true);
    expect(prioritized.slice(22).some((s) => s.classification.malicious)).toBe(false);
  });

  test('a zone with nothing detected: an empty list and one progress report', async () => {
    const progress: LoadProgress[] = [];
    expect(await listScripts({ client: h.client, zoneId: EMPTY_ZONE, onProgress: (p) => progress.push(p) })).toEqual([]);
    expect(progress).toEqual([{ kind: 'scripts', page: 1, totalPages: 1, loaded: 0, totalCount: 0 }]);
  });

  test('a zone on a plan without the analysis: scripts have no score and none is malicious', async () => {
    const scripts = await listScripts({ client: h.client, zoneId: h.demoZone('pro') });
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((s) => s.js_integrity_score === undefined && !s.classification.malicious)).toBe(true);
  });
});

describe('listConnections and listCookies', () => {
  test('connections: every page, classified by their reports', async () => {
    const progress: LoadProgress[] = [];
    const connections = await listConnections({ client: h.client, zoneId: BIG_ZONE, perPage: 30, onProgress: (p) => progress.push(p) });
    expect(connections).toHaveLength(140);
    expect(progress.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    const malicious = connections.filter((c) => c.classification.malicious);
    expect(malicious.map((c) => c.url)).toEqual([4, 39, 74, 109].map((i) => `https://api-${i % 40}.collector.example/v1/${i}`));
    expect(malicious[0]?.classification).toEqual({ malicious: true, reasons: ['domain'], categories: ['Command and Control & Botnet'] });
    const only = await listConnections({ client: h.client, zoneId: BIG_ZONE, maliciousOnly: true });
    expect(only).toHaveLength(4);
    expect(await listConnections({ client: h.client, zoneId: BIG_ZONE, status: 'infrequent' })).toHaveLength(5);
  });

  test('cookies: every page, with the attributes, filtered by host and status', async () => {
    const cookies = await listCookies({ client: h.client, zoneId: BIG_ZONE, perPage: 20 });
    expect(cookies).toHaveLength(130);
    expect(cookies[0]).toMatchObject({ name: 'cookie_000', host: 'shop.example.com', same_site_attribute: 'strict', max_age_attribute: null });
    expect(cookies[0]).not.toHaveProperty('classification');
    const www = await listCookies({ client: h.client, zoneId: BIG_ZONE, hosts: 'www.example.com' });
    expect(www.every((c) => c.host === 'www.example.com')).toBe(true);
    expect(www.length).toBe(43);
    const inactive = await listCookies({ client: h.client, zoneId: BIG_ZONE, status: 'inactive' });
    expect(inactive.map((c) => c.name)).toEqual(['old_0', 'old_1', 'old_2']);
  });

  test("cookies take none of the classified lists' filters: the compiler refuses them, and one passed anyway (from JavaScript) is not sent", async () => {
    // The service refuses exclude_cdn_cgi and prioritize_malicious on the cookies list (docs/service.md#lists).
    // @ts-expect-error excludeCdnCgi is a filter of the scripts and connections lists only
    const cookies = await listCookies({ client: h.client, zoneId: BIG_ZONE, excludeCdnCgi: true, prioritizeMalicious: true });
    expect(cookies).toHaveLength(130);
  });
});

describe('summaries by host', () => {
  test('summarizeByHost counts items and malicious ones, sorted by host', () => {
    const verdict = (malicious: boolean) => ({ malicious, reasons: [], categories: [] });
    expect(
      summarizeByHost([
        { host: 'b.example', classification: verdict(true) },
        { host: 'a.example', classification: verdict(false) },
        { host: 'b.example', classification: verdict(false) },
        { host: 'a.example' },
      ]),
    ).toEqual([
      { host: 'a.example', count: 2, malicious: 0 },
      { host: 'b.example', count: 2, malicious: 1 },
    ]);
    expect(summarizeByHost([])).toEqual([]);
  });

  test('combineSummaries puts hosts seen in any list side by side', () => {
    const v = { malicious: true, reasons: ['domain' as const], categories: [] };
    const summary = combineSummaries({
      scripts: [{ id: 'x', url: 'u', host: 'a', status: 'active', classification: v }],
      connections: [],
      cookies: [{ id: 'y', type: 'first_party', name: 'n', host: 'b' }],
    });
    expect(summary).toEqual({
      hosts: [
        { host: 'a', scripts: 1, maliciousScripts: 1, connections: 0, maliciousConnections: 0, cookies: 0 },
        { host: 'b', scripts: 0, maliciousScripts: 0, connections: 0, maliciousConnections: 0, cookies: 1 },
      ],
      totals: { scripts: 1, maliciousScripts: 1, connections: 0, maliciousConnections: 0, cookies: 1 },
    });
  });

  test('summarizeZone over the big zone', async () => {
    const summary = await summarizeZone({ client: h.client, zoneId: BIG_ZONE });
    expect(summary.hosts.map((r) => r.host)).toEqual([...BIG_HOSTS].sort());
    expect(summary.totals).toEqual({ scripts: 231, maliciousScripts: 22, connections: 140, maliciousConnections: 4, cookies: 130 });
    const shop = summary.hosts.find((r) => r.host === 'shop.example.com');
    expect(shop).toEqual({
      host: 'shop.example.com',
      scripts: active.filter((s) => s.host === 'shop.example.com').length,
      maliciousScripts: maliciousActive.filter((s) => s.host === 'shop.example.com').length,
      connections: 47,
      maliciousConnections: 1,
      cookies: 44,
    });
  });
});
