// FirewallRule's provider methods against the emulator over loopback HTTP: the rule of the two-call flow, on the
// filters of FirewallFilter (whose own tests are test/providers/firewall-filter.test.ts).
import type { ZoneSeed } from '../../src/emulator';
import { firewallFilter } from '../../src/providers/firewall-filter';
import { diffFirewallRule, firewallRule, ruleCreateItem } from '../../src/providers/firewall-rule';
import { firewallRuleWithFilter } from '../../src/providers/firewall-rule-with-filter';
import { wafMigration } from '../../src/providers/waf-migration';
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import { checkedBy, expectRefusedAtCheck, useProviderFixture, RULE_FIELD_CHANGES } from './support';

const fx = useProviderFixture();

const freshZone = (seed: Partial<ZoneSeed> = {}) => fx.freshZone(seed);
type Props = Record<string, unknown>;
const EXPRESSION = 'http.request.uri.path contains "/admin"';
const inventory = (zoneId: string) => fx.emulator.admin.inventory(zoneId);
const apiCalls = () => fx.apiCalls();

const checkedFilter = (news: Props) => checkedBy(firewallFilter, news);
const checkedRule = (news: Props) => checkedBy(firewallRule, news);
const without = (outputs: Props, key: string): Props => Object.fromEntries(Object.entries(outputs).filter(([k]) => k !== key));

describe('pure parts', () => {
  const zoneId = 'a'.repeat(32);
  const ruleOuts = { zoneId, filterId: 'b'.repeat(32), action: 'block', paused: false, priority: null, description: '', ref: '', ruleId: 'd'.repeat(32) };
  test.each([
    ['nothing', {}, [], []],
    ['the filter: repointed in place', { filterId: 'e'.repeat(32) }, ['filterId'], []],
    ['action', { action: 'log' }, ['action'], []],
    ['bypass with products', { action: 'bypass', products: ['waf'] }, ['action', 'products'], []],
    ['priority', { priority: 7 }, ['priority'], []],
    ['the zone: another rule', { zoneId: 'c'.repeat(32) }, ['zoneId'], ['zoneId']],
  ])('a rule diff of %s', (_what, change, changed, replaces) => {
    const { ruleId: _id, ...inputs } = ruleOuts;
    expect(diffFirewallRule(ruleOuts, { ...inputs, ...change })).toMatchObject({ changes: changed.length > 0, changed, replaces });
  });

  test('a state without priority, description or ref holds their defaults; without paused, it does not know it', () => {
    const { ruleId: _id, ...inputs } = ruleOuts;
    const { priority: _p, description: _d, ref: _r, ...olds } = ruleOuts;
    expect(diffFirewallRule(olds, inputs)).toMatchObject({ changes: false });
    expect(diffFirewallRule(without(ruleOuts, 'paused'), inputs)).toMatchObject({ changes: true, changed: ['paused'] });
  });

  test('products compare as a set', () => {
    const olds = { ...ruleOuts, action: 'bypass', products: ['waf', 'rateLimit'] };
    expect(diffFirewallRule(olds, { ...olds, products: ['rateLimit', 'waf'] })).toMatchObject({ changes: false });
  });

  test('the body: the filter by id, products only with bypass', () => {
    const rule = { zoneId, filterId: 'b'.repeat(32), action: 'log' as const, paused: true, priority: 3, description: 'd', ref: 'r', products: ['waf' as const] };
    expect(ruleCreateItem(rule)).toEqual({ filter: { id: 'b'.repeat(32) }, action: 'log', paused: true, priority: 3, description: 'd', ref: 'r' });
    expect(ruleCreateItem({ ...rule, action: 'bypass' })).toMatchObject({ action: 'bypass', products: ['waf'] });
  });
});

