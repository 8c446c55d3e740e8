import { MALICIOUS_SCORE_THRESHOLD, ResultInfoSchema, ScriptDetailSchema, ScriptSchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator, expectInvalid } from './helpers';

const h = useEmulator();
let zone: string;
beforeAll(() => {
  zone = h.zoneOf('enterprise');
});
/** The list with the /cdn-cgi/ scripts included, unless the query says otherwise (the service's default leaves them out). */
const list = (query = '') =>
  h.call('GET', `/zones/${zone}/page_guard/scripts${query}${query.includes('exclude_cdn_cgi') ? '' : `${query === '' ? '?' : '&'}exclude_cdn_cgi=false`}`);
const raw = (query: string) => h.call('GET', `/zones/${zone}/page_guard/scripts${query}`);

describe('GET /zones/{zone_id}/page_guard/scripts: paging', () => {
  test('defaults to active scripts, 15 a page, with result_info', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(answer.body.result_info).toEqual({ page: 1, per_page: 15, count: 15, total_count: 40, total_pages: 3 });
    expect(ResultInfoSchema.parse(answer.body.result_info)).toBeTruthy();
    for (const script of answer.body.result) {
      expect(ScriptSchema.strict().parse(script).status).toBe('active');
      // page_urls and versions come only with the single-script read.
      expect(script).not.toHaveProperty('page_urls');
      expect(script).not.toHaveProperty('versions');
    }
  });

  test('walks every page without repeating or losing a script', async () => {
    const seen = new Set<string>();
    for (let page = 1; page <= 3; page++) {
      const answer = await list(`?page=${page}`);
      expect(answer.body.result_info.page).toBe(page);
      for (const script of answer.body.result) seen.add(script.id);
    }
    expect(seen.size).toBe(40);
    const last = await list('?page=3');
    expect(last.body.result_info.count).toBe(10);
  });

  test('a page past the end is empty, not an error', async () => {
    const answer = await list('?page=4');
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual([]);
    expect(answer.body.result_info).toEqual({ page: 4, per_page: 15, count: 0, total_count: 40, total_pages: 3 });
  });

  test('page=all answers every script on one page', async () => {
    const answer = await list('?page=all');
    expect(answer.body.result).toHaveLength(40);
    expect(answer.body.result_info).toEqual({ page: 1, per_page: 40, count: 40, total_count: 40, total_pages: 1 });
  });

  test('per_page 100 is the largest page', async () => {
    const answer = await list('?per_page=100');
    expect(answer.body.result_info).toEqual({ page: 1, per_page: 100, count: 40, total_count: 40, total_pages: 1 });
  });
});

