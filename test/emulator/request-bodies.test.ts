import { MANAGED_RULESET_ID } from '../../src/schemas/service';
import { failure, useEmulator, expectInvalid } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

/** Ids of the enterprise zone's seeded objects, read through the API as a user would. */
async function seeded() {
  const zone = h.zoneOf('enterprise');
  const policy = (await h.call('GET', `/zones/${zone}/page_guard/policies`)).body.result[0].id as string;
  const rule = (await h.call('GET', `/zones/${zone}/firewall/rules`)).body.result[0] as { id: string; filter: { id: string } };
  return { zone, policy, rule: rule.id, filter: rule.filter.id };
}

type Ids = Awaited<ReturnType<typeof seeded>>;
const expression = 'http.host eq "www.acme-bank.example"';

// docs/emulator.md, "Request bodies": a key the body's schema does not name is refused (400 code 1004), wherever it
// sits, with the path of its object; nothing is applied.
describe.each<[string, string, (ids: Ids) => string, (ids: Ids) => unknown, string]>([
  ['page security settings', 'PUT', (i) => `/zones/${i.zone}/page_guard`, () => ({ enabled: true, enabeld: false }), 'unknown key "enabeld"'],
  [
    'a CSP policy create',
    'POST',
    (i) => `/zones/${i.zone}/page_guard/policies`,
    () => ({ description: 'd', action: 'log', expression, enabled: true, value: "script-src 'self'", mode: 'strict' }),
    'unknown key "mode"',
  ],
  ['a CSP policy update', 'PUT', (i) => `/zones/${i.zone}/page_guard/policies/${i.policy}`, () => ({ description: 'changed', acton: 'allow' }), 'unknown key "acton"'],
  ['a filter create', 'POST', (i) => `/zones/${i.zone}/filters`, () => [{ expression, colour: 'red', size: 1 }], '0: unknown keys "colour", "size"'],
  ['a filter update', 'PUT', (i) => `/zones/${i.zone}/filters/${i.filter}`, () => ({ expression, pasued: true }), 'unknown key "pasued"'],
  ['a rule create', 'POST', (i) => `/zones/${i.zone}/firewall/rules`, () => [{ action: 'block', filter: { expression }, prority: 1 }], '0: unknown key "prority"'],
  [
    'a rule update, in its filter',
    'PUT',
    (i) => `/zones/${i.zone}/firewall/rules/${i.rule}`,
    (i) => ({ action: 'block', filter: { id: i.filter, expression } }),
    'filter: unknown key "expression"',
  ],
  ['a rule delete', 'DELETE', (i) => `/zones/${i.zone}/firewall/rules/${i.rule}`, () => ({ delete_filter: true }), 'unknown key "delete_filter"'],
  [
    'the entry point, deep in a rule',
    'PUT',
    (i) => `/zones/${i.zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    () => ({ rules: [{ action: 'execute', expression: 'true', action_parameters: { id: MANAGED_RULESET_ID, overides: { action: 'log' } } }] }),
    'rules.0.action_parameters: unknown key "overides"',
  ],
  ['a WAF override create', 'POST', (i) => `/zones/${i.zone}/firewall/waf/overrides`, () => ({ urls: ['www.acme-bank.example/*'], mode: 'x' }), 'unknown key "mode"'],
])('unknown keys in %s', (_name, method, path, body, message) => {
  test(`${method} answers 400 code 1004 naming the key, and changes nothing`, async () => {
    const ids = await seeded();
    const before = await h.emulator.admin.inventory(ids.zone);
    const answer = await h.call(method, path(ids), { body: body(ids) });
    expectInvalid(answer, message);
    expect(await h.emulator.admin.inventory(ids.zone)).toEqual(before);
  });
});

describe('request errors in our words: one error per problem, the field named once', () => {
  test.each([
    ['a negative priority', [{ action: 'block', filter: { expression }, priority: -1 }], '0.priority: must be at least 0'],
    ['a fractional priority', [{ action: 'block', filter: { expression }, priority: 1.5 }], '0.priority: must be a whole number'],
    ['a paused flag as text', [{ action: 'block', filter: { expression }, paused: 'yes' }], '0.paused: must be true or false'],
  ])('a rule create with %s: one error naming the index and field', async (_name, body, message) => {
    const answer = await h.call('POST', `/zones/${h.zoneOf('pro')}/firewall/rules`, { body });
    expectInvalid(answer, message);
  });

  test('a query value out of range names its parameter once', async () => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('pro')}/firewall/rules?page=0`);
    expect(answer.body).toEqual(failure([1004, 'page: must be at least 1']));
  });
});

