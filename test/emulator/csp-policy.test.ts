import { CspPolicySchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator, expectInvalid } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());
const path = () => `/zones/${h.zoneOf('enterprise')}/page_guard/policies`;
const policy = {
  description: 'Monitor checkout scripts',
  action: 'log',
  expression: 'http.request.uri.path contains "/checkout"',
  enabled: 'true',
  value: "script-src 'self' https://js.stripe.com",
};

describe('POST /zones/{zone_id}/page_guard/policies', () => {
  test('creates a policy with an id of the service and answers enabled as text', async () => {
    const answer = await h.call('POST', path(), { body: policy });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual({ ...policy, id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(CspPolicySchema.parse(answer.body.result).enabled).toBe(true);
    const read = await h.call('GET', `${path()}/${answer.body.result.id}`);
    expect(read.body.result).toEqual(answer.body.result);
  });

  test('accepts enabled as a JSON boolean too, and still answers text', async () => {
    const answer = await h.call('POST', path(), { body: { ...policy, enabled: false } });
    expect(answer.body.result.enabled).toBe('false');
  });

  test.each(['allow', 'add_reporting_directives'])('action %s is accepted', async (action) => {
    const answer = await h.call('POST', path(), { body: { ...policy, action } });
    expect(answer.status).toBe(200);
    expect(answer.body.result.action).toBe(action);
  });

  test('ids are distinct for identical bodies', async () => {
    const a = await h.call('POST', path(), { body: policy });
    const b = await h.call('POST', path(), { body: policy });
    expect(a.body.result.id).not.toBe(b.body.result.id);
  });

  test('every missing or wrong field and every unknown key is named, in one answer, and nothing is created', async () => {
    const answer = await h.call('POST', path(), { body: { action: 'block', enabled: 'yes', expression: '', mode: 'strict' } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure(
        [1004, 'description: is required'],
        [1004, 'action: must be one of "log", "allow", "add_reporting_directives"'],
        [1004, 'expression: must not be empty'],
        [1004, 'enabled: must be true or false (a JSON boolean or the text "true"/"false")'],
        [1004, 'value: is required'],
        [1004, 'unknown key "mode"'],
      ),
    );
    expect((await h.call('GET', path())).body.result).toHaveLength(2);
  });
});

describe('GET /zones/{zone_id}/page_guard/policies', () => {
  test('lists the seeded policies with result_info, enabled as text', async () => {
    const answer = await h.call('GET', path());
    expect(answer.body.result).toHaveLength(2);
    expect(answer.body.result.map((p: { enabled: string }) => p.enabled)).toEqual(['true', 'false']);
    expect(answer.body.result_info).toEqual({ page: 1, per_page: 15, count: 2, total_count: 2, total_pages: 1 });
  });

  test('an unknown policy is a 404', async () => {
    const answer = await h.call('GET', `${path()}/${MISSING_ID}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([10013, `policy ${MISSING_ID} not found`]));
  });

  // The list takes no parameter (docs/service.md#csp-policies): refused as the detected lists refuse one they do not take.
  test.each([
    ['per_page=5', 'unknown key "per_page"'],
    ['status=active', 'unknown key "status"'],
    ['page=2&colour=red', 'unknown keys "page", "colour"'],
  ])('?%s is refused', async (query, message) => {
    expectInvalid(await h.call('GET', `${path()}?${query}`), message);
  });
});

describe('PUT /zones/{zone_id}/page_guard/policies/{policy_id}', () => {
  test('is a partial update answering the whole policy', async () => {
    const created = (await h.call('POST', path(), { body: policy })).body.result;
    const answer = await h.call('PUT', `${path()}/${created.id}`, { body: { enabled: false, action: 'allow' } });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual({ ...created, enabled: 'false', action: 'allow' });
    expect((await h.call('GET', `${path()}/${created.id}`)).body.result).toEqual(answer.body.result);
  });

  test('an empty body changes nothing', async () => {
    const created = (await h.call('POST', path(), { body: policy })).body.result;
    const answer = await h.call('PUT', `${path()}/${created.id}`, { body: {} });
    expect(answer.body.result).toEqual(created);
  });

  test('a wrong value is refused and the policy is unchanged', async () => {
    const created = (await h.call('POST', path(), { body: policy })).body.result;
    const answer = await h.call('PUT', `${path()}/${created.id}`, { body: { action: 'deny', value: '' } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure([1004, 'action: must be one of "log", "allow", "add_reporting_directives"'], [1004, 'value: must not be empty']),
    );
    expect((await h.call('GET', `${path()}/${created.id}`)).body.result).toEqual(created);
  });

  test('an unknown policy is a 404', async () => {
    const answer = await h.call('PUT', `${path()}/${MISSING_ID}`, { body: { enabled: true } });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([10013, `policy ${MISSING_ID} not found`]));
  });
});

describe('DELETE /zones/{zone_id}/page_guard/policies/{policy_id}', () => {
  test('answers 204 with no body, and the policy is gone', async () => {
    const created = (await h.call('POST', path(), { body: policy })).body.result;
    const answer = await h.call('DELETE', `${path()}/${created.id}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await h.call('GET', `${path()}/${created.id}`)).status).toBe(404);
    const again = await h.call('DELETE', `${path()}/${created.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual(failure([10013, `policy ${created.id} not found`]));
  });

  test('a PUT whose body id differs from the path is refused and changes nothing, as for rules and filters', async () => {
    const zone = h.zoneOf('enterprise');
    const [policy] = (await h.call('GET', `/zones/${zone}/page_guard/policies`)).body.result;
    const other = 'ffffffffffffffffffffffffffffffff';
    const answer = await h.call('PUT', `/zones/${zone}/page_guard/policies/${policy.id}`, { body: { id: other, description: 'moved' } });
    expectInvalid(answer, `id: ${other} does not match the identifier in the path (${policy.id})`);
    expect((await h.call('GET', `/zones/${zone}/page_guard/policies/${policy.id}`)).body.result.description).toBe(policy.description);
    expect((await h.call('PUT', `/zones/${zone}/page_guard/policies/${policy.id}`, { body: { id: policy.id, description: 'same id' } })).status).toBe(200);
  });
});
