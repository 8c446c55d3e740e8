import { convertedExecute } from '../support/waf-rules';
import {
  MANAGED_RULESET_ID,
  OWASP_ANOMALY_SCORE_RULE_ID,
  OWASP_RULESET_ID,
} from '../../src/schemas/service';
import { CompatibilitySchema, EntrypointRulesetSchema, SavedRulesetSchema, WafStatusSchema } from '../../src/schemas';
import { failure, useEmulator, expectInvalid } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

const check = (zone: string, q = '?phase_two=1') => h.call('GET', `/zones/${zone}/waf_migration/check${q}`);
const config = (zone: string, q = '?phase_two=1') => h.call('GET', `/zones/${zone}/waf_migration/config${q}`);
const status = (zone: string) => h.call('GET', `/zones/${zone}/waf_migration/status`);
const entrypoint = (zone: string, q: string, body: unknown) =>
  h.call('PUT', `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint${q}`, { body });
const migrate = async (zone: string, mode: string) => entrypoint(zone, `?waf_migration=${mode}&phase_two=1`, (await config(zone)).body.result);

function owaspOverrides(paranoiaOff: readonly number[], action: string, threshold: number) {
  return {
    categories: paranoiaOff.map((n) => ({ category: `paranoia-level-${n}`, enabled: false })),
    rules: [{ id: OWASP_ANOMALY_SCORE_RULE_ID, action, score_threshold: threshold }],
  };
}

describe('phase_two=1 on every migration call', () => {
  test.each([
    ['check', () => check(h.zoneOf('pro'), '')],
    ['config', () => config(h.zoneOf('pro'), '?phase_two=2')],
    ['entrypoint', () => entrypoint(h.zoneOf('pro'), '?waf_migration=pending', { name: 'default', rules: [] })],
  ])('%s without it is a 400 that says how to fix it', async (_name, call) => {
    const answer = await call();
    expectInvalid(answer, 'phase_two: must be 1 (the second phase of the migration): add ?phase_two=1');
  });

  test('waf_migration, when given, must be a known value', async () => {
    const zone = h.zoneOf('pro');
    expect((await entrypoint(zone, '?phase_two=1&waf_migration=now', { name: 'default', rules: [] })).body).toEqual(
      failure([1004, 'waf_migration: must be pending (or 1) or validation (or 2)']),
    );
    expect((await status(zone)).body.result.migration_state).toBe('start');
  });
});

describe('GET /zones/{zone_id}/waf_migration/check', () => {
  test('a zone without URI-based overrides is compatible, in state start', async () => {
    const answer = await check(h.zoneOf('pro'));
    expect(CompatibilitySchema.parse(answer.body.result)).toEqual({ compatible: true, migration_state: 'start' });
  });

  test('a zone with a URI-based override is not compatible until the override is deleted', async () => {
    const zone = h.zoneOf('business');
    expect((await check(zone)).body.result).toEqual({ compatible: false, migration_state: 'start' });
    const [override] = (await h.call('GET', `/zones/${zone}/firewall/waf/overrides`)).body.result;
    await h.call('DELETE', `/zones/${zone}/firewall/waf/overrides/${override.id}`);
    expect((await check(zone)).body.result).toEqual({ compatible: true, migration_state: 'start' });
  });
});

describe('GET /zones/{zone_id}/waf_migration/check tells the truth before anything is submitted', () => {
  test.each([
    [
      'more than 200 firewall rules',
      Array.from({ length: 201 }, (_, i) => ({ expression: `ip.src eq 10.8.${Math.floor(i / 250)}.${i % 250}`, action: 'block' as const })),
      [10032, 'the migration cannot be completed: the zone has 201 firewall rules to migrate, more than 200; contact support to migrate this zone'],
    ],
    [
      'an expression over 4 KB',
      [{ id: 'cc00000000000000000000000000cc02', expression: `http.request.uri.path eq "/${'a'.repeat(4100)}"`, action: 'block' as const }],
      [10032, 'the migration cannot be completed: firewall rule cc00000000000000000000000000cc02 has an expression of 4128 bytes, more than 4096; contact support to migrate this zone'],
    ],
  ])('%s: compatible false, the reason in messages, as the entry point PUT would refuse it', async (_name, firewallRules, [code, message]) => {
    const zone = await h.emulator.admin.seedZone({ name: 'limits.example', plan: 'enterprise', previousWaf: {}, firewallRules });
    const answer = await check(zone.id);
    expect(answer.body).toEqual({ success: true, errors: [], messages: [{ code, message }], result: { compatible: false, migration_state: 'start' } });
    expect((await migrate(zone.id, 'pending')).body).toEqual(failure([code as number, message as string]));
  });

  test('URI-based overrides are named in messages too; a compatible zone has none', async () => {
    const zone = h.zoneOf('business');
    expect((await check(zone)).body.messages).toEqual([
      { code: 10031, message: `zone ${zone} cannot migrate: it has 1 URI-based WAF override; delete it with DELETE /zones/${zone}/firewall/waf/overrides/{id}, then migrate` },
    ]);
    expect((await check(h.zoneOf('pro'))).body.messages).toEqual([]);
  });
});

