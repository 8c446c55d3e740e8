// FirewallRuleWithFilter's provider methods against the emulator over loopback HTTP.
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import { RETIRED_API_HINT, firewallRuleWithFilter as provider } from '../../src/providers/firewall-rule-with-filter';
import { RetiredApiError } from '../../src/client';
import type { ZoneSeed } from '../../src/emulator';
import { checkedBy, useProviderFixture, RULE_FIELD_CHANGES, expectRefusedAtCheck } from './support';

const fx = useProviderFixture();

const freshZone = (seed: Partial<ZoneSeed> = {}) => fx.freshZone(seed);
type Props = Record<string, unknown>;
const declared = (zoneId: string, overrides: Props = {}): Props => ({
  zoneId,
  expression: 'http.request.uri.path contains "/admin"',
  action: 'block',
  description: 'no admin from outside',
  ...overrides,
});

const checked = (news: Props, olds: Props = {}) => checkedBy(provider, news, olds);

const inventory = (zoneId: string) => fx.emulator.admin.inventory(zoneId);
const apiCalls = () => fx.apiCalls();

describe('check', () => {
  test('fills the defaults and lets unknown values through during preview', async () => {
    const zoneId = 'a'.repeat(32);
    expect(await checked({ zoneId, expression: PREVIEW_UNKNOWN, action: 'log' })).toEqual({
      zoneId,
      expression: PREVIEW_UNKNOWN,
      action: 'log',
      paused: false,
      priority: null,
      description: '',
      ref: '',
    });
    expect(await checked({ zoneId, expression: 'ip.src eq 192.0.2.1', action: PREVIEW_UNKNOWN, products: ['waf'] })).toMatchObject({ action: PREVIEW_UNKNOWN, products: ['waf'] });
  });

  const zoneId = 'a'.repeat(32);
  test.each([
    ['zoneId', { zoneId: 'zone-1' }, 'FirewallRuleWithFilter.zoneId: must be a zone id: 32 lowercase hexadecimal characters'],
    ['expression', { expression: '' }, 'FirewallRuleWithFilter.expression: must not be empty'],
    ['expression', { expression: 'x'.repeat(16385) }, 'FirewallRuleWithFilter.expression: must be at most 16384 characters'],
    ['action', { action: 'deny' }, 'FirewallRuleWithFilter.action: must be one of "block", "challenge", "js_challenge", "managed_challenge", "allow", "log", "bypass"'],
    ['paused', { paused: 'no' }, 'FirewallRuleWithFilter.paused: must be true or false'],
    ['priority', { priority: 1.5 }, 'FirewallRuleWithFilter.priority: must be a whole number'],
    ['priority', { priority: -1 }, 'FirewallRuleWithFilter.priority: must be at least 0'],
    ['description', { description: 'x'.repeat(501) }, 'FirewallRuleWithFilter.description: must be at most 500 characters'],
    ['ref', { ref: 'x'.repeat(51) }, "FirewallRuleWithFilter.ref: must be at most 36 characters: zoneguard keeps 14 of the service's 50 for its owner marker (docs/ownership.md)"],
    ['products.0', { action: 'bypass', products: ['everything'] }, 'FirewallRuleWithFilter.products.0: must be one of "zoneLockdown", "uaBlock", "bic", "hot", "securityLevel", "rateLimit", "waf"'],
    [
      'products',
      { action: 'bypass' },
      'FirewallRuleWithFilter.products: required when action is bypass: list what the rule bypasses, for example ["waf"] (one of zoneLockdown, uaBlock, bic, hot, securityLevel, rateLimit, waf)',
    ],
    ['products', { products: ['waf'] }, "FirewallRuleWithFilter.products: allowed only when action is bypass (action is block); remove products or set action: 'bypass'"],
    ['adoptRuleId', { adoptRuleId: 'rule-1' }, 'FirewallRuleWithFilter.adoptRuleId: must be an identifier: 32 lowercase hexadecimal characters'],
    ['colour', { colour: 'red' }, 'FirewallRuleWithFilter: unknown input "colour"; remove it or check its spelling'],
  ])('a bad %s fails with its reason and sends nothing', async (property, bad, reason) => {
    await expectRefusedAtCheck(fx, provider, declared(zoneId, bad), [{ property, reason }]);
  });

  test('an expression the rules language refuses fails with its line and column, before any request', async () => {
    await fx.requestsSince();
    const result = await provider.check({}, declared(zoneId, { expression: 'http.request.uri.path contains' }));
    expect(result.failures).toEqual([{ property: 'expression', reason: expect.stringMatching(/^FirewallRuleWithFilter\.expression: line 1, column \d+: /) }]);
    expect(await fx.requestsSince()).toEqual([]);
  });

  test('several bad fields give one failure each', async () => {
    const result = await provider.check({}, declared(zoneId, { zoneId: 'nope', paused: 1, products: ['waf'] }));
    expect(result.failures?.map((f) => f.property)).toEqual(['zoneId', 'paused', 'products']);
  });
});