describe('check', () => {
  const zoneId = 'a'.repeat(32);
  test.each([
    [{ zoneId, filterId: 'filter-1', action: 'block' }, 'filterId', /^FirewallRule\.filterId: must be an identifier/],
    [{ zoneId, filterId: 'b'.repeat(32), action: 'deny' }, 'action', /^FirewallRule\.action: must be one of "block"/],
    [{ zoneId, filterId: 'b'.repeat(32), action: 'block', priority: 2147483648 }, 'priority', /^FirewallRule\.priority: must be at most 2147483647$/],
    [{ zoneId, filterId: 'b'.repeat(32), action: 'bypass' }, 'products', /^FirewallRule\.products: required when action is bypass/],
    [{ zoneId, filterId: 'b'.repeat(32), action: 'block', expression: EXPRESSION }, 'expression', /^FirewallRule: unknown input "expression"/],
  ])('FirewallRule %j: one failure on %s naming the resource and field, before any request', async (news, property, reason) => {
    await expectRefusedAtCheck(fx, firewallRule, news, [{ property, reason: expect.stringMatching(reason) }]);
  });

  test('defaults are filled, and a filterId not known yet (the filter is created in this run) passes', async () => {
    expect(await checkedRule({ zoneId, filterId: PREVIEW_UNKNOWN, action: 'log' })).toEqual({
      zoneId,
      filterId: PREVIEW_UNKNOWN,
      action: 'log',
      paused: false,
      priority: null,
      description: '',
      ref: '',
    });
  });
});

