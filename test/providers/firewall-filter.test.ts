// FirewallFilter's provider methods against the emulator over loopback HTTP: the filter of the two-call flow (its rules:
// test/providers/firewall-rule.test.ts).
import type { ZoneSeed } from '../../src/emulator';
import { NAME_KEY } from '../../src/providers';
import { diffFirewallFilter, filterBody, firewallFilter } from '../../src/providers/firewall-filter';
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import { checkedBy, expectRefusedAtCheck, useProviderFixture } from './support';

const fx = useProviderFixture();

const freshZone = (seed: Partial<ZoneSeed> = {}) => fx.freshZone(seed);
type Props = Record<string, unknown>;
const EXPRESSION = 'http.request.uri.path contains "/admin"';
const inventory = (zoneId: string) => fx.emulator.admin.inventory(zoneId);
const checkedFilter = (news: Props) => checkedBy(firewallFilter, news);

describe('pure parts', () => {
  const zoneId = 'a'.repeat(32);
  const filterOuts = { zoneId, expression: 'ip.src eq 192.0.2.1', description: '', paused: false, ref: '', filterId: 'b'.repeat(32) };
  test.each([
    ['nothing', {}, [], []],
    ['the expression: in place, the rules keep the filter', { expression: 'ip.src eq 192.0.2.2' }, ['expression'], []],
    ['description', { description: 'x' }, ['description'], []],
    ['paused', { paused: true }, ['paused'], []],
    ['ref', { ref: 'R-1' }, ['ref'], []],
    ['the zone: another filter', { zoneId: 'c'.repeat(32) }, ['zoneId'], ['zoneId']],
    ['an expression not known yet', { expression: PREVIEW_UNKNOWN }, ['expression'], []],
  ])('a filter diff of %s', (_what, change, changed, replaces) => {
    const { filterId: _id, ...inputs } = filterOuts;
    expect(diffFirewallFilter(filterOuts, { ...inputs, ...change })).toMatchObject({ changes: changed.length > 0, changed, replaces });
  });

  test('a state without description or ref holds their defaults; without paused, it does not know it', () => {
    const { filterId: _id, ...inputs } = filterOuts;
    const { description: _d, ref: _r, ...olds } = filterOuts;
    expect(diffFirewallFilter(olds, inputs)).toMatchObject({ changes: false });
    const { paused: _paused, ...unknown } = filterOuts;
    expect(diffFirewallFilter(unknown, inputs)).toMatchObject({ changes: true, changed: ['paused'] });
  });

  test('the body: every filter field as declared', () => {
    expect(filterBody({ zoneId, expression: 'ip.src eq 192.0.2.1', description: 'd', paused: false, ref: 'r' })).toEqual({
      expression: 'ip.src eq 192.0.2.1',
      description: 'd',
      paused: false,
      ref: 'r',
    });
  });
});

describe('check', () => {
  const zoneId = 'a'.repeat(32);
  test.each([
    [{ zoneId, expression: 'http.request.uri.path contains' }, 'expression', /^FirewallFilter\.expression: line 1, column \d+: /],
    [{ zoneId, expression: EXPRESSION, description: 'x'.repeat(501) }, 'description', /^FirewallFilter\.description: must be at most 500 characters$/],
    [{ zoneId, expression: EXPRESSION, ref: 'x'.repeat(51) }, 'ref', /^FirewallFilter\.ref: must be at most 36 characters: zoneguard keeps 14 of the service's 50 for its owner marker \(docs\/ownership\.md\)$/],
  ])('FirewallFilter %j: one failure on %s naming the resource and field, before any request', async (news, property, reason) => {
    await expectRefusedAtCheck(fx, firewallFilter, news, [{ property, reason: expect.stringMatching(reason) }]);
  });

  test('defaults are filled', async () => {
    expect(await checkedFilter({ zoneId, expression: EXPRESSION })).toEqual({ zoneId, expression: EXPRESSION, description: '', paused: false, ref: '' });
  });
});

describe('refusals', () => {
  test('a filter still used by a rule outside the stack: the delete fails naming that rule and what to do; nothing changes', async () => {
    const zoneId = await freshZone();
    const filter = await firewallFilter.create(await checkedFilter({ zoneId, expression: EXPRESSION }));
    const [outside] = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { id: filter.id }, action: 'log' }] });
    const error = (await firewallFilter.delete(filter.id, { ...(filter.outs as Props), [NAME_KEY]: 'admin' }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      `FirewallFilter 'admin' ${filter.id} in zone ${zoneId}: not deleted: firewall rule ${outside?.id}, not managed by this stack, still ` +
        `references it (DELETE /zones/${zoneId}/filters/${filter.id} failed: HTTP 409 Conflict: 10027 filter ${filter.id} is referenced by ` +
        `firewall rule ${outside?.id}; delete or repoint the rule first). Delete those rules or point them at another filter, then run the ` +
        'destroy again; or keep the filter and take the resource out of the stack without a delete: pulumi state delete <urn>, or retainOnDelete: true',
    );
    expect((await inventory(zoneId)).counts).toMatchObject({ filters: 1, firewallRules: 1 });
  });

  test('10102: a filter with this expression exists: the message names it, aliases first, then adoptFilterId', async () => {
    const zoneId = await freshZone();
    const [existing] = await fx.client.filters.create({ zoneId, filters: [{ expression: EXPRESSION }] });
    const inputs = await checkedFilter({ zoneId, expression: EXPRESSION, [NAME_KEY]: 'admin' });
    const error = (await firewallFilter.create(inputs).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      new RegExp(`^FirewallFilter 'admin' in zone ${zoneId}: filter ${existing?.id} of this zone already has this expression \\(POST .* 10102 `),
    );
    expect(error.message).toContain(
      `If this resource is one of this stack renamed, give it its old name as an alias, and the filter stays as it is: ` +
        `{ aliases: [{ name: '<old name>' }] } in its resource options. Only if filter ${existing?.id} was made outside this stack, ` +
        `take it over with adoptFilterId: '${existing?.id}'. Or change the expression`,
    );
    expect((await inventory(zoneId)).counts.filters).toBe(1);
  });

  test('a filter created with its rule refuses an update: the message says it belongs to that rule', async () => {
    const zoneId = await freshZone();
    const [single] = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { expression: EXPRESSION }, action: 'block' }] });
    const filterId = single?.filter.id as string;
    const inputs = await checkedFilter({ zoneId, expression: 'ip.src eq 192.0.2.9', adoptFilterId: filterId });
    await expect(firewallFilter.create(inputs)).rejects.toThrow(
      new RegExp(`^FirewallFilter ${filterId} in zone ${zoneId}: the filter was created together with its rule in one call and belongs to that rule`),
    );
  });
});