describe('lifecycle', () => {
  test('create with the single call, no-op diff, each field in place, drift, delete with the filter', async () => {
    const zoneId = await freshZone();
    await fx.requestsSince();
    const inputs = await checked(declared(zoneId));
    const { id, outs } = await provider.create(inputs);
    expect(await apiCalls()).toEqual(['POST /firewall/rules']);
    const filterId = (outs as Props).filterId as string;
    expect(outs).toEqual({ ...inputs, ruleId: id, filterId });
    const held = await inventory(zoneId);
    expect(held.firewallRules).toEqual([
      { id, paused: false, action: 'block', priority: null, description: 'no admin from outside', ref: '', filter: { id: filterId, expression: inputs.expression, paused: false } },
    ]);

    expect(await provider.diff(id, outs as Props, inputs)).toMatchObject({ changes: false, replaces: [] });

    // Each in-place field: a diff naming only it, then the update, with the filter kept by id.
    let state = outs as Props;
    for (const [field, value] of RULE_FIELD_CHANGES) {
      const next = await checked({ ...declared(zoneId), ...inputsOf(state), [field]: value });
      const diff = await provider.diff(id, state, next);
      expect(diff).toMatchObject({ changes: true, changed: [field], replaces: [] });
      const { outs: updated } = await provider.update(id, state, next);
      expect(updated).toEqual({ ...next, ruleId: id, filterId });
      state = updated as Props;
    }
    expect(await apiCalls()).toEqual(Array(5).fill(`PUT /firewall/rules/${id}`));

    // bypass with products, and back.
    const bypass = await checked({ ...inputsOf(state), action: 'bypass', products: ['waf', 'rateLimit'] });
    expect(await provider.diff(id, state, bypass)).toMatchObject({ changed: ['action', 'products'] });
    state = (await provider.update(id, state, bypass)).outs as Props;
    expect(state).toMatchObject({ action: 'bypass', products: ['waf', 'rateLimit'] });
    const block = await checked({ ...inputsOf(state), action: 'block', products: undefined });
    state = (await provider.update(id, state, block)).outs as Props;
    expect(state).not.toHaveProperty('products');
    expect(await provider.diff(id, state, block)).toMatchObject({ changes: false });

    // Drift: changed out of band, found by read, shown by the next diff, undone by update.
    await fx.client.firewallRules.update({ zoneId, ruleId: id, filter: { id: filterId }, action: 'log', paused: false, description: 'by hand' });
    const read = await provider.read(id, state);
    expect(read.id).toBe(id);
    expect(read.props).toMatchObject({ action: 'log', paused: false, description: 'by hand', ruleId: id, filterId });
    expect(read.inputs).toEqual({ ...inputsOf(read.props as Props) });
    const drift = await provider.diff(id, read.props as Props, block);
    expect(drift).toMatchObject({ changes: true, changed: ['action', 'paused', 'description'], replaces: [] });
    state = (await provider.update(id, read.props as Props, block)).outs as Props;
    expect(state).toMatchObject({ action: 'block', paused: true, description: 'changed' });
    // After a refresh with nothing changed the preview is clean.
    const again = await provider.read(id, state);
    expect(await provider.diff(id, again.props as Props, { ...(again.inputs as Props) })).toMatchObject({ changes: false });

    await fx.requestsSince();
    await provider.delete(id, state);
    expect(await apiCalls()).toEqual([`DELETE /firewall/rules/${id}`]);
    const requests = await fx.emulator.admin.requests();
    expect(requests.at(-1)?.query).toMatchObject({ delete_filter_if_unused: 'true' });
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 0, filters: 0 });
    // Already gone: still a success, and read takes it out of the state.
    await expect(provider.delete(id, state)).resolves.toBeUndefined();
    expect(await provider.read(id, state)).toEqual({ id: '' });
  });

  test('a new expression replaces: the new rule exists before the old one is deleted', async () => {
    const zoneId = await freshZone();
    const first = await checked(declared(zoneId));
    const old = await provider.create(first);
    const next = await checked(declared(zoneId, { expression: 'http.request.uri.path contains "/wp-admin"' }));
    const diff = await provider.diff(old.id, old.outs as Props, next);
    expect(diff).toMatchObject({ changes: true, replaces: ['expression'] });
    expect(diff.deleteBeforeReplace).toBeUndefined();

    // What the engine does for create-before-delete: create the replacement, then delete the old one.
    await fx.requestsSince();
    const created = await provider.create(next);
    const during = await inventory(zoneId);
    expect(during.firewallRules.map((r) => r.id).sort()).toEqual([old.id, created.id].sort());
    await provider.delete(old.id, old.outs as Props);
    const log = await fx.requestsSince();
    expect(log.map((r) => r.method)).toEqual(['POST', 'DELETE']);
    const after = await inventory(zoneId);
    expect(after.firewallRules.map((r) => [r.id, r.filter.expression])).toEqual([[created.id, next.expression]]);
    expect(after.counts.filters).toBe(1);
  });

  test('another zone replaces the rule', async () => {
    const zoneId = await freshZone();
    const inputs = await checked(declared(zoneId));
    const { id, outs } = await provider.create(inputs);
    const diff = await provider.diff(id, outs as Props, await checked(declared(await freshZone())));
    expect(diff).toMatchObject({ changes: true, replaces: ['zoneId'] });
  });
});

