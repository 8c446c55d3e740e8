// The entry points of the custom rules and rate limiting rules phases over real HTTP: the per-rule writes with their
// positions, the grammar of each phase, the plan quotas, versions, last-writer-wins and dry runs
// (docs/service.md#rulesets).
import { failure, useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

const CUSTOM = 'http_request_firewall_custom';
const RATELIMIT = 'http_ratelimit';
const entrypoint = (zone: string, phase: string) => `/zones/${zone}/rulesets/phases/${phase}/entrypoint`;
const block = (expression: string, ref?: string) => ({ action: 'block', expression, ...(ref ? { ref } : {}) });
const limit = { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 100, mitigation_timeout: 600 };

/** Creates the zone's entry point of `phase` with `rules` and answers the saved ruleset. */
async function created(zone: string, phase: string, rules: unknown[]) {
  const answer = await h.call('PUT', entrypoint(zone, phase), { body: { rules } });
  expect(answer.status).toBe(200);
  return answer.body.result as { id: string; version: string; rules: { id: string; ref: string; expression: string }[] };
}

describe('per-rule writes', () => {
  test('POST adds one rule last, before, after, or at an index, each answering the whole ruleset one version up', async () => {
    const zone = h.zoneOf('pro');
    const ruleset = await created(zone, CUSTOM, [block('ip.src eq 192.0.2.1', 'a')]);
    const rules = `/zones/${zone}/rulesets/${ruleset.id}/rules`;
    const [a] = ruleset.rules;
    const last = await h.call('POST', rules, { body: block('ip.src eq 192.0.2.2', 'b') });
    expect(last.body.result).toMatchObject({ id: ruleset.id, version: '2', phase: CUSTOM });
    expect(last.body.result.rules.map((r: { ref: string }) => r.ref)).toEqual(['a', 'b']);
    await h.call('POST', rules, { body: { ...block('ip.src eq 192.0.2.3', 'c'), position: { before: a?.id } } });
    await h.call('POST', rules, { body: { ...block('ip.src eq 192.0.2.4', 'd'), position: { after: a?.id } } });
    const indexed = await h.call('POST', rules, { body: { ...block('ip.src eq 192.0.2.5', 'e'), position: { index: 2 } } });
    expect(indexed.body.result.version).toBe('5');
    expect(indexed.body.result.rules.map((r: { ref: string }) => r.ref)).toEqual(['c', 'e', 'a', 'd', 'b']);
  });

  test('PATCH changes the fields sent and may move the rule; DELETE removes it; the others keep their id and version', async () => {
    const zone = h.zoneOf('pro');
    const ruleset = await created(zone, CUSTOM, [block('ip.src eq 192.0.2.1', 'a'), block('ip.src eq 192.0.2.2', 'b')]);
    const [a, b] = ruleset.rules;
    const patched = await h.call('PATCH', `/zones/${zone}/rulesets/${ruleset.id}/rules/${b?.id}`, { body: { action: 'log', position: { index: 1 } } });
    expect(patched.status).toBe(200);
    expect(patched.body.result.rules.map((r: { ref: string; action: string }) => [r.ref, r.action])).toEqual([
      ['b', 'log'],
      ['a', 'block'],
    ]);
    expect(patched.body.result.rules[1]).toMatchObject({ id: a?.id, version: '1' });
    const deleted = await h.call('DELETE', `/zones/${zone}/rulesets/${ruleset.id}/rules/${a?.id}`);
    expect(deleted.body.result.rules.map((r: { id: string }) => r.id)).toEqual([b?.id]);
    expect(deleted.body.result.version).toBe('3');
  });

  test('a rule or a place that does not exist: 404 or 400 naming it, nothing saved', async () => {
    const zone = h.zoneOf('pro');
    const ruleset = await created(zone, CUSTOM, [block('true', 'a')]);
    const missing = 'f'.repeat(32);
    expect((await h.call('DELETE', `/zones/${zone}/rulesets/${ruleset.id}/rules/${missing}`)).body).toEqual(failure([10013, `ruleset ${ruleset.id} has no rule ${missing}`]));
    const place = await h.call('POST', `/zones/${zone}/rulesets/${ruleset.id}/rules`, { body: { ...block('true'), position: { after: missing } } });
    expect(place.body).toEqual(failure([1004, `position.after: the ruleset has no rule ${missing}; name a rule of this ruleset, or use { index: n }`]));
    const index = await h.call('POST', `/zones/${zone}/rulesets/${ruleset.id}/rules`, { body: { ...block('true'), position: { index: 3 } } });
    expect(index.body).toEqual(failure([1004, 'position.index: must be between 1 and 2 (the places of this ruleset)']));
    expect((await h.call('GET', entrypoint(zone, CUSTOM))).body.result.version).toBe('1');
    expect((await h.call('GET', `/zones/${zone}/rulesets/${missing}`)).body).toEqual(failure([10013, `zone ${zone} has no ruleset ${missing}`]));
  });

  test('a ref already used by another rule is refused', async () => {
    const zone = h.zoneOf('pro');
    const ruleset = await created(zone, CUSTOM, [block('true', 'a')]);
    const answer = await h.call('POST', `/zones/${zone}/rulesets/${ruleset.id}/rules`, { body: block('ip.src eq 192.0.2.9', 'a') });
    expect(answer.body).toEqual(failure([1004, 'ref: a is already used by rules.0.ref; each must be unique']));
  });
});

describe('the create-only write of an entry point (POST /zones/{zone_id}/rulesets)', () => {
  const create = (zone: string, body: Record<string, unknown>, query = '') => h.call('POST', `/zones/${zone}/rulesets${query}`, { body: { name: 'default', kind: 'zone', ...body } });
  const exists = (phase: string) => ({
    success: false,
    errors: [{ code: 20217, message: `'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase ${phase}`, source: { pointer: '/kind' } }],
    messages: [],
    result: null,
  });

  test('creates the zone\'s entry point of the phase once; a second create, dry run or not, is refused and changes nothing', async () => {
    const zone = h.zoneOf('pro');
    const dry = await create(zone, { phase: CUSTOM, rules: [block('true', 'a')] }, '?dry_run=true');
    expect(dry.body).toEqual({ success: true, errors: [], messages: [], result: null });
    expect((await h.call('GET', entrypoint(zone, CUSTOM))).status).toBe(404);
    const made = await create(zone, { phase: CUSTOM, rules: [block('true', 'a')] });
    expect(made.status).toBe(200);
    expect(made.body.result).toMatchObject({ name: 'default', kind: 'zone', phase: CUSTOM, version: '1', rules: [{ ref: 'a', id: expect.stringMatching(/^[0-9a-f]{32}$/) }] });
    expect((await h.call('GET', entrypoint(zone, CUSTOM))).body.result).toEqual(made.body.result);
    for (const query of ['', '?dry_run=true']) {
      const again = await create(zone, { phase: CUSTOM, rules: [block('ip.src eq 192.0.2.2', 'b')] }, query);
      expect(again.status).toBe(400);
      expect(again.body).toEqual(exists(CUSTOM));
    }
    expect((await h.call('GET', entrypoint(zone, CUSTOM))).body.result).toEqual(made.body.result);
    // Another phase of the same zone has its own entry point; one made by the PUT counts as one.
    expect((await create(zone, { phase: RATELIMIT, rules: [] })).status).toBe(200);
    await created(zone, 'http_request_firewall_managed', []);
    expect((await create(zone, { phase: 'http_request_firewall_managed', rules: [] })).body).toEqual(exists('http_request_firewall_managed'));
  });

  test('checked as the PUT is: the grammar, the quota; another kind or a phase the emulator does not hold answers 501', async () => {
    const zone = h.zoneOf('free');
    expect((await create(zone, { phase: CUSTOM, rules: [{ action: 'execute', expression: 'true' }] })).body).toEqual(
      failure([1004, 'rules.0.action: execute is not an action of the http_request_firewall_custom phase; use block or challenge or js_challenge or managed_challenge or log or skip']),
    );
    const six = [1, 2, 3, 4, 5, 6].map((n) => block(`ip.src eq 192.0.2.${n}`));
    for (const query of ['', '?dry_run=true']) {
      expect((await create(zone, { phase: CUSTOM, rules: six }, query)).body).toEqual(
        failure([1004, `rules: the http_request_firewall_custom phase of zone ${zone} (free plan) allows 5 rules; this write would leave 6; nothing was saved`]),
      );
    }
    expect((await create(zone, { phase: CUSTOM })).body.errors[0]).toMatchObject({ code: 1004, message: expect.stringMatching(/^rules: /) });
    const custom = await create(zone, { kind: 'custom', phase: CUSTOM, rules: [] });
    expect(custom.status).toBe(501);
    expect(custom.body.errors[0]).toMatchObject({ code: 10040, message: expect.stringMatching(/^kind: custom is a kind of ruleset the emulator does not hold/) });
    const late = await create(zone, { phase: 'http_request_late_transform', rules: [] });
    expect(late.status).toBe(501);
    expect(late.body.errors[0].message).toMatch(/^phase: http_request_late_transform is a phase the emulator does not hold/);
    expect((await h.call('GET', entrypoint(zone, CUSTOM))).status).toBe(404);
  });

  test('of creates sent at once, with latency, exactly one makes the entry point; the others are refused', async () => {
    const zone = h.zoneOf('business');
    await h.emulator.admin.setFaults({ latencyMs: 100 });
    try {
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => create(zone, { phase: CUSTOM, rules: [block(`ip.src eq 192.0.2.${n}`, `r${n}`)] })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
      const made = answers.find((answer) => answer.status === 200)!.body.result;
      expect((await h.call('GET', entrypoint(zone, CUSTOM))).body.result).toEqual(made);
      expect(answers.filter((answer) => answer.status === 400).map((answer) => answer.body)).toEqual(Array(5).fill(exists(CUSTOM)));
    } finally {
      await h.emulator.admin.clearFaults();
    }
  });
});

describe('the grammar of each phase', () => {
  test.each([
    ['execute is not a custom rule action', CUSTOM, { action: 'execute', expression: 'true' }, ['action: execute is not an action of the http_request_firewall_custom phase; use block or challenge or js_challenge or managed_challenge or log or skip']],
    ['a skip of nothing', CUSTOM, { action: 'skip', expression: 'true' }, ['action_parameters: required for skip: what it skips: ruleset "current", phases, products, or rules']],
    ['a skip of an unknown product', CUSTOM, { action: 'skip', expression: 'true', action_parameters: { products: ['waf', 'cdn'] } }, ['action_parameters.products.1: cdn is not allowed; use bic, hot, rateLimit, securityLevel, uaBlock, waf, zoneLockdown']],
    ['a response on a log', CUSTOM, { action: 'log', expression: 'true', action_parameters: { response: { status_code: 403, content: 'no' } } }, ['action_parameters.response: not a parameter of log']],
    ['a block response out of range', CUSTOM, { action: 'block', expression: 'true', action_parameters: { response: { status_code: 302, content: 'no', content_type: 'text/csv' } } }, ['action_parameters.response.status_code: must be a whole number from 400 to 499', 'action_parameters.response.content_type: text/csv is not allowed; use application/json, text/html, text/plain, text/xml']],
    ['a response field in a request phase', CUSTOM, { action: 'block', expression: 'http.response.code eq 500' }, ['expression: line 1, column 1: http.response.code is a response field; a request phase\'s expression uses request fields (a rate limiting rule may count responses in its counting_expression)']],
    ['a rate limit in the custom phase', CUSTOM, { action: 'block', expression: 'true', ratelimit: limit }, ['ratelimit: not available in the http_request_firewall_custom phase']],
    ['skip is not a rate limiting action', RATELIMIT, { action: 'skip', expression: 'true', ratelimit: limit }, ['action: skip is not an action of the http_ratelimit phase; use block or challenge or js_challenge or managed_challenge or log']],
    ['a rate limiting rule without its rate limit', RATELIMIT, { action: 'block', expression: 'true' }, ['ratelimit: required: characteristics, period, requests_per_period and mitigation_timeout']],
    [
      'a rate limit of wrong values',
      RATELIMIT,
      { action: 'managed_challenge', expression: 'true', ratelimit: { characteristics: ['ip.src'], period: 30, requests_per_period: 0, mitigation_timeout: 60, counting_expression: 'http.response.code eq' } },
      [
        'ratelimit.characteristics: must include cf.colo.id',
        'ratelimit.period: 30 is not allowed; use 10, 60, 120, 300, 600, 3600',
        'ratelimit.requests_per_period: must be a whole number of at least 1',
        'ratelimit.mitigation_timeout: must be 0 with managed_challenge (a challenge lasts until it is passed)',
        'ratelimit.counting_expression: line 1, column 22: expected a value after "eq", found end of input',
      ],
    ],
  ])('%s: 400, one line per problem', async (_name, phase, rule, messages) => {
    const zone = h.zoneOf('enterprise');
    const answer = await h.call('PUT', entrypoint(zone, phase), { body: { rules: [rule] } });
    expect(answer.body).toEqual(failure(...messages.map((message) => [1004, `rules.0.${message}`] as [number, string])));
  });

  test('valid rules of both phases are saved, a counting expression may read the response', async () => {
    const zone = h.zoneOf('enterprise');
    const custom = await created(zone, CUSTOM, [
      { action: 'skip', expression: 'ip.src in {192.0.2.0/24}', action_parameters: { ruleset: 'current', phases: ['http_ratelimit'], products: ['waf'] } },
      { action: 'block', expression: 'http.request.uri.path contains "/admin"', action_parameters: { response: { status_code: 403, content: '{"error":"no"}', content_type: 'application/json' } } },
    ]);
    expect(custom.rules).toHaveLength(2);
    const ratelimit = await created(zone, RATELIMIT, [{ action: 'block', expression: 'true', ratelimit: { ...limit, counting_expression: 'http.response.code eq 401' } }]);
    expect(ratelimit).toMatchObject({ phase: RATELIMIT, version: '1' });
    expect(ratelimit.id).not.toBe(custom.id);
  });
});

describe('plan quotas of rules per phase', () => {
  test('a free zone holds 5 custom rules and 1 rate limiting rule; one more is refused, naming the quota', async () => {
    const zone = h.zoneOf('free');
    const ruleset = await created(zone, CUSTOM, [1, 2, 3, 4, 5].map((n) => block(`ip.src eq 192.0.2.${n}`)));
    const over = await h.call('POST', `/zones/${zone}/rulesets/${ruleset.id}/rules`, { body: block('ip.src eq 192.0.2.6') });
    expect(over.body).toEqual(failure([1004, `rules: the http_request_firewall_custom phase of zone ${zone} (free plan) allows 5 rules; this write would leave 6; nothing was saved`]));
    const two = await h.call('PUT', entrypoint(zone, RATELIMIT), { body: { rules: [1, 2].map(() => ({ action: 'block', expression: 'true', ratelimit: limit })) } });
    expect(two.body.errors[0].message).toBe(`rules: the http_ratelimit phase of zone ${zone} (free plan) allows 1 rules; this write would leave 2; nothing was saved`);
  });
});

describe('entitlements (docs/service.md#ruleset-entitlements)', () => {
  test('a Bot Management field is refused off the enterprise plan, in an expression or a counting expression, dry run or not; saved on it', async () => {
    const pro = h.zoneOf('pro');
    const ruleset = await created(pro, CUSTOM, [block('ip.src eq 192.0.2.1', 'a')]);
    for (const query of ['', '?dry_run=true']) {
      const refused = await h.call('POST', `/zones/${pro}/rulesets/${ruleset.id}/rules${query}`, { body: block('cf.bot_management.score lt 30') });
      expect(refused.body).toEqual(
        failure([1004, 'rules.1.expression: cf.bot_management.score needs Bot Management, an add-on of the enterprise plan; this zone is on the pro plan; nothing was saved']),
      );
    }
    const counting = await h.call('PUT', entrypoint(pro, RATELIMIT), {
      body: { rules: [{ action: 'block', expression: 'true', ratelimit: { ...limit, counting_expression: 'cf.bot_management.verified_bot' } }] },
    });
    expect(counting.body.errors[0].message).toBe('rules.0.expression: cf.bot_management.verified_bot needs Bot Management, an add-on of the enterprise plan; this zone is on the pro plan; nothing was saved');
    expect((await h.call('GET', entrypoint(pro, CUSTOM))).body.result.rules).toHaveLength(1);
    const enterprise = h.zoneOf('enterprise');
    expect((await created(enterprise, CUSTOM, [block('cf.bot_management.score lt 30', 'bots')])).rules).toHaveLength(1);
  });
});

describe('versions, last writer wins, dry runs', () => {
  test('every write raises the version; each version is listed (without rules) and read back', async () => {
    const zone = h.zoneOf('pro');
    const ruleset = await created(zone, CUSTOM, [block('true', 'a')]);
    await h.call('POST', `/zones/${zone}/rulesets/${ruleset.id}/rules`, { body: block('ip.src eq 192.0.2.2', 'b') });
    const list = await h.call('GET', `/zones/${zone}/rulesets/${ruleset.id}/versions`);
    expect(list.body.result.map((v: { version: string }) => v.version)).toEqual(['1', '2']);
    expect(list.body.result[0].rules).toBeUndefined();
    const first = await h.call('GET', `/zones/${zone}/rulesets/${ruleset.id}/versions/1`);
    expect(first.body.result.rules.map((r: { ref: string }) => r.ref)).toEqual(['a']);
    expect((await h.call('GET', `${entrypoint(zone, CUSTOM)}/versions/2`)).body.result.rules).toHaveLength(2);
    expect((await h.call('GET', `/zones/${zone}/rulesets/${ruleset.id}/versions/9`)).body).toEqual(failure([10013, `ruleset ${ruleset.id} has no version 9`]));
  });

  test('two writers from the same read: both succeed, the second answer shows the lost update as a version two up', async () => {
    const zone = h.zoneOf('pro');
    const ruleset = await created(zone, CUSTOM, [block('true', 'a')]);
    const first = await h.call('PUT', entrypoint(zone, CUSTOM), { body: { rules: [...ruleset.rules, block('ip.src eq 192.0.2.2', 'b')] } });
    const second = await h.call('PUT', entrypoint(zone, CUSTOM), { body: { rules: [...ruleset.rules, block('ip.src eq 192.0.2.3', 'c')] } });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.result.version).toBe('3');
    expect(second.body.result.rules.map((r: { ref: string }) => r.ref)).toEqual(['a', 'c']);
  });

  test.each([
    ['POST', (_id: string) => 'rules', block('ip.src eq 192.0.2.2')],
    ['PATCH', (id: string) => `rules/${id}`, { action: 'log' }],
    ['DELETE', (id: string) => `rules/${id}`, undefined],
  ])('%s with dry_run=true answers result null and saves nothing; refused as the write would be', async (method, tail, body) => {
    const zone = h.zoneOf('free');
    const ruleset = await created(zone, CUSTOM, [block('true', 'a')]);
    const path = `/zones/${zone}/rulesets/${ruleset.id}/${tail(ruleset.rules[0]?.id ?? '')}`;
    const answer = await h.call(method, `${path}?dry_run=true`, body === undefined ? {} : { body });
    expect(answer.body).toEqual({ success: true, errors: [], messages: [], result: null });
    expect((await h.call('GET', entrypoint(zone, CUSTOM))).body.result.version).toBe('1');
    const refused = await h.call('POST', `/zones/${zone}/rulesets/${ruleset.id}/rules?dry_run=true`, { body: { action: 'allow', expression: 'true' } });
    expect(refused.status).toBe(400);
  });

  test('a phase the emulator does not hold answers 501', async () => {
    const answer = await h.call('GET', entrypoint(h.zoneOf('pro'), 'http_request_late_transform'));
    expect(answer.status).toBe(501);
    expect(answer.body.errors[0].code).toBe(10040);
  });
});
