import { MANAGED_RULESET_ID, OWASP_ANOMALY_SCORE_RULE_ID, OWASP_RULESET_ID } from '../../src/schemas/service';
import { SavedRulesetSchema } from '../../src/schemas';
import { failure, useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

const path = (zone: string) => `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`;
const put = (zone: string, body: unknown, q = '') => h.call('PUT', `${path(zone)}${q}`, { body });
const get = (zone: string, suffix = '') => h.call('GET', `${path(zone)}${suffix}`);
const status = async (zone: string) => (await h.call('GET', `/zones/${zone}/waf_migration/status`)).body.result;
const config = async (zone: string) => (await h.call('GET', `/zones/${zone}/waf_migration/config?phase_two=1`)).body.result;

const KNOWN = `${MANAGED_RULESET_ID} (Cloudflare Managed Ruleset) or ${OWASP_RULESET_ID} (Cloudflare OWASP Core Ruleset)`;
const execute = (id = MANAGED_RULESET_ID, extra: Record<string, unknown> = {}) => ({ action: 'execute', expression: 'true', action_parameters: { id, ...extra } });
const exception = { action: 'skip', expression: 'http.host eq "dev.example.com"', action_parameters: { ruleset: 'current' } };

describe('PUT entry point without waf_migration: the ordinary ruleset update', () => {
  test('after a migration: each PUT saves a new version and answers it; GET reads it back', async () => {
    const zone = h.zoneOf('pro');
    const migrated = await put(zone, await config(zone), '?waf_migration=pending&phase_two=1');
    expect(migrated.status).toBe(200);
    const update = await put(zone, { name: 'default', rules: [exception, execute(OWASP_RULESET_ID)] });
    expect(update.status).toBe(200);
    const saved = SavedRulesetSchema.parse(update.body.result);
    expect(saved).toMatchObject({ id: migrated.body.result.id, name: 'default', description: '', kind: 'zone', phase: 'http_request_firewall_managed', version: '2' });
    expect(saved.rules).toEqual([
      { ...exception, id: expect.stringMatching(/^[0-9a-f]{32}$/), ref: saved.rules[0]!.id, description: '', enabled: true, version: '2', last_updated: saved.last_updated },
      { ...execute(OWASP_RULESET_ID), id: expect.stringMatching(/^[0-9a-f]{32}$/), ref: saved.rules[1]!.id, description: '', enabled: true, version: '2', last_updated: saved.last_updated },
    ]);
    expect((await get(zone)).body.result).toEqual(update.body.result);
    expect(await status(zone)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });

  test('before a migration it saves the ruleset and leaves the migration where it was', async () => {
    const zone = h.zoneOf('enterprise');
    const answer = await put(zone, { name: 'default', rules: [execute()] });
    expect(answer.status).toBe(200);
    expect(answer.body.result.version).toBe('1');
    expect(await status(zone)).toEqual({ migration_state: 'start', old_waf_status: 'enabled', new_waf_status: 'disabled' });
    expect((await h.call('GET', `/zones/${zone}/waf_migration/check?phase_two=1`)).body.result).toEqual({ compatible: true, migration_state: 'start' });
    // The migration then saves its configuration as the next version.
    const migrated = await put(zone, await config(zone), '?waf_migration=pending&phase_two=1');
    expect(migrated.body.result.version).toBe('2');
  });

  test('a rule sent back with its id keeps it, and its version unless it changed; a rule left out is removed', async () => {
    const zone = h.zoneOf('free');
    const first = (await put(zone, { name: 'default', rules: [execute(), exception] })).body.result;
    const [managed, skip] = first.rules;
    const second = (await put(zone, { name: 'default', rules: [{ ...managed }, { ...skip, enabled: false }] })).body.result;
    expect(second.version).toBe('2');
    expect(second.rules.map((r: { id: string; version: string; enabled: boolean }) => [r.id, r.version, r.enabled])).toEqual([
      [managed.id, '1', true],
      [skip.id, '2', false],
    ]);
    expect(second.rules[0].last_updated).toBe(first.last_updated);
    const third = (await put(zone, { name: 'default', rules: [{ id: skip.id, ...exception }] })).body.result;
    expect(third.rules.map((r: { id: string }) => r.id)).toEqual([skip.id]);
  });

  test('enabled defaults to true and description to empty, as in the public API', async () => {
    const zone = h.zoneOf('free');
    const [rule] = (await put(zone, { name: 'default', rules: [execute()] })).body.result.rules;
    expect(rule).toMatchObject({ enabled: true, description: '' });
  });
});

describe('GET entry point versions', () => {
  test('lists every version without rules, oldest first; reads one with its rules', async () => {
    const zone = h.zoneOf('free');
    const v1 = (await put(zone, { name: 'default', rules: [execute()] })).body.result;
    const v2 = (await put(zone, { name: 'default', description: 'second', rules: [exception, execute()] })).body.result;
    const list = await get(zone, '/versions');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: [
        { id: v1.id, name: 'default', description: '', kind: 'zone', phase: 'http_request_firewall_managed', version: '1', last_updated: v1.last_updated },
        { id: v1.id, name: 'default', description: 'second', kind: 'zone', phase: 'http_request_firewall_managed', version: '2', last_updated: v2.last_updated },
      ],
    });
    expect((await get(zone, '/versions/1')).body.result).toEqual(v1);
    expect((await get(zone, '/versions/2')).body.result).toEqual(v2);
  });

  test('an unknown version is a 404; a zone without an entry point is a 404 for the list too', async () => {
    const zone = h.zoneOf('free');
    expect((await get(zone, '/versions')).body).toEqual(failure([10013, `zone ${zone} has no http_request_firewall_managed entry point ruleset`]));
    await put(zone, { name: 'default', rules: [] });
    const missing = await get(zone, '/versions/7');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(failure([10013, `zone ${zone} has no version 7 of its http_request_firewall_managed entry point ruleset`]));
  });
});