describe('filters left behind', () => {
  test('quota exceeded: the error names the kept filter; once a slot is free the rule is created on it, no orphan', async () => {
    const zoneId = await freshZone({
      ruleQuota: 1,
      firewallRules: [{ expression: 'ip.src eq 198.51.100.7', action: 'block', description: 'fills the quota' }],
    });
    const inputs = await checked(declared(zoneId));
    const failure = await provider.create(inputs).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const kept = (await inventory(zoneId)).filters.find((f) => f.expression === inputs.expression);
    expect(kept).toBeDefined();
    const keptId = kept?.id as string;
    expect((failure as Error).message).toMatch(
      new RegExp(`^FirewallRuleWithFilter in zone ${zoneId}: the zone's firewall rule quota is exceeded, no rule was created \\(.*10030 .*\\)\\. The service kept the rule's filter ${keptId} without a rule\\.`),
    );
    expect((failure as Error).message).toContain(`run pulumi up again: the rule will be created on filter ${keptId}`);
    expect((failure as Error).message).toContain(`DELETE /zones/${zoneId}/filters/${keptId}`);

    // A second attempt while the quota is still full fails the same way, naming the same filter, creating nothing.
    await expect(provider.create(inputs)).rejects.toThrow(`The service kept the rule's filter ${keptId} without a rule`);
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 1, filters: 2 });

    // Free the slot; the next attempt gets 10102 for the kept filter, and creates the rule on it by id.
    const [blocker] = (await inventory(zoneId)).firewallRules;
    await fx.client.firewallRules.delete({ zoneId, ruleId: blocker?.id as string, deleteFilterIfUnused: true });
    await fx.requestsSince();
    const { id, outs } = await provider.create(inputs);
    expect(await apiCalls()).toEqual(['POST /firewall/rules', 'GET /filters', 'GET /firewall/rules', 'POST /firewall/rules']);
    expect(outs).toEqual({ ...inputs, ruleId: id, filterId: keptId });
    const after = await inventory(zoneId);
    expect(after.counts).toMatchObject({ firewallRules: 1, filters: 1 });
    expect(after.firewallRules[0]?.filter.id).toBe(keptId);

    // Deleting it removes the filter too: nothing left behind.
    await provider.delete(id, outs as Props);
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 0, filters: 0 });
  });

  test('a rule deleted out of band leaves the state, and its orphan filter is reused by the next create', async () => {
    const zoneId = await freshZone();
    const inputs = await checked(declared(zoneId));
    const { id, outs } = await provider.create(inputs);
    const filterId = (outs as Props).filterId;
    // Deleted by hand without its filter: the situation that makes other tools fail with 10102 forever.
    await fx.client.firewallRules.delete({ zoneId, ruleId: id });
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 0, filters: 1 });

    expect(await provider.read(id, outs as Props)).toEqual({ id: '' });
    const again = await provider.create(inputs);
    expect(again.id).not.toBe(id);
    expect(again.outs).toMatchObject({ filterId });
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 1, filters: 1 });
  });

  test('a destroy of a rule already gone removes the filter it left', async () => {
    const zoneId = await freshZone();
    const { id, outs } = await provider.create(await checked(declared(zoneId)));
    await fx.client.firewallRules.delete({ zoneId, ruleId: id });
    await provider.delete(id, outs as Props);
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 0, filters: 0 });
  });

  test('an expression another rule already uses is not taken over silently', async () => {
    const zoneId = await freshZone({ firewallRules: [{ id: 'e'.repeat(32), expression: 'ip.src eq 198.51.100.9', action: 'log' }] });
    const inputs = await checked(declared(zoneId, { expression: 'ip.src eq 198.51.100.9' }));
    await expect(provider.create(inputs)).rejects.toThrow(
      `FirewallRuleWithFilter in zone ${zoneId}: firewall rule ${'e'.repeat(32)} of this zone already matches this expression ` +
        `(POST /zones/${zoneId}/firewall/rules failed: HTTP 400 Bad Request: 10102 `,
    );
    await expect(provider.create(inputs)).rejects.toThrow(
      `. If this resource is one of this stack renamed, give it its old name as an alias, and the rule stays as it is: ` +
        `{ aliases: [{ name: '<old name>' }] } in its resource options. Only if no resource of this stack holds rule ${'e'.repeat(32)} ` +
        `(made outside the stack, or by an interrupted run: zoneguard orphans lists those), take it over with ` +
        `adoptRuleId: '${'e'.repeat(32)}'. Or change the expression`,
    );
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 1, filters: 1 });
  });
});

