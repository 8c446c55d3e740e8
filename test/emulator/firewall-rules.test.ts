import { FilterSchema, FirewallRuleDeleteResultSchema, FirewallRuleSchema } from '../../src/schemas';
import { failure, MISSING_ID, useEmulator, expectInvalid } from './helpers';

const h = useEmulator({ seed: 'empty' });
const ZONE = 'aa00000000000000000000000000aa01';
const rules = `/zones/${ZONE}/firewall/rules`;
const filters = `/zones/${ZONE}/filters`;

beforeEach(async () => {
  await h.emulator.admin.reset();
  await h.emulator.admin.seedZone({ id: ZONE, name: 'rules.example', plan: 'pro', ruleQuota: 3 });
});
const counts = async () => (await h.emulator.admin.inventory(ZONE)).counts;

describe('POST /zones/{zone_id}/firewall/rules: the single-call form', () => {
  test('creates each rule with its filter and answers them', async () => {
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 203.0.113.7' }, action: 'block', description: 'one address' },
        { filter: { expression: 'http.request.uri.path eq "/admin"', paused: true }, action: 'managed_challenge', priority: 5 },
      ],
    });
    expect(answer.status).toBe(200);
    const [first, second] = answer.body.result.map((r: unknown) => FirewallRuleSchema.parse(r));
    expect(first).toMatchObject({ action: 'block', paused: false, description: 'one address', filter: { expression: 'ip.src eq 203.0.113.7', paused: false } });
    expect(second).toMatchObject({ action: 'managed_challenge', priority: 5, filter: { paused: true } });
    expect(first.id).not.toBe(second.id);
    expect(first.filter.id).not.toBe(second.filter.id);
    const filter = await h.call('GET', `${filters}/${first.filter.id}`);
    expect(FilterSchema.parse(filter.body.result)).toEqual(first.filter);
    expect(await counts()).toMatchObject({ filters: 2, firewallRules: 2 });
  });

  test('a body that is one object, not an array, is refused', async () => {
    const answer = await h.call('POST', rules, { body: { filter: { expression: 'ip.src eq 203.0.113.7' }, action: 'block' } });
    expectInvalid(answer, 'request body: must be a JSON array of rules, even for one rule');
  });

  test('an invalid item anywhere creates nothing, and the error names the index and field', async () => {
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 203.0.113.7' }, action: 'block' },
        { filter: { expression: '' }, action: 'block' },
        { filter: { expression: 'ip.src eq 203.0.113.9' }, action: 'deny' },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure(
        [1004, '1.filter.expression: must not be empty'],
        [1004, '2.action: must be one of "block", "challenge", "js_challenge", "managed_challenge", "allow", "log", "bypass"'],
      ),
    );
    expect(await counts()).toMatchObject({ filters: 0, firewallRules: 0 });
  });

  test('an expression over the schema limit is refused', async () => {
    const answer = await h.call('POST', rules, { body: [{ filter: { expression: `http.host eq "${'a'.repeat(16400)}"` }, action: 'block' }] });
    expect(answer.body).toEqual(failure([1004, '0.filter.expression: must be at most 16384 characters']));
  });

  test('bypass needs products, and other actions refuse them', async () => {
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'bypass' },
        { filter: { expression: 'ip.src eq 192.0.2.2' }, action: 'block', products: ['waf'] },
      ],
    });
    expect(answer.body).toEqual(failure([1004, '0.products: required when action is bypass'], [1004, '1.products: allowed only when action is bypass']));
    expect(await counts()).toMatchObject({ filters: 0, firewallRules: 0 });
  });

  test('a second filter with the same expression is refused with 10102, naming the existing filter', async () => {
    const first = (await h.call('POST', rules, { body: [{ filter: { expression: 'ip.src eq 198.51.100.1' }, action: 'block' }] })).body.result[0];
    const answer = await h.call('POST', rules, { body: [{ filter: { expression: 'ip.src eq 198.51.100.1' }, action: 'log' }] });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure([10102, `0.filter.expression: config duplicates an already existing config (filter ${first.filter.id} has this expression)`]),
    );
    expect(await counts()).toMatchObject({ filters: 1, firewallRules: 1 });
  });

  test('two items of one call with the same expression are refused with 10202', async () => {
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 198.51.100.2' }, action: 'block' },
        { filter: { expression: 'ip.src eq 198.51.100.2' }, action: 'log' },
      ],
    });
    expect(answer.body).toEqual(failure([10202, '1.filter.expression: duplicates the expression of the filter at index 0 of this request']));
    expect(await counts()).toMatchObject({ filters: 0, firewallRules: 0 });
  });

  test('the filter created with its rule refuses PUT and DELETE on the filters API', async () => {
    const rule = (await h.call('POST', rules, { body: [{ filter: { expression: 'ip.src eq 198.51.100.3' }, action: 'block' }] })).body.result[0];
    const message = `filter ${rule.filter.id} was created together with firewall rule ${rule.id} in one call and cannot be changed or deleted on its own; change or delete the rule`;
    const put = await h.call('PUT', `${filters}/${rule.filter.id}`, { body: { expression: 'ip.src eq 198.51.100.4' } });
    expect(put.status).toBe(409);
    expect(put.body).toEqual(failure([10027, message]));
    const del = await h.call('DELETE', `${filters}/${rule.filter.id}`);
    expect(del.status).toBe(409);
    expect(del.body).toEqual(failure([10027, message]));
    expect((await h.call('GET', `${filters}/${rule.filter.id}`)).body.result.expression).toBe('ip.src eq 198.51.100.3');
  });
});