describe('GET /zones/{zone_id}/page_guard/scripts: filters', () => {
  test('status filters by a comma list', async () => {
    expect((await list('?status=infrequent')).body.result_info.total_count).toBe(4);
    expect((await list('?status=inactive')).body.result_info.total_count).toBe(2);
    expect((await list('?status=active,infrequent')).body.result_info.total_count).toBe(44);
    const statuses = new Set((await list('?status=infrequent,inactive&page=all')).body.result.map((s: { status: string }) => s.status));
    expect([...statuses].sort()).toEqual(['inactive', 'infrequent']);
  });

  test('an unknown status is a 400 naming it', async () => {
    const answer = await list('?status=active,gone');
    expectInvalid(answer, 'status: gone is not a status; use active, infrequent or inactive');
  });

  test('hosts filters by exact host, comma lists and leading or trailing wildcards', async () => {
    const hostsOf = async (query: string) =>
      new Set((await list(`${query}&page=all`)).body.result.map((s: { host: string }) => s.host));
    expect([...(await hostsOf('?hosts=login.acme-bank.example'))]).toEqual(['login.acme-bank.example']);
    expect([...(await hostsOf('?hosts=acme-bank.example'))]).toEqual(['acme-bank.example']);
    expect([...(await hostsOf('?hosts=*.acme-bank.example'))].sort()).toEqual([
      'api.acme-bank.example',
      'login.acme-bank.example',
      'shop.acme-bank.example',
      'www.acme-bank.example',
    ]);
    expect([...(await hostsOf('?hosts=log*'))]).toEqual(['login.acme-bank.example']);
    expect([...(await hostsOf('?hosts=*hop*'))]).toEqual(['shop.acme-bank.example']);
    expect([...(await hostsOf('?hosts=api.acme-bank.example,www.acme-bank.example'))].sort()).toEqual([
      'api.acme-bank.example',
      'www.acme-bank.example',
    ]);
    expect((await list('?hosts=nowhere.example')).body.result_info).toEqual({ page: 1, per_page: 15, count: 0, total_count: 0, total_pages: 0 });
  });

  test('the filtered total drives result_info', async () => {
    const answer = await list('?hosts=login.acme-bank.example&per_page=5');
    const all = await list('?hosts=login.acme-bank.example&page=all');
    expect(answer.body.result_info.total_count).toBe(all.body.result.length);
    expect(answer.body.result_info.total_pages).toBe(Math.ceil(all.body.result.length / 5));
  });

  test('exclude_cdn_cgi defaults to true, as in the public API; false lists the /cdn-cgi/ scripts too', async () => {
    const all = (await list('?page=all&exclude_cdn_cgi=false')).body.result;
    const byDefault = (await raw('?page=all')).body.result;
    const cdnCgi = all.filter((s: { url_contains_cdn_cgi_path: boolean }) => s.url_contains_cdn_cgi_path);
    expect(cdnCgi.length).toBeGreaterThan(0);
    expect(byDefault).toHaveLength(all.length - cdnCgi.length);
    expect((await raw('?page=all&exclude_cdn_cgi=true')).body.result).toEqual(byDefault);
  });

  test('urls and exclude_urls keep or drop scripts whose URL contains one of a comma list (URL-encoded)', async () => {
    const stripe = (await list('?page=all&urls=js.stripe.com,STRIPE-CDN.example')).body.result.map((s: { url: string }) => s.url);
    expect(stripe).toEqual(['https://js.stripe.com/v3/']);
    const all = (await list('?page=all')).body.result;
    const without = (await list(`?page=all&exclude_urls=${encodeURIComponent('/assets/js/')},polyfill.io`)).body.result;
    expect(without.length).toBeGreaterThan(0);
    expect(without.every((s: { url: string }) => !s.url.includes('/assets/js/') && !s.url.includes('polyfill.io'))).toBe(true);
    expect(without.length).toBe(all.filter((s: { url: string }) => !s.url.includes('/assets/js/') && !s.url.includes('polyfill.io')).length);
  });

  test('page_url keeps scripts seen on a matching page, with wildcards', async () => {
    const checkout = (await list('?page=all&page_url=*/checkout')).body.result;
    expect(checkout.length).toBeGreaterThan(0);
    for (const script of checkout) {
      const detail = (await h.call('GET', `/zones/${zone}/page_guard/scripts/${script.id}`)).body.result;
      expect(detail.page_urls.some((url: string) => url.endsWith('/checkout'))).toBe(true);
    }
    expect((await list('?page=all&page_url=https://nowhere.example/')).body.result).toEqual([]);
  });

  test.each([
    ['?exclude_cdn_cgi=yes', 'exclude_cdn_cgi: must be true or false'],
    ['?prioritize_malicious=1', 'prioritize_malicious: must be true or false'],
    ['?export=csv', 'export: not emulated (docs/emulator.md); list the items as JSON'],
    ['?exclude_duplicates=true', 'exclude_duplicates: not emulated (docs/emulator.md); the emulator holds no duplicate scripts'],
    ['?same_site=strict', 'unknown key "same_site"'],
    ['?per_page=101', 'per_page: must be at most 100'],
    ['?per_page=0', 'per_page: must be at least 1'],
    ['?per_page=ten', 'per_page: must be a whole number'],
    ['?page=0', 'page: must be at least 1'],
    ['?page=first', 'page: must be a whole number of at least 1, or all'],
    ['?page=-1', 'page: must be a whole number of at least 1, or all'],
  ])('%s is a 400 that says what is wrong, never ignored', async (query, message) => {
    expectInvalid(await raw(query), message);
  });

  test('order_by and direction sort by the timestamp; prioritize_malicious puts malicious scripts first', async () => {
    const ordered = (await list('?page=all&order_by=first_seen_at&direction=desc')).body.result.map((s: { first_seen_at: string }) => s.first_seen_at);
    expect(ordered).toEqual([...ordered].sort().reverse());
    const prioritized = (await list('?page=all&prioritize_malicious=true')).body.result;
    const malicious = (s: { js_integrity_score: number; domain_reported_malicious: boolean; url_reported_malicious: boolean }) =>
      s.js_integrity_score < MALICIOUS_SCORE_THRESHOLD || s.domain_reported_malicious || s.url_reported_malicious;
    const firstClean = prioritized.findIndex((s: never) => !malicious(s));
    expect(firstClean).toBeGreaterThan(0);
    expect(prioritized.slice(firstClean).some(malicious)).toBe(false);
    expect((await list('?order_by=size')).body).toEqual(failure([1004, 'order_by: must be first_seen_at or last_seen_at']));
  });
});