describe('adoption', () => {
  const existingId = 'f'.repeat(32);
  const seeded = { id: existingId, expression: 'ip.src eq 203.0.113.5', action: 'log' as const, description: 'made by hand' };

  test('takes over a rule by id and brings it to the declared fields, creating nothing', async () => {
    const zoneId = await freshZone({ firewallRules: [seeded] });
    const inputs = await checked(declared(zoneId, { expression: seeded.expression, action: 'block', priority: 5, adoptRuleId: existingId }));
    await fx.requestsSince();
    const { id, outs } = await provider.create(inputs);
    expect(await apiCalls()).toEqual([`GET /firewall/rules/${existingId}`, `PUT /firewall/rules/${existingId}`]);
    expect(id).toBe(existingId);
    expect(outs).toMatchObject({ action: 'block', priority: 5, description: 'no admin from outside', adoptRuleId: existingId, ruleId: existingId });
    expect((await inventory(zoneId)).counts).toMatchObject({ firewallRules: 1, filters: 1 });
    expect(await provider.diff(id, outs as Props, inputs)).toMatchObject({ changes: false });
  });

  test('a rule already as declared is adopted without a write', async () => {
    const zoneId = await freshZone({ firewallRules: [seeded] });
    const inputs = await checked({ zoneId, expression: seeded.expression, action: 'log', description: 'made by hand', adoptRuleId: existingId });
    await fx.requestsSince();
    await provider.create(inputs);
    expect(await apiCalls()).toEqual([`GET /firewall/rules/${existingId}`]);
  });

  test('another expression fails clearly: a single-call filter cannot be changed', async () => {
    const zoneId = await freshZone({ firewallRules: [seeded] });
    const inputs = await checked(declared(zoneId, { adoptRuleId: existingId }));
    await expect(provider.create(inputs)).rejects.toThrow(
      `FirewallRuleWithFilter in zone ${zoneId}: rule ${existingId} matches "ip.src eq 203.0.113.5", not the declared ` +
        `expression "http.request.uri.path contains \\"/admin\\"", and the filter of a rule created in a single call cannot be ` +
        `changed. Declare expression: "ip.src eq 203.0.113.5" to adopt the rule as it is, or remove adoptRuleId to create a new rule ` +
        `(and delete rule ${existingId} yourself)`,
    );
    expect((await inventory(zoneId)).firewallRules[0]).toMatchObject({ action: 'log', description: 'made by hand' });
  });

  test('an id the zone does not have says what to do', async () => {
    const zoneId = await freshZone();
    const inputs = await checked(declared(zoneId, { adoptRuleId: existingId }));
    await expect(provider.create(inputs)).rejects.toThrow(
      `FirewallRuleWithFilter in zone ${zoneId}: adoptRuleId ${existingId} names no firewall rule of this zone; ` +
        'check the id, or remove adoptRuleId to create a new rule',
    );
  });
});

