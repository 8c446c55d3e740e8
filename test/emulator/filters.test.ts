import { FilterSchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator } from './helpers';

const h = useEmulator({ seed: 'empty' });
const ZONE = 'aa00000000000000000000000000aa02';
const filters = `/zones/${ZONE}/filters`;
const rules = `/zones/${ZONE}/firewall/rules`;

beforeEach(async () => {
  await h.emulator.admin.reset();
  await h.emulator.admin.seedZone({ id: ZONE, name: 'filters.example', plan: 'business' });
});

describe('POST /zones/{zone_id}/filters', () => {
  test('creates an array of filters with service ids', async () => {
    const answer = await h.call('POST', filters, {
      body: [{ expression: 'ip.src eq 192.0.2.10', description: 'office', ref: 'FIL-1' }, { expression: 'http.host eq "a.example"', paused: true }],
    });
    expect(answer.status).toBe(200);
    const [a, b] = answer.body.result.map((f: unknown) => FilterSchema.strict().parse(f));
    expect(a).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), expression: 'ip.src eq 192.0.2.10', paused: false, description: 'office', ref: 'FIL-1' });
    expect(b).toMatchObject({ paused: true });
  });

  test('refuses a non-array body, empty expressions, long refs, and duplicates, creating nothing', async () => {
    expect((await h.call('POST', filters, { body: { expression: 'ip.src eq 192.0.2.10' } })).body).toEqual(
      failure([1004, 'request body: must be a JSON array of filters, even for one filter']),
    );
    expect((await h.call('POST', filters, { body: [] })).body).toEqual(failure([1004, 'must hold at least one filter']));
    expect((await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.10' }, { expression: '', ref: 'x'.repeat(51) }] })).body).toEqual(
      failure([1004, '1.expression: must not be empty'], [1004, '1.ref: must be at most 50 characters']),
    );
    expect((await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.10' }, { expression: 'ip.src eq 192.0.2.10' }] })).body).toEqual(
      failure([10202, '1.expression: duplicates the expression of the filter at index 0 of this request']),
    );
    expect((await h.call('GET', filters)).body.result).toEqual([]);
    const existing = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.10' }] })).body.result[0];
    const duplicate = await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.11' }, { expression: 'ip.src eq 192.0.2.10' }] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toEqual(failure([10102, `1.expression: config duplicates an already existing config (filter ${existing.id} has this expression)`]));
    expect((await h.call('GET', filters)).body.result).toHaveLength(1);
  });
});

describe('GET /zones/{zone_id}/filters', () => {
  test('lists and filters by id, paused, ref, expression and description; pages by 25', async () => {
    const created = (
      await h.call('POST', filters, {
        body: Array.from({ length: 30 }, (_, i) => ({ expression: `ip.src eq 198.51.100.${i}`, paused: i % 2 === 0, ref: `R-${i}`, description: `filter ${i}` })),
      })
    ).body.result;
    expect((await h.call('GET', filters)).body.result).toEqual(created.slice(0, 25));
    expect((await h.call('GET', `${filters}?page=2`)).body.result).toEqual(created.slice(25));
    expect((await h.call('GET', `${filters}?id=${created[3].id}`)).body.result).toEqual([created[3]]);
    expect((await h.call('GET', `${filters}?ref=R-7`)).body.result).toEqual([created[7]]);
    expect((await h.call('GET', `${filters}?paused=true&per_page=100`)).body.result).toHaveLength(15);
    expect((await h.call('GET', `${filters}?expression=198.51.100.29`)).body.result).toEqual([created[29]]);
    expect((await h.call('GET', `${filters}?description=filter%2012`)).body.result).toEqual([created[12]]);
  });

  test('GET one answers the filter; unknown is 404; malformed is 7003', async () => {
    const [filter] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.20' }] })).body.result;
    expect((await h.call('GET', `${filters}/${filter.id}`)).body.result).toEqual(filter);
    expect((await h.call('GET', `${filters}/${MISSING_ID}`)).body).toEqual(failure([10013, `filter ${MISSING_ID} not found`]));
    const malformed = await h.call('GET', `${filters}/XYZ`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].code).toBe(7003);
  });
});