describe('detected scripts of the demo zones', () => {
  test('some scripts are malicious by score, and domain and URL reports carry their own categories', async () => {
    const scripts = (await list('?page=all')).body.result;
    const lowScores = scripts.filter((s: { js_integrity_score: number }) => s.js_integrity_score < MALICIOUS_SCORE_THRESHOLD);
    expect(lowScores.length).toBeGreaterThanOrEqual(4);
    const polyfill = scripts.find((s: { url: string }) => s.url.startsWith('https://polyfill.io/'));
    expect(polyfill).toMatchObject({ domain_reported_malicious: true, url_reported_malicious: false, malicious_domain_categories: ['Malware'] });
    expect(polyfill).not.toHaveProperty('malicious_url_categories');
    const both = scripts.find((s: { url: string }) => s.url === 'https://cdn.jsdelivr-analytics.com/metrics.js');
    expect(both).toMatchObject({ malicious_domain_categories: ['Malware', 'Phishing'], malicious_url_categories: ['Malware'] });
    const clean = scripts.find((s: { url: string }) => s.url === 'https://js.stripe.com/v3/');
    expect(clean).not.toHaveProperty('malicious_domain_categories');
    expect(clean.js_integrity_score).toBeGreaterThanOrEqual(MALICIOUS_SCORE_THRESHOLD);
    expect(clean.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('the free plan sees script URLs without the analysis fields', async () => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('free')}/page_guard/scripts`);
    expect(answer.body.result.length).toBeGreaterThan(0);
    for (const script of answer.body.result) {
      expect(script).not.toHaveProperty('js_integrity_score');
      expect(script).not.toHaveProperty('hash');
    }
  });

  test('timestamps: added_at carries fractional seconds, first_seen_at does not', async () => {
    const [script] = (await list()).body.result;
    expect(script.added_at).toMatch(/\.\d{3}Z$/);
    expect(script.first_seen_at).toMatch(/:\d\dZ$/);
  });
});

describe('GET /zones/{zone_id}/page_guard/scripts/{script_id}', () => {
  test('answers the script with page_urls and versions', async () => {
    const [first] = (await list()).body.result;
    const answer = await h.call('GET', `/zones/${zone}/page_guard/scripts/${first.id}`);
    expect(answer.status).toBe(200);
    const detail = ScriptDetailSchema.strict().parse(answer.body.result);
    expect(detail).toMatchObject(first);
    expect(detail.page_urls!.length).toBeGreaterThan(0);
    expect(detail.versions).toHaveLength(2);
    expect(answer.body).not.toHaveProperty('result_info');
  });

  test('an unknown script is a 404', async () => {
    const answer = await h.call('GET', `/zones/${zone}/page_guard/scripts/${MISSING_ID}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([10013, `script ${MISSING_ID} not found`]));
  });

  test('a malformed script id is a 400 code 7003', async () => {
    const answer = await h.call('GET', `/zones/${zone}/page_guard/scripts/not-an-id`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure([7003, `Could not route to /zones/${zone}/page_guard/scripts/not-an-id, perhaps your object identifier is invalid?`]),
    );
  });

  test('a script of another zone is not found in this one', async () => {
    const other = (await h.call('GET', `/zones/${h.zoneOf('business')}/page_guard/scripts`)).body.result[0];
    const answer = await h.call('GET', `/zones/${zone}/page_guard/scripts/${other.id}`);
    expect(answer.status).toBe(404);
  });
});