describe('the entry point\'s dry_run: validated, answered as if written, never applied', () => {
  const path = (zone: string) => `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`;
  const rules = [{ action: 'execute', expression: 'true', action_parameters: { id: MANAGED_RULESET_ID } }];

  test.each([
    ['alone', '?dry_run=true'],
    ['with a migration step', '?waf_migration=pending&phase_two=1&dry_run=true'],
  ])('%s: 200 with result null, and no version is saved nor the migration moved', async (_name, q) => {
    const zone = h.zoneOf('enterprise');
    const before = await h.emulator.admin.inventory(zone);
    const answer = await h.call('PUT', `${path(zone)}${q}`, { body: { rules } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, errors: [], messages: [], result: null });
    expect(await h.emulator.admin.inventory(zone)).toEqual(before);
    expect((await h.call('GET', path(zone))).status).toBe(404);
  });

  test('a dry run is refused as the write would be, with the same messages', async () => {
    const zone = h.zoneOf('enterprise');
    const body = { rules: [{ action: 'execute', expression: 'true', action_parameters: { id: 'abc' } }] };
    const dry = await h.call('PUT', `${path(zone)}?dry_run=true`, { body });
    const real = await h.call('PUT', path(zone), { body });
    expect(dry.status).toBe(400);
    expect(dry.body).toEqual(real.body);
  });

  test('dry_run other than true or false: 400 code 1004, nothing saved', async () => {
    const zone = h.zoneOf('enterprise');
    const answer = await h.call('PUT', `${path(zone)}?dry_run=1`, { body: { rules } });
    expect(answer.body).toEqual(failure([1004, 'dry_run: must be true or false']));
    expect((await h.call('GET', path(zone))).status).toBe(404);
  });
});

describe('an empty list reports the per_page asked', () => {
  test.each([
    ['page=all with per_page', '?hosts=nowhere.example&page=all&per_page=50', 50],
    ['page=all without per_page: the default page size', '?hosts=nowhere.example&page=all', 15],
    ['a page of a list filtered to nothing', '?hosts=nowhere.example&per_page=30', 30],
  ])('scripts, %s', async (_name, q, perPage) => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('enterprise')}/page_guard/scripts${q}`);
    expect(answer.body.result).toEqual([]);
    expect(answer.body.result_info).toEqual({ page: 1, per_page: perPage, count: 0, total_count: 0, total_pages: 0 });
  });

  test('page=all over more items than per_page reports the count as per_page', async () => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('enterprise')}/page_guard/scripts?page=all&per_page=5&exclude_cdn_cgi=false`);
    expect(answer.body.result_info).toEqual({ page: 1, per_page: 40, count: 40, total_count: 40, total_pages: 1 });
  });

  test('the policies list of a zone without policies: the default page size, not 0', async () => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('free')}/page_guard/policies`);
    expect(answer.body).toEqual({ success: true, errors: [], messages: [], result: [], result_info: { page: 1, per_page: 15, count: 0, total_count: 0, total_pages: 0 } });
  });
});

describe('the charset of a JSON body', () => {
  test('utf-16 is refused (415 code 1001), not read as UTF-8, and nothing changes', async () => {
    const zone = h.zoneOf('pro');
    const before = (await h.call('GET', `/zones/${zone}/page_guard`)).body.result.enabled as boolean;
    const text = JSON.stringify({ enabled: !before });
    const answer = await fetch(`${h.emulator.baseUrl}/zones/${zone}/page_guard`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${h.emulator.credentials.apiToken}`, 'content-type': 'application/json; charset=utf-16' },
      body: Buffer.from(`\ufeff${text}`, 'utf16le'),
    });
    expect(answer.status).toBe(415);
    expect(await answer.json()).toEqual(failure([1001, 'Content-Type charset must be utf-8 (JSON is UTF-8), got utf-16']));
    expect((await h.call('GET', `/zones/${zone}/page_guard`)).body.result.enabled).toBe(before);
  });

  test('utf-8, named or not, is read', async () => {
    const zone = h.zoneOf('pro');
    for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json']) {
      const answer = await fetch(`${h.emulator.baseUrl}/zones/${zone}/page_guard`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${h.emulator.credentials.apiToken}`, 'content-type': type },
        body: JSON.stringify({ enabled: true }),
      });
      expect(answer.status).toBe(200);
    }
  });
});