describe('PUT /zones/{zone_id}/filters/{filter_id}', () => {
  test('changes a filter created on its own', async () => {
    const [filter] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.30', description: 'old' }] })).body.result;
    const answer = await h.call('PUT', `${filters}/${filter.id}`, { body: { id: filter.id, expression: 'ip.src eq 192.0.2.31', paused: true } });
    expect(answer.body.result).toEqual({ ...filter, expression: 'ip.src eq 192.0.2.31', paused: true });
  });

  test('refuses the expression of another filter (10102) but accepts its own', async () => {
    const [a, b] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.40' }, { expression: 'ip.src eq 192.0.2.41' }] })).body.result;
    expect((await h.call('PUT', `${filters}/${b.id}`, { body: { expression: a.expression } })).body).toEqual(
      failure([10102, `expression: config duplicates an already existing config (filter ${a.id} has this expression)`]),
    );
    expect((await h.call('PUT', `${filters}/${b.id}`, { body: { expression: b.expression, description: 'same' } })).status).toBe(200);
  });

  test('refuses a mismatched id and an unknown filter', async () => {
    const [a] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.50' }] })).body.result;
    expect((await h.call('PUT', `${filters}/${a.id}`, { body: { id: MISSING_ID, expression: 'true' } })).body).toEqual(
      failure([1004, `id: ${MISSING_ID} does not match the identifier in the path (${a.id})`]),
    );
    expect((await h.call('PUT', `${filters}/${MISSING_ID}`, { body: { expression: 'true' } })).status).toBe(404);
  });
});

describe('DELETE /zones/{zone_id}/filters', () => {
  test('deletes one filter by id', async () => {
    const [a] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.60' }] })).body.result;
    expect((await h.call('DELETE', `${filters}/${a.id}`)).body.result).toEqual({ id: a.id });
    expect((await h.call('GET', `${filters}/${a.id}`)).status).toBe(404);
  });

  test('refuses to delete a filter a rule references', async () => {
    const [a] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.61' }] })).body.result;
    const [rule] = (await h.call('POST', rules, { body: [{ filter: { id: a.id }, action: 'block' }] })).body.result;
    const answer = await h.call('DELETE', `${filters}/${a.id}`);
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(failure([10027, `filter ${a.id} is referenced by firewall rule ${rule.id}; delete or repoint the rule first`]));
  });

  test('deletes several by repeated ?id=, all or none', async () => {
    const [a, b, c] = (
      await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.70' }, { expression: 'ip.src eq 192.0.2.71' }, { expression: 'ip.src eq 192.0.2.72' }] })
    ).body.result;
    const refused = await h.call('DELETE', `${filters}?id=${a.id}&id=${MISSING_ID}`);
    expect(refused.status).toBe(404);
    expect((await h.call('GET', filters)).body.result).toHaveLength(3);
    expect((await h.call('DELETE', `${filters}?id=${a.id}&id=${b.id}`)).body.result).toEqual([{ id: a.id }, { id: b.id }]);
    expect((await h.call('GET', filters)).body.result).toEqual([c]);
    expect((await h.call('DELETE', filters)).body).toEqual(failure([1004, 'id: required: one ?id= per filter to delete']));
  });
});

describe('PUT /zones/{zone_id}/filters: several filters at once', () => {
  test('changes each filter named by id, answering them all; a refusal changes none', async () => {
    const [a, b] = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 192.0.2.20' }, { expression: 'ip.src eq 192.0.2.21' }] })).body.result;
    const answer = await h.call('PUT', filters, {
      body: [
        { id: a.id, expression: 'ip.src eq 192.0.2.30', description: 'moved' },
        { id: b.id, expression: 'ip.src eq 192.0.2.31', paused: true },
      ],
    });
    expect(answer.body.result).toEqual([
      { ...a, expression: 'ip.src eq 192.0.2.30', description: 'moved' },
      { ...b, expression: 'ip.src eq 192.0.2.31', paused: true },
    ]);
    const refused = await h.call('PUT', filters, { body: [{ id: a.id, expression: 'ip.src eq 192.0.2.40' }, { id: b.id, expression: 'ip.src eq' }] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/^1\.expression: line 1, column/);
    expect((await h.call('GET', `${filters}/${a.id}`)).body.result.expression).toBe('ip.src eq 192.0.2.30');
  });

  test('a filter created with its rule in one call cannot be changed this way either', async () => {
    const [rule] = (await h.call('POST', rules, { body: [{ filter: { expression: 'ip.src eq 192.0.2.50' }, action: 'block' }] })).body.result;
    const answer = await h.call('PUT', filters, { body: [{ id: rule.filter.id, expression: 'ip.src eq 192.0.2.51' }] });
    expect(answer.status).toBe(409);
  });
});