describe('POST /zones/{zone_id}/firewall/rules: the two-call form', () => {
  test('a rule references an existing filter by id, and one filter serves several rules', async () => {
    const filter = (await h.call('POST', filters, { body: [{ expression: 'http.user_agent contains "curl"' }] })).body.result[0];
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { id: filter.id }, action: 'block' },
        { filter: { id: filter.id }, action: 'log', paused: true },
      ],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result.map((r: { filter: { id: string } }) => r.filter)).toEqual([filter, filter]);
    expect(await counts()).toMatchObject({ filters: 1, firewallRules: 2 });
    // A filter created on its own stays editable on the filters API.
    const put = await h.call('PUT', `${filters}/${filter.id}`, { body: { expression: 'http.user_agent contains "wget"' } });
    expect(put.status).toBe(200);
  });

  test('a filter created with its rule in one call belongs to it: another rule referencing it is refused (10027), nothing created', async () => {
    const owner = (await h.call('POST', rules, { body: [{ filter: { expression: 'ip.src eq 198.51.100.6' }, action: 'block' }] })).body.result[0];
    const answer = await h.call('POST', rules, { body: [{ filter: { id: owner.filter.id }, action: 'log' }] });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(
      failure([10027, `0.filter.id: filter ${owner.filter.id} belongs to firewall rule ${owner.id}, created together with it in one call, and no other rule may reference it; create a filter of its own (POST /zones/{zone_id}/filters) and reference that`]),
    );
    expect(await counts()).toMatchObject({ filters: 1, firewallRules: 1 });
  });

  test('an unknown filter id is refused and nothing is created', async () => {
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 198.51.100.5' }, action: 'block' },
        { filter: { id: MISSING_ID }, action: 'block' },
      ],
    });
    expect(answer.body).toEqual(failure([1004, `1.filter.id: filter ${MISSING_ID} not found`]));
    expect(await counts()).toMatchObject({ filters: 0, firewallRules: 0 });
  });
});