describe('the retired legacy firewall API', () => {
  test('create in maintenance mode and refresh once retired say what it means and what to do', async () => {
    const zoneId = await freshZone({ legacyFirewall: 'maintenance' });
    const error = (await provider.create(await checked(declared(zoneId))).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      `FirewallRuleWithFilter in zone ${zoneId}: creating the rule with its filter: POST /zones/${zoneId}/firewall/rules failed: ` +
        'HTTP 400 Bad Request: 10020 firewallrules.api.maintenance_mode: the firewall rules and filters API is in maintenance mode for this zone ' +
        `and no longer accepts modifications; use custom rules of the rulesets API (phase http_request_firewall_custom)${RETIRED_API_HINT}`,
    );
    expect(error.cause).toBeInstanceOf(RetiredApiError);
    expect((await inventory(zoneId)).counts.firewallRules).toBe(0);

    const retired = await freshZone({ legacyFirewall: 'retired' });
    const read = provider.read('ffffffffffffffffffffffffffffffff', { ...declared(retired), ruleId: 'ffffffffffffffffffffffffffffffff', filterId: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' });
    await expect(read).rejects.toThrow(`reading the rule: GET /zones/${retired}/firewall/rules/ffffffffffffffffffffffffffffffff failed: HTTP 410 Gone: 10020 `);
  });
});

/** The inputs part of outputs (what a program would declare to keep them). */
function inputsOf(outputs: Props): Props {
  const { ruleId: _ruleId, filterId: _filterId, ...inputs } = outputs;
  return inputs;
}