describe('GET /zones/{zone_id}/waf_migration/config: the conversion tables', () => {
  test('enterprise: high sensitivity → PL2 and 40, block stays block; the bypass rule becomes a skip rule; overrides dropped', async () => {
    const answer = await config(h.zoneOf('enterprise'));
    const ruleset = EntrypointRulesetSchema.parse(answer.body.result);
    expect(answer.body.result).toEqual({
      name: 'default',
      rules: [
        {
          id: '',
          version: '',
          action: 'skip',
          expression: '(ip.src in {192.0.2.0/24} and http.request.uri.path contains "/api/internal")',
          description: expect.stringMatching(/^Migrated from firewall rule [0-9a-f]{32}$/),
          ref: '',
          enabled: true,
          action_parameters: { ruleset: 'current' },
        },
        convertedExecute('managed'),
        convertedExecute('owasp', owaspOverrides([3, 4], 'block', 40)),
      ],
    });
    // The seeded group and rule overrides of the previous core rule set appear nowhere.
    expect(JSON.stringify(ruleset)).not.toMatch(/981176|960024|2f4dd1c4a0b3c7e9d2f1a6b5c4d3e2f1/);
  });

  test('pro: medium sensitivity → PL1 and 25, Simulate becomes Log', async () => {
    const owasp = (await config(h.zoneOf('pro'))).body.result.rules.find((r: { action_parameters?: { id: string } }) => r.action_parameters?.id === OWASP_RULESET_ID);
    expect(owasp.action_parameters.overrides).toEqual(owaspOverrides([2, 3, 4], 'log', 25));
  });

  test('business: low sensitivity → PL1 and 40, challenge stays challenge', async () => {
    const owasp = (await config(h.zoneOf('business'))).body.result.rules.find((r: { action_parameters?: { id: string } }) => r.action_parameters?.id === OWASP_RULESET_ID);
    expect(owasp.action_parameters.overrides).toEqual(owaspOverrides([2, 3, 4], 'challenge', 40));
  });

  test.each([
    ['high', [3, 4], 40],
    ['medium', [2, 3, 4], 25],
    ['low', [2, 3, 4], 40],
    ['default', [3, 4], 40],
  ] as const)('sensitivity %s converts per the table of docs/service.md#sensitivity-conversion', async (sensitivity, paranoiaOff, threshold) => {
    const zone = await h.emulator.admin.seedZone({ name: `${sensitivity}.example`, plan: 'pro', previousWaf: { sensitivity, actionMode: 'simulate' } });
    const rules = (await config(zone.id)).body.result.rules;
    expect(rules[1].action_parameters.overrides).toEqual(owaspOverrides(paranoiaOff, 'log', threshold));
  });

  test('sensitivity off, or the previous WAF off, leaves the converted rules disabled', async () => {
    const off = await h.emulator.admin.seedZone({ name: 'off.example', plan: 'pro', previousWaf: { sensitivity: 'off' } });
    expect((await config(off.id)).body.result.rules.map((r: { enabled: boolean }) => r.enabled)).toEqual([true, false]);
    const disabled = await h.emulator.admin.seedZone({ name: 'disabled.example', plan: 'pro', previousWaf: { enabled: false } });
    expect((await config(disabled.id)).body.result.rules.map((r: { enabled: boolean }) => r.enabled)).toEqual([false, false]);
  });

  test('a zone without a previous WAF converts to an empty ruleset', async () => {
    expect((await config(h.zoneOf('free'))).body.result).toEqual({ name: 'default', rules: [] });
  });
});