describe('lifecycle of one filter shared by two rules', () => {
  test('one call per operation; a new expression in place keeps every id; drift; rules deleted leave the filter, then it goes', async () => {
    const zoneId = await freshZone();
    await fx.requestsSince();
    const filterInputs = await checkedFilter({ zoneId, expression: EXPRESSION, description: 'admin paths' });
    const filter = await firewallFilter.create(filterInputs);
    expect(await apiCalls()).toEqual(['POST /filters']);
    expect(filter.outs).toEqual({ ...filterInputs, filterId: filter.id });

    const ruleInputs = await checkedRule({ zoneId, filterId: filter.id, action: 'block', description: 'outside' });
    const first = await firewallRule.create(ruleInputs);
    const second = await firewallRule.create(await checkedRule({ zoneId, filterId: filter.id, action: 'log', priority: 9 }));
    expect(await apiCalls()).toEqual(['POST /firewall/rules', 'POST /firewall/rules']);
    expect(first.outs).toEqual({ ...ruleInputs, ruleId: first.id });
    expect((await inventory(zoneId)).counts).toMatchObject({ filters: 1, firewallRules: 2 });

    // The expression changes in place: one PUT of the filter, both rules keep their ids and now match the new one.
    const next = { ...filterInputs, expression: 'http.request.uri.path contains "/wp-admin"' };
    expect(await firewallFilter.diff(filter.id, filter.outs as Props, next)).toMatchObject({ changes: true, changed: ['expression'], replaces: [] });
    const updated = await firewallFilter.update(filter.id, filter.outs as Props, next);
    expect(await apiCalls()).toEqual([`PUT /filters/${filter.id}`]);
    expect(updated.outs).toEqual({ ...next, filterId: filter.id });
    const rules = (await inventory(zoneId)).firewallRules;
    expect(rules.map((r) => [r.id, r.filter.id, r.filter.expression]).sort()).toEqual(
      [
        [first.id, filter.id, next.expression],
        [second.id, filter.id, next.expression],
      ].sort(),
    );

    // Each rule field in place, one PUT each.
    let state = first.outs as Props;
    for (const [field, value] of RULE_FIELD_CHANGES) {
      const news = await checkedRule({ ...without(state, 'ruleId'), [field]: value });
      expect(await firewallRule.diff(first.id, state, news)).toMatchObject({ changes: true, changed: [field], replaces: [] });
      state = (await firewallRule.update(first.id, state, news)).outs as Props;
      expect(state).toMatchObject({ [field]: value, ruleId: first.id });
    }
    expect(await apiCalls()).toEqual(Array(5).fill(`PUT /firewall/rules/${first.id}`));

    // Drift on both: found by read, shown by diff; a refresh with nothing changed then previews clean.
    await fx.client.filters.update({ zoneId, filterId: filter.id, expression: next.expression, paused: true, description: 'by hand' });
    const readFilter = await firewallFilter.read(filter.id, updated.outs as Props);
    expect(readFilter.props).toMatchObject({ paused: true, description: 'by hand', filterId: filter.id });
    expect(await firewallFilter.diff(filter.id, readFilter.props as Props, next)).toMatchObject({ changed: ['description', 'paused'] });
    expect(await firewallFilter.diff(filter.id, readFilter.props as Props, readFilter.inputs as Props)).toMatchObject({ changes: false });
    await fx.client.firewallRules.update({ zoneId, ruleId: first.id, filter: { id: filter.id }, action: 'log', paused: true, priority: 42 });
    const readRule = await firewallRule.read(first.id, state);
    expect(await firewallRule.diff(first.id, readRule.props as Props, await checkedRule(without(state, 'ruleId')))).toMatchObject({
      changed: ['action'],
    });

    // Delete in the engine's order: the rules (the filter stays, it is its own resource's), then the filter.
    await fx.requestsSince();
    await firewallRule.delete(first.id, state);
    await firewallRule.delete(second.id, second.outs as Props);
    expect((await inventory(zoneId)).counts).toMatchObject({ filters: 1, firewallRules: 0 });
    await firewallFilter.delete(filter.id, readFilter.props as Props);
    expect(await apiCalls()).toEqual([`DELETE /firewall/rules/${first.id}`, `DELETE /firewall/rules/${second.id}`, `DELETE /filters/${filter.id}`]);
    expect((await fx.emulator.admin.requests()).at(-2)?.query ?? {}).not.toHaveProperty('delete_filter_if_unused');
    expect((await inventory(zoneId)).counts).toMatchObject({ filters: 0, firewallRules: 0 });

    // Already gone: a delete succeeds, a read takes it out of the state.
    await expect(firewallFilter.delete(filter.id, readFilter.props as Props)).resolves.toBeUndefined();
    await expect(firewallRule.delete(first.id, state)).resolves.toBeUndefined();
    expect(await firewallFilter.read(filter.id, readFilter.props as Props)).toEqual({ id: '' });
    expect(await firewallRule.read(first.id, state)).toEqual({ id: '' });
  });

  test('a rule repointed at another filter is one PUT, and keeps its id', async () => {
    const zoneId = await freshZone();
    const a = await firewallFilter.create(await checkedFilter({ zoneId, expression: 'ip.src eq 192.0.2.1' }));
    const b = await firewallFilter.create(await checkedFilter({ zoneId, expression: 'ip.src eq 192.0.2.2' }));
    const rule = await firewallRule.create(await checkedRule({ zoneId, filterId: a.id, action: 'block' }));
    const news = await checkedRule({ zoneId, filterId: b.id, action: 'block' });
    expect(await firewallRule.diff(rule.id, rule.outs as Props, news)).toMatchObject({ changed: ['filterId'], replaces: [] });
    await fx.requestsSince();
    const { outs } = await firewallRule.update(rule.id, rule.outs as Props, news);
    expect(await apiCalls()).toEqual([`PUT /firewall/rules/${rule.id}`]);
    expect(outs).toMatchObject({ filterId: b.id, ruleId: rule.id });
  });
});
describe('refusals', () => {
  test('a FirewallRule on the filter of a rule made in one call is refused by the service (10027), with what to do instead', async () => {
    const zoneId = await freshZone();
    const [single] = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { expression: EXPRESSION }, action: 'block' }] });
    const filterId = single?.filter.id as string;
    const error = (await firewallRule.create(await checkedRule({ zoneId, filterId, action: 'log' })).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      new RegExp(`^FirewallRule in zone ${zoneId}: filter ${filterId} was created together with another rule in one call and belongs to that rule \\(.*10027 `),
    );
    expect(error.message).toContain('declare a FirewallFilter with the expression and set filterId: filter.id');
    expect((await inventory(zoneId)).counts).toMatchObject({ filters: 1, firewallRules: 1 });
  });

  test('the rule quota: no rule is created, the filter stays with its resource, and the next try after a free slot works', async () => {
    const zoneId = await freshZone({ ruleQuota: 1, firewallRules: [{ expression: 'ip.src eq 198.51.100.7', action: 'block' }] });
    const filter = await firewallFilter.create(await checkedFilter({ zoneId, expression: EXPRESSION }));
    const inputs = await checkedRule({ zoneId, filterId: filter.id, action: 'block' });
    const error = (await firewallRule.create(inputs).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(new RegExp(`^FirewallRule in zone ${zoneId}: the zone's firewall rule quota is exceeded, no rule was created \\(.*10030 `));
    expect(error.message).toContain(`Filter ${filter.id} is unchanged and stays with its own resource`);
    const held = await inventory(zoneId);
    expect(held.counts).toMatchObject({ filters: 2, firewallRules: 1 });
    // No orphan: the only filter without a rule is the one the FirewallFilter resource holds.
    const used = new Set(held.firewallRules.map((r) => r.filter.id));
    expect(held.filters.filter((f) => !used.has(f.id)).map((f) => f.id)).toEqual([filter.id]);

    await fx.client.firewallRules.delete({ zoneId, ruleId: held.firewallRules[0]?.id as string, deleteFilterIfUnused: true });
    const rule = await firewallRule.create(inputs);
    expect((await inventory(zoneId)).firewallRules.map((r) => [r.id, r.filter.id])).toEqual([[rule.id, filter.id]]);
  });
});

