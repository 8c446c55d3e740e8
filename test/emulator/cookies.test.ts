import { CookieSchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator, expectInvalid, listedPage } from './helpers';

const h = useEmulator();
const path = () => `/zones/${h.zoneOf('enterprise')}/page_guard/cookies`;

describe('GET /zones/{zone_id}/page_guard/cookies', () => {
  test('lists active cookies with result_info; each parses with the schema', async () => {
    const cookies = await listedPage(h, path(), { page: 1, per_page: 15, count: 12, total_count: 12, total_pages: 1 });
    for (const cookie of cookies) {
      const parsed = CookieSchema.strict().parse(cookie);
      expect(parsed.type).toBe('first_party');
      expect(parsed.first_page_url).not.toMatch(/^https?:/);
    }
  });

  test('max_age_attribute may be null (a session cookie)', async () => {
    const all = (await h.call('GET', `${path()}?page=all&status=active,infrequent,inactive`)).body.result;
    expect(all).toHaveLength(18);
    expect(all.find((c: { name: string }) => c.name === 'session_id').max_age_attribute).toBeNull();
    expect(all.find((c: { name: string }) => c.name === 'session_id').same_site_attribute).toBe('strict');
  });

  test('per_page and hosts filter as on scripts', async () => {
    const answer = await h.call('GET', `${path()}?per_page=5&page=2`);
    expect(answer.body.result_info).toEqual({ page: 2, per_page: 5, count: 5, total_count: 12, total_pages: 3 });
    const www = await h.call('GET', `${path()}?hosts=www.acme-bank.example`);
    expect(www.body.result.every((c: { host: string }) => c.host === 'www.acme-bank.example')).toBe(true);
    expect((await h.call('GET', `${path()}?page=0`)).body).toEqual(failure([1004, 'page: must be at least 1']));
  });
});

describe('GET /zones/{zone_id}/page_guard/cookies: the public filters', () => {
  const names = async (query: string) =>
    (await h.call('GET', `${path()}?page=all&status=active,infrequent,inactive&${query}`)).body.result.map((c: { name: string }) => c.name).sort();

  test.each([
    ['name=_g*', ['_ga', '_gcl_au', '_gid']],
    ['name=*token', ['XSRF-TOKEN', 'csrftoken']],
    ['same_site=none', ['__cf_bm', 'cf_clearance', 'li_sugr']],
    ['http_only=true&same_site=strict', ['cart', 'session_id']],
    ['secure=false', []],
    ['type=unknown', []],
    ['path=/&name=locale', ['locale']],
    ['domain=.other.example', []],
  ])('%s', async (query, expected) => {
    expect(await names(query)).toEqual(expected);
  });

  test('page_url matches the pages a cookie was seen on (host and path, wildcards)', async () => {
    const onCheckout = await names('page_url=*/checkout');
    expect(onCheckout.length).toBeGreaterThan(0);
    expect(onCheckout.length).toBeLessThan(18);
  });

  test.each([
    ['same_site=bogus', 'same_site: must be lax, strict or none'],
    ['secure=yes', 'secure: must be true or false'],
    ['type=third_party', 'type: must be first_party or unknown'],
    ['exclude_cdn_cgi=true', 'unknown key "exclude_cdn_cgi"'],
    ['urls=x', 'unknown key "urls"'],
  ])('%s is refused', async (query, message) => {
    const answer = await h.call('GET', `${path()}?${query}`);
    expectInvalid(answer, message);
  });
});

describe('GET /zones/{zone_id}/page_guard/cookies/{cookie_id}', () => {
  test('answers one cookie, and 404 for an unknown one', async () => {
    const [first] = (await h.call('GET', path())).body.result;
    expect((await h.call('GET', `${path()}/${first.id}`)).body.result).toEqual(first);
    const missing = await h.call('GET', `${path()}/${MISSING_ID}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(failure([10013, `cookie ${MISSING_ID} not found`]));
  });
});