describe('PUT entry point: previous WAF only → new WAF only', () => {
  test('pending saves the configuration, and with no delay the migration completes', async () => {
    const zone = h.zoneOf('pro');
    expect(WafStatusSchema.parse((await status(zone)).body.result)).toEqual({ migration_state: 'start', old_waf_status: 'enabled', new_waf_status: 'disabled' });
    const answer = await migrate(zone, 'pending');
    expect(answer.status).toBe(200);
    const saved = SavedRulesetSchema.parse(answer.body.result);
    expect(saved).toMatchObject({ name: 'default', kind: 'zone', phase: 'http_request_firewall_managed', version: '1' });
    expect(saved.id).toMatch(/^[0-9a-f]{32}$/);
    for (const rule of saved.rules) {
      expect(rule.id).toMatch(/^[0-9a-f]{32}$/);
      expect(rule.version).toBe('1');
      expect(rule.ref).toBe(rule.id);
    }
    const after = WafStatusSchema.parse((await status(zone)).body.result);
    expect(after).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled', source: 'api' });
    expect(after.created).toBe(saved.last_updated);
    expect((await check(zone)).body.result).toEqual({ compatible: false, migration_state: 'complete' });
    expect((await h.call('GET', `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`)).body.result).toEqual(answer.body.result);
  });

  test('the numeric form 1 means pending', async () => {
    const zone = h.zoneOf('free');
    expect((await migrate(zone, '1')).status).toBe(200);
    expect((await status(zone)).body.result.migration_state).toBe('complete');
  });

  test('there is no way back: a second update, validation or pending, is refused, and so is the config read', async () => {
    const zone = h.zoneOf('enterprise');
    const body = (await config(zone)).body.result;
    await entrypoint(zone, '?waf_migration=pending&phase_two=1', body);
    const message = `zone ${zone} has already migrated to the new WAF managed rules (migration_state complete); the migration cannot be repeated or undone`;
    for (const mode of ['validation', 'pending']) {
      const again = await entrypoint(zone, `?waf_migration=${mode}&phase_two=1`, body);
      expect(again.status).toBe(409);
      expect(again.body).toEqual(failure([10027, message]));
    }
    expect((await config(zone)).body).toEqual(failure([10027, message]));
  });

  test('a configured delay keeps the migration pending, then it completes', async () => {
    const zone = await h.emulator.admin.seedZone({ name: 'slow.example', plan: 'business', migrationDelayMs: 400, previousWaf: {} });
    const body = (await config(zone.id)).body.result;
    await entrypoint(zone.id, '?waf_migration=pending&phase_two=1', body);
    expect((await status(zone.id)).body.result).toMatchObject({ migration_state: 'pending', old_waf_status: 'enabled', new_waf_status: 'enabled' });
    expect((await check(zone.id)).body.result).toEqual({ compatible: false, migration_state: 'pending' });
    const refused = await entrypoint(zone.id, '?waf_migration=pending&phase_two=1', body);
    expect(refused.status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await status(zone.id)).body.result).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });
});