describe('adoption', () => {
  test('a filter and a rule taken over by id, brought to the declared fields; as declared already: no write', async () => {
    const zoneId = await freshZone();
    const [filter] = await fx.client.filters.create({ zoneId, filters: [{ expression: EXPRESSION, description: 'by hand' }] });
    const filterId = filter?.id as string;
    const [rule] = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { id: filterId }, action: 'log' }] });
    const ruleId = rule?.id as string;

    await fx.requestsSince();
    const sameFilter = await firewallFilter.create(await checkedFilter({ zoneId, expression: EXPRESSION, description: 'by hand', adoptFilterId: filterId }));
    expect(await apiCalls()).toEqual([`GET /filters/${filterId}`]);
    expect(sameFilter.id).toBe(filterId);

    const adopted = await firewallRule.create(await checkedRule({ zoneId, filterId, action: 'block', adoptRuleId: ruleId }));
    expect(await apiCalls()).toEqual([`GET /firewall/rules/${ruleId}`, `PUT /firewall/rules/${ruleId}`]);
    expect(adopted).toMatchObject({ id: ruleId, outs: { action: 'block', adoptRuleId: ruleId, ruleId } });
    expect((await inventory(zoneId)).counts).toMatchObject({ filters: 1, firewallRules: 1 });
  });

  test('ids the zone does not have say what to do', async () => {
    const zoneId = await freshZone();
    const missing = 'f'.repeat(32);
    await expect(firewallFilter.create(await checkedFilter({ zoneId, expression: EXPRESSION, adoptFilterId: missing }))).rejects.toThrow(
      `adoptFilterId ${missing} names no filter of this zone; check the id (zoneguard export lists them), or remove adoptFilterId to create a new filter`,
    );
    await expect(firewallRule.create(await checkedRule({ zoneId, filterId: missing, action: 'log', adoptRuleId: missing }))).rejects.toThrow(
      `adoptRuleId ${missing} names no firewall rule of this zone; check the id (zoneguard export lists them), or remove adoptRuleId to create a new rule`,
    );
  });
});
describe('the WAF migration', () => {
  test('counts and converts a bypass rule made in two calls exactly as one made in a single call', async () => {
    const progress = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const zoneId = await freshZone({
        previousWaf: { enabled: true, sensitivity: 'medium', actionMode: 'simulate' },
        firewallRules: [],
      });
      const office = 'ip.src in {192.0.2.0/24}';
      const scanner = 'http.user_agent contains "zoneguard-scanner"';
      const filter = await firewallFilter.create(await checkedFilter({ zoneId, expression: office }));
      const twoCall = await firewallRule.create(await checkedRule({ zoneId, filterId: filter.id, action: 'bypass', products: ['waf'] }));
      const singleCall = await firewallRuleWithFilter.create(
        (await firewallRuleWithFilter.check({}, { zoneId, expression: scanner, action: 'bypass', products: ['waf'] })).inputs as Props,
      );

      const checkedMigration = await wafMigration.check({}, { zoneId, mode: 'direct', wait: { timeoutSeconds: 5, pollIntervalSeconds: 0.02 } });
      expect(checkedMigration.failures).toEqual([]);
      const { outs } = await wafMigration.create(checkedMigration.inputs as Props);
      const { conversion, submittedRuleset } = outs as {
        conversion: { bypassRuleIds: string[]; changed: string[] };
        submittedRuleset: { rules: Array<{ action: string; expression: string }> };
      };
      expect(conversion.bypassRuleIds).toEqual([twoCall.id, singleCall.id].sort());
      for (const id of [twoCall.id, singleCall.id]) {
        expect(conversion.changed).toContain(`firewall rule ${id} bypasses the WAF managed rules: recreated as a skip rule of the new configuration`);
      }
      const skips = submittedRuleset.rules.filter((rule) => rule.action === 'skip').map((rule) => rule.expression);
      expect(skips.sort()).toEqual([office, scanner].sort());
    } finally {
      progress.mockRestore();
    }
  });
});
