import { ConnectionSchema } from '../../src/schemas';
import { failure, listedPage, MISSING_ID, useEmulator } from './helpers';

const h = useEmulator();
const path = () => `/zones/${h.zoneOf('enterprise')}/page_guard/connections`;

describe('GET /zones/{zone_id}/page_guard/connections', () => {
  test('lists active connections 15 a page with result_info; each parses with the schema', async () => {
    const connections = await listedPage(h, path(), { page: 1, per_page: 15, count: 15, total_count: 18, total_pages: 2 });
    for (const connection of connections) expect(ConnectionSchema.strict().parse(connection).status).toBe('active');
    const second = await h.call('GET', `${path()}?page=2`);
    expect(second.body.result_info).toEqual({ page: 2, per_page: 15, count: 3, total_count: 18, total_pages: 2 });
  });

  test('status, hosts and per_page work as on scripts', async () => {
    expect((await h.call('GET', `${path()}?status=active,infrequent,inactive`)).body.result_info.total_count).toBe(24);
    const login = await h.call('GET', `${path()}?hosts=login.*&page=all`);
    expect(login.body.result.length).toBeGreaterThan(0);
    expect(login.body.result.every((c: { host: string }) => c.host === 'login.acme-bank.example')).toBe(true);
    expect((await h.call('GET', `${path()}?per_page=500`)).body).toEqual(failure([1004, 'per_page: must be at most 100']));
    expect((await h.call('GET', `${path()}?status=paused`)).body).toEqual(
      failure([1004, 'status: paused is not a status; use active, infrequent or inactive']),
    );
  });

  test('malicious reports carry domain and URL categories separately (URL categories may be empty)', async () => {
    const all = (await h.call('GET', `${path()}?page=all`)).body.result;
    const polyfill = all.find((c: { url: string }) => c.url === 'https://collect.polyfill.io/v1/beacon');
    expect(polyfill).toMatchObject({ domain_reported_malicious: true, malicious_domain_categories: ['Malware'], url_reported_malicious: false, malicious_url_categories: [] });
    const exfil = all.find((c: { url: string }) => c.url === 'https://exfil-metrics.top/c');
    expect(exfil).toMatchObject({ malicious_domain_categories: ['Command and Control & Botnet'], url_reported_malicious: true, malicious_url_categories: ['Malware'] });
  });
});

describe('GET /zones/{zone_id}/page_guard/connections/{connection_id}', () => {
  test('answers one connection', async () => {
    const [first] = (await h.call('GET', path())).body.result;
    const answer = await h.call('GET', `${path()}/${first.id}`);
    expect(answer.body).toEqual({ success: true, errors: [], messages: [], result: first });
  });

  test('an unknown connection is a 404', async () => {
    const answer = await h.call('GET', `${path()}/${MISSING_ID}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([10013, `connection ${MISSING_ID} not found`]));
  });
});