describe('PUT entry point: validation mode', () => {
  test('Enterprise: validation runs both WAFs, then pending completes the migration', async () => {
    const zone = h.zoneOf('enterprise');
    const body = (await config(zone)).body.result;
    // The validation request omits id, version and ref.
    const stripped = { name: body.name, rules: body.rules.map(({ id: _i, version: _v, ref: _r, ...rule }: Record<string, unknown>) => rule) };
    const validation = await entrypoint(zone, '?waf_migration=validation&phase_two=1', stripped);
    expect(validation.status).toBe(200);
    expect(validation.body.result.version).toBe('1');
    expect((await status(zone)).body.result).toMatchObject({ migration_state: 'validation', old_waf_status: 'enabled', new_waf_status: 'enabled' });
    expect((await check(zone)).body.result).toEqual({ compatible: true, migration_state: 'validation' });
    // Both WAFs are on: the previous WAF API still answers.
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/packages`)).status).toBe(200);
    const final = await entrypoint(zone, '?waf_migration=2&phase_two=1', stripped);
    expect(final.body.result.version).toBe('2');
    expect(final.body.result.id).toBe(validation.body.result.id);
    const done = await entrypoint(zone, '?waf_migration=pending&phase_two=1', stripped);
    expect(done.body.result.version).toBe('3');
    expect((await status(zone)).body.result).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });

  test.each(['free', 'pro', 'business'])('the %s plan gets a 400 naming the plan, and nothing changes', async (plan) => {
    const zone = h.zoneOf(plan);
    if (plan === 'business') {
      const [override] = (await h.call('GET', `/zones/${zone}/firewall/waf/overrides`)).body.result;
      await h.call('DELETE', `/zones/${zone}/firewall/waf/overrides/${override.id}`);
    }
    const answer = await migrate(zone, 'validation');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure([10033, `waf_migration: validation mode is available to Enterprise zones only; zone ${zone} is on the ${plan} plan: use waf_migration=pending`]),
    );
    expect((await status(zone)).body.result.migration_state).toBe('start');
  });
});

describe('PUT entry point: what blocks a migration', () => {
  test('URI-based overrides: 409 until they are deleted', async () => {
    const zone = h.zoneOf('business');
    const refused = await migrate(zone, 'pending');
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      failure([10031, `zone ${zone} cannot migrate: it has 1 URI-based WAF override; delete it with DELETE /zones/${zone}/firewall/waf/overrides/{id}, then migrate`]),
    );
    expect((await status(zone)).body.result.migration_state).toBe('start');
    const [override] = (await h.call('GET', `/zones/${zone}/firewall/waf/overrides`)).body.result;
    await h.call('DELETE', `/zones/${zone}/firewall/waf/overrides/${override.id}`);
    expect((await migrate(zone, 'pending')).status).toBe(200);
  });

  test('more than 200 firewall rules: support must be contacted', async () => {
    const firewallRules = Array.from({ length: 201 }, (_, i) => ({ expression: `ip.src eq 10.9.${Math.floor(i / 250)}.${i % 250}`, action: 'block' as const }));
    const zone = await h.emulator.admin.seedZone({ name: 'many.example', plan: 'enterprise', ruleQuota: 1000, previousWaf: {}, firewallRules });
    const answer = await migrate(zone.id, 'pending');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure([10032, 'the migration cannot be completed: the zone has 201 firewall rules to migrate, more than 200; contact support to migrate this zone']),
    );
    expect((await status(zone.id)).body.result.migration_state).toBe('start');
    // 200 is still within the limit.
    const atLimit = await h.emulator.admin.seedZone({ name: 'two-hundred.example', plan: 'enterprise', previousWaf: {}, firewallRules: firewallRules.slice(0, 200) });
    expect((await migrate(atLimit.id, 'pending')).status).toBe(200);
  });

  test('an expression over 4096 bytes (counted in UTF-8, not characters) names the rule', async () => {
    // 2049 two-byte characters: 4098 bytes in fewer than 4096 characters.
    const expression = `http.request.uri.path eq "/${'é'.repeat(2049)}"`;
    const bytes = Buffer.byteLength(expression, 'utf8');
    const zone = await h.emulator.admin.seedZone({ name: 'long.example', plan: 'pro', previousWaf: {}, firewallRules: [{ id: 'cc00000000000000000000000000cc01', expression, action: 'block' }] });
    const answer = await migrate(zone.id, 'pending');
    expect(answer.body).toEqual(
      failure([10032, `the migration cannot be completed: firewall rule cc00000000000000000000000000cc01 has an expression of ${bytes} bytes, more than 4096; contact support to migrate this zone`]),
    );
  });

  test('the body is validated: a name, when given, is not empty, and execute rules run a known managed ruleset', async () => {
    const zone = h.zoneOf('pro');
    expect((await entrypoint(zone, '?waf_migration=pending&phase_two=1', { name: '', rules: [] })).body).toEqual(failure([1004, 'name: must not be empty']));
    const unknown = await entrypoint(zone, '?waf_migration=pending&phase_two=1', {
      name: 'default',
      rules: [{ action: 'execute', expression: 'true', action_parameters: { id: 'abc' } }],
    });
    expect(unknown.body).toEqual(
      failure([1004, `rules.0.action_parameters.id: abc is not a managed ruleset; use ${MANAGED_RULESET_ID} (Cloudflare Managed Ruleset) or ${OWASP_RULESET_ID} (Cloudflare OWASP Core Ruleset)`]),
    );
    expect((await status(zone)).body.result.migration_state).toBe('start');
  });

  test('GET entry point before any migration is a 404', async () => {
    const zone = h.zoneOf('pro');
    const answer = await h.call('GET', `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([10013, `zone ${zone} has no http_request_firewall_managed entry point ruleset`]));
  });
});