describe('PUT entry point: rules are validated before anything is saved or the migration moves', () => {
  test.each([
    ['an action the phase does not take', { action: 'foo', expression: 'true' }, ['rules.0.action: foo is not an action of the http_request_firewall_managed phase; use execute or skip']],
    ['an expression the rules language refuses', { ...execute(), expression: 'garbage(((' }, [expect.stringMatching(/^rules\.0\.expression: line 1, column \d+: /)]],
    ['a malformed rule id', { ...execute(), id: 'not-hex' }, ['rules.0.id: must be a rule id, or empty for a new rule: 32 lowercase hexadecimal characters']],
    ['a rule id the entry point does not have', { ...execute(), id: 'abcdefabcdefabcdefabcdefabcdefab' }, ['rules.0.id: the entry point has no rule abcdefabcdefabcdefabcdefabcdefab; leave id out (or empty) to add a rule, the service assigns its id']],
    ['execute without a ruleset', { action: 'execute', expression: 'true' }, ['rules.0.action_parameters.id: required for execute: the managed ruleset to run']],
    ['execute of an unknown ruleset', execute('abc'), [`rules.0.action_parameters.id: abc is not a managed ruleset; use ${KNOWN}`]],
    ['execute with a skip parameter', execute(MANAGED_RULESET_ID, { ruleset: 'current' }), ['rules.0.action_parameters.ruleset: not a parameter of execute']],
    ['an override action that is not one', execute(MANAGED_RULESET_ID, { overrides: { action: 'nonsense' } }), ['rules.0.action_parameters.overrides.action: nonsense is not an override action; use block, challenge, js_challenge, managed_challenge or log']],
    [
      'rule overrides: a bad id, nothing set, a repeat',
      execute(OWASP_RULESET_ID, { overrides: { rules: [{ id: 'r1', action: 'log' }, { id: OWASP_ANOMALY_SCORE_RULE_ID }, { id: 'r1', enabled: false }] } }),
      [
        'rules.0.action_parameters.overrides.rules.0.id: must be a managed rule id: 32 lowercase hexadecimal characters',
        'rules.0.action_parameters.overrides.rules.1: must set at least one of action, enabled, score_threshold',
        'rules.0.action_parameters.overrides.rules.2.id: must be a managed rule id: 32 lowercase hexadecimal characters',
        'rules.0.action_parameters.overrides.rules.2.id: r1 is already used by rules.0.action_parameters.overrides.rules.0.id; each must be unique',
      ],
    ],
    [
      'category overrides: nothing set, a bad action',
      execute(OWASP_RULESET_ID, { overrides: { categories: [{ category: 'wordpress' }, { category: 'drupal', action: 'simulate' }] } }),
      [
        'rules.0.action_parameters.overrides.categories.0: must set at least one of action, enabled',
        'rules.0.action_parameters.overrides.categories.1.action: simulate is not an override action; use block, challenge, js_challenge, managed_challenge or log',
      ],
    ],
    ['skip without saying what', { action: 'skip', expression: 'true' }, ['rules.0.action_parameters: required for skip: what it skips: ruleset "current", rulesets, or rules']],
    ['skip of another ruleset value', { ...exception, action_parameters: { ruleset: 'all' } }, ['rules.0.action_parameters.ruleset: all is not a ruleset to skip; use current']],
    ['skip of two kinds at once', { ...exception, action_parameters: { ruleset: 'current', rulesets: [OWASP_RULESET_ID] } }, ['rules.0.action_parameters: ruleset and rulesets cannot be combined; use one']],
    ['skip of an unknown ruleset', { ...exception, action_parameters: { rulesets: ['abc'] } }, [`rules.0.action_parameters.rulesets.0: abc is not a managed ruleset; use ${KNOWN}`]],
    ['skip of malformed rule ids', { ...exception, action_parameters: { rules: { [OWASP_RULESET_ID]: ['x'] } } }, [`rules.0.action_parameters.rules.${OWASP_RULESET_ID}.0: must be a managed rule id: 32 lowercase hexadecimal characters`]],
    ['skip of phases, which this phase cannot', { ...exception, action_parameters: { phases: ['http_ratelimit'] } }, ['rules.0.action_parameters.phases: not available in the http_request_firewall_managed phase; skip ruleset "current", rulesets, or rules']],
    ['skip with overrides', { ...exception, action_parameters: { ruleset: 'current', overrides: { enabled: false } } }, ['rules.0.action_parameters.overrides: not a parameter of skip']],
  ])('%s', async (_name, rule, messages) => {
    const zone = h.zoneOf('pro');
    const answer = await put(zone, { name: 'default', rules: [rule] }, '?waf_migration=pending&phase_two=1');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, errors: messages.map((message) => ({ code: 1004, message })), messages: [], result: null });
    expect(await status(zone)).toMatchObject({ migration_state: 'start' });
    expect((await get(zone)).status).toBe(404);
  });

  test('duplicate ids and refs, each named once with the first', async () => {
    const zone = h.zoneOf('free');
    const [rule] = (await put(zone, { name: 'default', rules: [execute()] })).body.result.rules;
    const answer = await put(zone, {
      name: 'default',
      rules: [
        { ...execute(), id: rule.id },
        { ...execute(OWASP_RULESET_ID), id: rule.id },
        { ...exception, ref: 'mine' },
        { ...exception, ref: 'mine' },
      ],
    });
    expect(answer.body).toEqual(
      failure(
        [1004, `rules.1.id: ${rule.id} is already used by rules.0.id; each must be unique`],
        [1004, 'rules.3.ref: mine is already used by rules.2.ref; each must be unique'],
      ),
    );
    expect((await get(zone)).body.result.version).toBe('1');
  });

  test('every problem of every rule is listed in one answer', async () => {
    const answer = await put(h.zoneOf('pro'), { name: 'default', rules: [{ action: 'foo', expression: 'true' }, execute('abc')] });
    expect(answer.body.errors.map((e: { message: string }) => e.message.split(':')[0])).toEqual(['rules.0.action', 'rules.1.action_parameters.id']);
  });
});

describe('the status of the previous WAF', () => {
  test('a zone whose previous WAF was off reports it off in validation and pending', async () => {
    const zone = await h.emulator.admin.seedZone({ name: 'off.example', plan: 'enterprise', migrationDelayMs: 60_000, previousWaf: { enabled: false } });
    expect(await status(zone.id)).toEqual({ migration_state: 'start', old_waf_status: 'disabled', new_waf_status: 'disabled' });
    const body = await config(zone.id);
    await put(zone.id, body, '?waf_migration=validation&phase_two=1');
    expect(await status(zone.id)).toMatchObject({ migration_state: 'validation', old_waf_status: 'disabled', new_waf_status: 'enabled' });
    await put(zone.id, body, '?waf_migration=pending&phase_two=1');
    expect(await status(zone.id)).toMatchObject({ migration_state: 'pending', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });
});
