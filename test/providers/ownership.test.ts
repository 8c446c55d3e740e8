// The ownership guard (src/providers/kit/ownership.ts): within one provider process, an object one resource created,
// adopted or holds is never taken over or deleted by another. Pure decisions as tables, then the guarded providers
// against the emulator over loopback HTTP, with the logical names the resource classes pass in.
import { implementation } from '../../src/providers';
import { MARKER_KEY, NAME_KEY, OWNER_ID_KEY, OWNER_KEY } from '../../src/providers/kit/closure';
import { ownerMarker } from '../../src/kinds/marker';
import { adoptionRefusal, deleteSkip, ownerOf, resetOwnership, type Holder, type OwnershipSpec } from '../../src/providers/kit/ownership';
import { useCaughtStderr, useProviderFixture } from './support';

const spec: OwnershipSpec = { object: 'cspPolicy', noun: 'policy', adoptedId: () => undefined, adoptInput: 'adoptPolicyId' };
const ID = 'a'.repeat(32);

describe('adoptionRefusal', () => {
  test.each<[string, string | undefined, Holder | undefined, string | undefined]>([
    ['nobody holds it', 'b', undefined, undefined],
    ['the same resource holds it', 'b', { kind: 'CspPolicy', name: 'b', how: 'held' }, undefined],
    [
      'another resource holds it',
      'b',
      { kind: 'CspPolicy', name: 'a', how: 'held' },
      `CspPolicy 'b': refused before any change: CspPolicy 'a' of this deployment holds policy ${ID} (in its state); two resources must not hold one object, ` +
        `or the delete of one removes what the other holds. If CspPolicy 'b' is CspPolicy 'a' renamed, declare it with the resource option ` +
        `aliases: [{ name: 'a' }] and without adoptPolicyId. Otherwise remove adoptPolicyId to create an object of its own.`,
    ],
    [
      'another resource created it in this run',
      'b',
      { kind: 'CspPolicy', name: 'a', how: 'created' },
      `CspPolicy 'b': refused before any change: CspPolicy 'a' of this deployment holds policy ${ID} (created in this run); two resources ` +
        `must not hold one object, or the delete of one removes what the other holds. If CspPolicy 'b' is CspPolicy 'a' renamed, declare it ` +
        `with the resource option aliases: [{ name: 'a' }] and without adoptPolicyId. Otherwise remove adoptPolicyId to create an object of its own.`,
    ],
    [
      'a resource of state without names holds it',
      'b',
      { kind: 'CspPolicy', name: undefined, how: 'held' },
      `CspPolicy 'b': refused before any change: a CspPolicy whose name is not recorded of this deployment holds policy ${ID} (in its state); two resources ` +
        `must not hold one object, or the delete of one removes what the other holds. Otherwise remove adoptPolicyId to create an object of its own.`,
    ],
  ])('%s', (_case, name, holder, expected) => {
    expect(adoptionRefusal({ kind: 'CspPolicy', name }, ID, holder, spec)).toBe(expected);
  });
});

describe('deleteSkip', () => {
  test.each<[string, string | undefined, Holder | undefined, string | undefined]>([
    ['nobody else holds it', 'a', undefined, undefined],
    ['the resource itself holds it (a replace, a plain delete)', 'a', { kind: 'CspPolicy', name: 'a', how: 'held' }, undefined],
    [
      'another resource adopted it in this run (a rename without aliases)',
      'a',
      { kind: 'CspPolicy', name: 'b', how: 'adopted' },
      `zoneguard: CspPolicy 'a': not deleting policy ${ID}: CspPolicy 'b' holds it (adopted in this run); CspPolicy 'a' leaves the state and the ` +
        'object stays. Next time use the resource option aliases for a rename',
    ],
    [
      'the resource itself took it back in this run (its state kept it to delete: an earlier replacement\'s delete did not run)',
      'a',
      { kind: 'CspPolicy', name: 'a', how: 'taken' },
      `zoneguard: CspPolicy 'a': not deleting policy ${ID}: the state kept it to delete (an earlier run's replacement of it failed or was interrupted ` +
        "before its delete), and this run's create took it back as the declared one (docs/ownership.md#leftovers); the entry leaves the state and the object stays",
    ],
    ['the resource itself created it in this run', 'a', { kind: 'CspPolicy', name: 'a', how: 'created' }, undefined],
    [
      'state written before names were kept, another resource holds it',
      undefined,
      { kind: 'CspPolicy', name: 'b', how: 'held' },
      `zoneguard: a CspPolicy whose name is not recorded: not deleting policy ${ID}: CspPolicy 'b' holds it (in its state); a CspPolicy whose name is not ` +
        'recorded leaves the state and the object stays. Next time use the resource option aliases for a rename',
    ],
  ])('%s', (_case, name, holder, expected) => {
    expect(deleteSkip({ kind: 'CspPolicy', name }, ID, holder, spec)).toBe(expected);
  });
});