describe('the rule quota', () => {
  test('exceeding it creates the filters but not the rules, and the error names the filters', async () => {
    await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 10.0.0.1' }, action: 'block' },
        { filter: { expression: 'ip.src eq 10.0.0.2' }, action: 'block' },
      ],
    });
    const answer = await h.call('POST', rules, {
      body: [
        { filter: { expression: 'ip.src eq 10.0.0.3' }, action: 'block' },
        { filter: { expression: 'ip.src eq 10.0.0.4' }, action: 'block' },
      ],
    });
    expect(answer.status).toBe(400);
    const listed = (await h.call('GET', `${filters}?per_page=100`)).body.result;
    const orphans = listed.filter((f: { expression: string }) => f.expression === 'ip.src eq 10.0.0.3' || f.expression === 'ip.src eq 10.0.0.4');
    expect(orphans).toHaveLength(2);
    expect(answer.body).toEqual(
      failure([
        10030,
        `firewall rule quota exceeded: zone ${ZONE} (pro plan) allows 3 rules and has 2; no rule was created, but filters ${orphans[0].id}, ${orphans[1].id} were created: reference them by id once the quota allows`,
      ]),
    );
    expect(await counts()).toMatchObject({ filters: 4, firewallRules: 2 });

    // Once the quota allows, a rule references the orphaned filter by id.
    const ok = await h.call('POST', rules, { body: [{ filter: { id: orphans[0].id }, action: 'block' }] });
    expect(ok.status).toBe(200);
    expect(ok.body.result[0].filter.id).toBe(orphans[0].id);
    // The other orphan belongs to no rule: the filters API may delete it.
    expect((await h.call('DELETE', `${filters}/${orphans[1].id}`)).status).toBe(200);
  });

  test('a call of rules by id only over the quota creates nothing', async () => {
    await h.emulator.admin.seedZone({ id: ZONE, name: 'rules.example', plan: 'free', ruleQuota: 0 });
    const filter = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 10.0.0.9' }] })).body.result[0];
    const answer = await h.call('POST', rules, { body: [{ filter: { id: filter.id }, action: 'block' }] });
    expect(answer.body).toEqual(failure([10030, `firewall rule quota exceeded: zone ${ZONE} (free plan) allows 0 rules and has 0; no rule was created`]));
  });

  test('each plan has its default quota', async () => {
    const zones = await Promise.all(
      (['free', 'pro', 'business', 'enterprise'] as const).map((plan, i) =>
        h.emulator.admin.seedZone({ id: `bb00000000000000000000000000bb0${i}`, name: `${plan}.example`, plan }),
      ),
    );
    expect(zones.map((z) => z.ruleQuota)).toEqual([5, 20, 100, 1000]);
  });
});

