import { CookieSchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator } from './helpers';

const h = useEmulator();
const path = () => `/zones/${h.zoneOf('enterprise')}/page_guard/cookies`;

describe('GET /zones/{zone_id}/page_guard/cookies', () => {
  test('lists active cookies with result_info; each parses with the schema', async () => {
    const answer = await h.call('GET', path());
    expect(answer.status).toBe(200);
    expect(answer.body.result_info).toEqual({ page: 1, per_page: 15, count: 12, total_count: 12, total_pages: 1 });
    for (const cookie of answer.body.result) {
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
    expect((await h.call('GET', `${path()}?page=0`)).body).toEqual(failure([1004, 'page must be at least 1']));
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