describe('the guarded providers against the emulator', () => {
  const fx = useProviderFixture();
  let zoneId: string;
  const stderr = useCaughtStderr();
  beforeAll(async () => {
    zoneId = fx.zone('enterprise');
  });
  beforeEach(() => resetOwnership());

  const policy = implementation('CspPolicy');
  const rule = implementation('FirewallRuleWithFilter');
  const settings = implementation('PageGuardSettings');
  const policyInputs = (name: string, extra: Record<string, unknown> = {}) => ({
    zoneId,
    action: 'log',
    expression: 'http.host eq "own.example.com"',
    value: "script-src 'self'",
    description: `ownership ${name}`,
    enabled: true,
    [NAME_KEY]: name,
    ...extra,
  });

  test('the name goes into the outputs, so a later delete knows who asks', async () => {
    const { id, outs } = await policy.create(policyInputs('a'));
    expect(outs).toMatchObject({ policyId: id, [NAME_KEY]: 'a' });
    const read = await policy.read(id, outs as Record<string, unknown>);
    expect(read.props).toMatchObject({ [NAME_KEY]: 'a' });
    expect(read.inputs).toMatchObject({ [NAME_KEY]: 'a' });
  });

  test('the owner marker is recorded once: left out of the outputs where it is the marker written, kept where it differs or a state kept it', async () => {
    const marker = (name: string) => ownerMarker({ ownerId: 'test-owner', project: 'p', stack: 's', parent: '', kind: 'CspPolicy', name });
    const program = (name: string) => policyInputs(name, { [OWNER_KEY]: marker(name), [OWNER_ID_KEY]: 'test-owner' });
    const { id, outs } = await policy.create(program('once'));
    const state = outs as Record<string, unknown>;
    expect(state).toMatchObject({ [MARKER_KEY]: marker('once'), [OWNER_ID_KEY]: 'test-owner', [NAME_KEY]: 'once' });
    expect(state).not.toHaveProperty(OWNER_KEY);
    expect(ownerOf(state)).toBe(marker('once'));
    // A refresh records the resource as its state held it: without the owner here, with it in a state that has it.
    const read = await policy.read(id, state);
    expect(read.props).toEqual(state);
    expect(read.inputs).toMatchObject({ [OWNER_KEY]: marker('once') });
    const before = { ...state, [OWNER_KEY]: marker('once') };
    expect((await policy.read(id, before)).props).toEqual(before);
    // Renamed with aliases: the program's marker is another, the one written stays, and the outputs keep both.
    const renamed = await policy.update(id, state, { ...program('renamed'), description: 'ownership renamed' });
    expect(renamed.outs).toMatchObject({ [MARKER_KEY]: marker('once'), [OWNER_KEY]: marker('renamed'), [NAME_KEY]: 'renamed' });
    expect(ownerOf(renamed.outs as Record<string, unknown>)).toBe(marker('renamed'));
  });

  test('an adoption of a policy another resource created in this process is refused before any request', async () => {
    const { id } = await policy.create(policyInputs('a'));
    await fx.requestsSince();
    await expect(policy.create(policyInputs('b', { adoptPolicyId: id }))).rejects.toThrow(
      `CspPolicy 'b': refused before any change: CspPolicy 'a' of this deployment holds policy ${id} (created in this run)`,
    );
    expect(await fx.requestsSince()).toEqual([]);
  });

  test('an adoption of a rule another resource holds in its state (seen by diff) is refused before any request', async () => {
    const made = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { expression: '(http.request.uri.path eq "/held")' }, action: 'block' }] });
    const held = made[0]!;
    const state = { zoneId, expression: held.filter.expression, action: 'block', paused: false, priority: null, description: '', ref: '', ruleId: held.id, filterId: held.filter.id, [NAME_KEY]: 'a' };
    await rule.diff(held.id, state, { ...state });
    await fx.requestsSince();
    await expect(rule.create({ ...state, adoptRuleId: held.id, [NAME_KEY]: 'b' })).rejects.toThrow(
      `FirewallRuleWithFilter 'b': refused before any change: FirewallRuleWithFilter 'a' of this deployment holds firewall rule ${held.id} (in its state)`,
    );
    expect(await fx.requestsSince()).toEqual([]);
  });

  describe('one object whichever kind holds it', () => {
    const twoCallFilter = implementation('FirewallFilter');
    const twoCallRule = implementation('FirewallRule');
    /** A single-call rule and the state a FirewallRuleWithFilter named `name` holds for it. */
    async function singleCall(path: string, name: string) {
      const [made] = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { expression: `(http.request.uri.path eq "${path}")` }, action: 'block' }] });
      const state = { zoneId, expression: made!.filter.expression, action: 'block', paused: false, priority: null, description: '', ref: '', ruleId: made!.id, filterId: made!.filter.id, [NAME_KEY]: name };
      return { rule: made!, state };
    }
    const rules = async () => (await fx.client.firewallRules.list({ zoneId }).toArray()).map((r) => r.id);
    const filters = async () => (await fx.client.filters.list({ zoneId }).toArray()).map((f) => f.id);

    test('a FirewallRule adopting a rule a FirewallRuleWithFilter holds in its state is refused before any request', async () => {
      const { rule: made, state } = await singleCall('/one-object', 'single');
      await rule.diff(made.id, state, { ...state });
      await fx.requestsSince();
      await expect(twoCallRule.create({ zoneId, filterId: made.filter.id, action: 'block', paused: false, priority: null, description: '', ref: '', adoptRuleId: made.id, [NAME_KEY]: 'two-call' })).rejects.toThrow(
        `FirewallRule 'two-call': refused before any change: FirewallRuleWithFilter 'single' of this deployment holds firewall rule ${made.id} (in its state)`,
      );
      expect(await fx.requestsSince()).toEqual([]);
    });

    test('switching to the two-call form by adoption in one run keeps the rule and its filter, with their ids', async () => {
      const { rule: made, state } = await singleCall('/switch-to-two', 'single');
      // The engine's order in one up: the new resources are created first, the removed one deleted last.
      await twoCallFilter.create({ zoneId, expression: made.filter.expression, description: '', paused: false, ref: '', adoptFilterId: made.filter.id, [NAME_KEY]: 'filter' });
      await twoCallRule.create({ zoneId, filterId: made.filter.id, action: 'block', paused: false, priority: null, description: '', ref: '', adoptRuleId: made.id, [NAME_KEY]: 'rule' });
      await rule.delete(made.id, state);
      expect(await rules()).toContain(made.id);
      expect(await filters()).toContain(made.filter.id);
      expect(stderr.calls()).toContainEqual([expect.stringContaining(`not deleting firewall rule ${made.id}: FirewallRule 'rule' holds it (adopted in this run)`)]);
    });

    test('switching to the single-call form by adoption in one run keeps the rule and the filter it now owns', async () => {
      const [filter] = await fx.client.filters.create({ zoneId, filters: [{ expression: '(http.request.uri.path eq "/switch-to-one")' }] });
      const [made] = await fx.client.firewallRules.create({ zoneId, rules: [{ filter: { id: filter!.id }, action: 'block' }] });
      const filterState = { zoneId, expression: filter!.expression, description: '', paused: false, ref: '', filterId: filter!.id, [NAME_KEY]: 'filter' };
      const ruleState = { zoneId, filterId: filter!.id, action: 'block', paused: false, priority: null, description: '', ref: '', ruleId: made!.id, [NAME_KEY]: 'rule' };
      await rule.create({ zoneId, expression: filter!.expression, action: 'block', paused: false, priority: null, description: '', ref: '', adoptRuleId: made!.id, [NAME_KEY]: 'single' });
      await twoCallRule.delete(made!.id, ruleState);
      await twoCallFilter.delete(filter!.id, filterState);
      expect(await rules()).toContain(made!.id);
      expect(await filters()).toContain(filter!.id);
    });

    test('a single-call rule whose filter alone was taken over is deleted without it', async () => {
      const { rule: made, state } = await singleCall('/filter-taken', 'single');
      await twoCallFilter.create({ zoneId, expression: made.filter.expression, description: '', paused: false, ref: '', adoptFilterId: made.filter.id, [NAME_KEY]: 'filter' });
      await rule.delete(made.id, state);
      expect(await rules()).not.toContain(made.id);
      expect(await filters()).toContain(made.filter.id);
      expect(stderr.calls()).toContainEqual([`zoneguard: FirewallRuleWithFilter 'single' ${made.id} in zone ${zoneId}: keeping filter ${made.filter.id}: FirewallFilter 'filter' holds it`]);
    });
  });

  test('adopt and delete of one id in one run: the delete is skipped with one line naming both, and the object stays', async () => {
    // 'old' made the policy in an earlier run; 'new' adopts it (a rename without aliases), then 'old' is deleted.
    const { id, outs } = await policy.create(policyInputs('old'));
    resetOwnership();
    // 'old' marked the policy as its own: the adoption takes it over explicitly.
    await policy.create(policyInputs('new', { adoptPolicyId: id, takeOver: true }));
    await fx.requestsSince();
    await policy.delete(id, outs as Record<string, unknown>);
    expect(await fx.requestsSince()).toEqual([]);
    expect(stderr.calls()).toEqual([
      [
        `zoneguard: CspPolicy 'old': not deleting policy ${id}: CspPolicy 'new' holds it (adopted in this run); CspPolicy 'old' leaves the state and ` +
          'the object stays. Next time use the resource option aliases for a rename',
      ],
    ]);
    expect(await fx.client.cspPolicies.get({ zoneId, policyId: id })).toMatchObject({ id });
  });

  test('two identical policies of two resources: each delete removes only its own', async () => {
    const a = await policy.create(policyInputs('twin-a', { description: 'twin' }));
    const b = await policy.create(policyInputs('twin-b', { description: 'twin' }));
    expect(b.id).not.toBe(a.id);
    await policy.delete(a.id, a.outs as Record<string, unknown>);
    expect(await fx.client.cspPolicies.get({ zoneId, policyId: b.id })).toMatchObject({ id: b.id, description: expect.stringMatching(/^twin zg:[0-9a-f]{10}$/) });
    await expect(fx.client.cspPolicies.get({ zoneId, policyId: a.id })).rejects.toThrow(/10013/);
  });

  test('a second PageGuardSettings of the same zone is refused before any request', async () => {
    const zone = fx.zone('pro');
    await settings.create({ zoneId: zone, enabled: true, [NAME_KEY]: 'first' });
    await fx.requestsSince();
    await expect(settings.create({ zoneId: zone, enabled: false, [NAME_KEY]: 'second' })).rejects.toThrow(
      `PageGuardSettings 'second': refused before any change: PageGuardSettings 'first' of this deployment holds ` +
        `the page security settings of zone ${zone} (adopted in this run)`,
    );
    expect(await fx.requestsSince()).toEqual([]);
  });
});