describe('GET, PUT and DELETE of one rule, and the list', () => {
  async function createTwo() {
    return (
      await h.call('POST', rules, {
        body: [
          { filter: { expression: 'ip.src eq 10.1.0.1' }, action: 'block', description: 'first' },
          { filter: { expression: 'ip.src eq 10.1.0.2' }, action: 'log', paused: true, description: 'second' },
        ],
      })
    ).body.result;
  }

  test('GET lists the rules with their filters, filtered by action, paused and description', async () => {
    const created = await createTwo();
    expect((await h.call('GET', rules)).body.result).toEqual(created);
    expect((await h.call('GET', `${rules}?action=log`)).body.result).toEqual([created[1]]);
    expect((await h.call('GET', `${rules}?paused=false`)).body.result).toEqual([created[0]]);
    expect((await h.call('GET', `${rules}?description=fir`)).body.result).toEqual([created[0]]);
    expect((await h.call('GET', `${rules}?per_page=5&page=2`)).body.result).toEqual([]);
    // The public API's bounds: 5 to 100 a page.
    expect((await h.call('GET', `${rules}?per_page=1&page=2`)).body).toEqual(failure([1004, 'per_page: must be at least 5']));
    expect((await h.call('GET', rules)).body).not.toHaveProperty('result_info');
    expect((await h.call('GET', `${rules}?paused=maybe`)).body).toEqual(failure([1004, 'paused: must be true or false']));
    expect((await h.call('GET', `${rules}?per_page=101`)).body).toEqual(failure([1004, 'per_page: must be at most 100']));
  });

  test('GET one answers the rule; an unknown one is a 404', async () => {
    const [first] = await createTwo();
    expect((await h.call('GET', `${rules}/${first.id}`)).body.result).toEqual(first);
    const missing = await h.call('GET', `${rules}/${MISSING_ID}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(failure([10013, `firewall rule ${MISSING_ID} not found`]));
  });

  test('PUT changes the rule and may point it at another filter', async () => {
    const [first] = await createTwo();
    const standalone = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 10.1.0.3' }] })).body.result[0];
    const answer = await h.call('PUT', `${rules}/${first.id}`, {
      body: { id: first.id, action: 'challenge', paused: true, filter: { id: standalone.id } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual({ ...first, action: 'challenge', paused: true, filter: standalone });
    // The first filter lost its rule: it is free on the filters API now.
    expect((await h.call('DELETE', `${filters}/${first.filter.id}`)).status).toBe(200);
  });

  test('PUT refuses to point a rule at the filter another rule was created with in one call (10027)', async () => {
    const [first, second] = await createTwo();
    const answer = await h.call('PUT', `${rules}/${first.id}`, { body: { action: 'block', filter: { id: second.filter.id } } });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(
      failure([10027, `filter.id: filter ${second.filter.id} belongs to firewall rule ${second.id}, created together with it in one call, and no other rule may reference it; create a filter of its own (POST /zones/{zone_id}/filters) and reference that`]),
    );
    expect((await h.call('GET', `${rules}/${first.id}`)).body.result).toEqual(first);
  });

  test('PUT refuses an id that differs from the path and an unknown filter', async () => {
    const [first, second] = await createTwo();
    expect((await h.call('PUT', `${rules}/${first.id}`, { body: { id: second.id, action: 'block', filter: { id: first.filter.id } } })).body).toEqual(
      failure([1004, `id: ${second.id} does not match the identifier in the path (${first.id})`]),
    );
    expect((await h.call('PUT', `${rules}/${first.id}`, { body: { action: 'block', filter: { id: MISSING_ID } } })).body).toEqual(
      failure([1004, `filter.id: filter ${MISSING_ID} not found`]),
    );
    expect((await h.call('PUT', `${rules}/${first.id}`, { body: { action: 'block' } })).body).toEqual(
      failure([1004, 'filter: is required']),
    );
    expect((await h.call('GET', `${rules}/${first.id}`)).body.result).toEqual(first);
  });

  test('DELETE with delete_filter_if_unused=true in the query deletes the filter too', async () => {
    const [first] = await createTwo();
    const answer = await h.call('DELETE', `${rules}/${first.id}?delete_filter_if_unused=true`);
    expect(answer.status).toBe(200);
    expect(FirewallRuleDeleteResultSchema.parse(answer.body.result)).toEqual({ id: first.id, filter: { id: first.filter.id, deleted: true } });
    expect((await h.call('GET', `${filters}/${first.filter.id}`)).status).toBe(404);
  });

  test('DELETE with the flag in the body works the same', async () => {
    const [first] = await createTwo();
    const answer = await h.call('DELETE', `${rules}/${first.id}`, { body: { delete_filter_if_unused: true } });
    expect(answer.body.result).toEqual({ id: first.id, filter: { id: first.filter.id, deleted: true } });
  });

  test('DELETE without the flag keeps the filter, which is then free to delete on its own', async () => {
    const [first] = await createTwo();
    const answer = await h.call('DELETE', `${rules}/${first.id}`);
    expect(answer.body.result).toEqual({ id: first.id, filter: { id: first.filter.id, deleted: false } });
    expect((await h.call('GET', `${rules}/${first.id}`)).status).toBe(404);
    // The kept filter still holds its expression: recreating the rule by expression collides with it (10102).
    const again = await h.call('POST', rules, { body: [{ filter: { expression: 'ip.src eq 10.1.0.1' }, action: 'block' }] });
    expect(again.body.errors[0].code).toBe(10102);
    expect((await h.call('DELETE', `${filters}/${first.filter.id}`)).status).toBe(200);
  });

  test('DELETE keeps a filter that another rule still uses, and says so', async () => {
    const filter = (await h.call('POST', filters, { body: [{ expression: 'ip.src eq 10.2.0.1' }] })).body.result[0];
    const [a] = (await h.call('POST', rules, { body: [{ filter: { id: filter.id }, action: 'block' }, { filter: { id: filter.id }, action: 'log' }] })).body.result;
    const answer = await h.call('DELETE', `${rules}/${a.id}?delete_filter_if_unused=true`);
    expect(answer.body.result).toEqual({ id: a.id, filter: { id: filter.id, deleted: false } });
    expect((await h.call('GET', `${filters}/${filter.id}`)).status).toBe(200);
  });

  test('DELETE refuses a flag that is not a boolean, and an unknown rule', async () => {
    const [first] = await createTwo();
    expect((await h.call('DELETE', `${rules}/${first.id}?delete_filter_if_unused=yes`)).body).toEqual(
      failure([1004, 'delete_filter_if_unused: must be true or false']),
    );
    expect((await h.call('DELETE', `${rules}/${first.id}`, { body: { delete_filter_if_unused: 'yes' } })).body).toEqual(
      failure([1004, 'delete_filter_if_unused: must be true or false']),
    );
    expect((await h.call('GET', `${rules}/${first.id}`)).status).toBe(200);
    const missing = await h.call('DELETE', `${rules}/${MISSING_ID}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(failure([10013, `firewall rule ${MISSING_ID} not found`]));
  });
});

describe('bulk PUT and PATCH of rules, and PATCH of one rule', () => {
  async function createTwo() {
    const body = [
      { filter: { expression: 'ip.src eq 10.2.0.1' }, action: 'block', priority: 1 },
      { filter: { expression: 'ip.src eq 10.2.0.2' }, action: 'log', priority: 2 },
    ];
    return (await h.call('POST', rules, { body })).body.result;
  }

  test('PUT of several rules changes each, answering them all', async () => {
    const [first, second] = await createTwo();
    const answer = await h.call('PUT', rules, {
      body: [
        { id: first.id, action: 'challenge', filter: { id: first.filter.id }, priority: 5 },
        { id: second.id, action: 'bypass', products: ['waf'], filter: { id: second.filter.id } },
      ],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual([
      { ...first, action: 'challenge', priority: 5 },
      { ...second, action: 'bypass', products: ['waf'] },
    ]);
    expect((await h.call('GET', rules)).body.result).toEqual(answer.body.result);
  });

  test('PATCH of several rules changes the fields given (their priorities), all or none', async () => {
    const [first, second] = await createTwo();
    const answer = await h.call('PATCH', rules, { body: [{ id: first.id, priority: 20 }, { id: second.id, priority: 10 }] });
    expect(answer.body.result.map((rule: { id: string; priority: number }) => [rule.id, rule.priority])).toEqual([
      [first.id, 20],
      [second.id, 10],
    ]);
    const refused = await h.call('PATCH', rules, { body: [{ id: first.id, priority: 30 }, { id: second.id, products: ['waf'] }] });
    expect(refused.body).toEqual(failure([1004, '1.products: allowed only when action is bypass']));
    expect((await h.call('GET', `${rules}/${first.id}`)).body.result.priority).toBe(20);
    expect((await h.call('PATCH', rules, { body: [{ id: MISSING_ID, priority: 1 }] })).body).toEqual(failure([10013, `firewall rule ${MISSING_ID} not found`]));
  });

  test('PATCH of one rule answers it in a list, as the public API does; an empty body changes nothing', async () => {
    const [first] = await createTwo();
    const answer = await h.call('PATCH', `${rules}/${first.id}`, { body: { priority: 7 } });
    expect(answer.body.result).toEqual([{ ...first, priority: 7 }]);
    expect((await h.call('PATCH', `${rules}/${first.id}`, { body: {} })).body.result).toEqual([{ ...first, priority: 7 }]);
    expect((await h.call('PATCH', `${rules}/${first.id}`, { body: { id: MISSING_ID } })).body).toEqual(failure([1004, `id: ${MISSING_ID} does not match the identifier in the path (${first.id})`]));
  });
});
