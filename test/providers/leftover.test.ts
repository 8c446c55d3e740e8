// A create that finds its own leftover (docs/ownership.md#leftovers): an object of the zone carrying this very
// resource's marker, held by no resource of the deployment, was made by an interrupted run of this resource, and the
// create takes it with no new object. Pure decisions as tables; then every marked kind against the emulator over
// loopback HTTP, each run a new provider process (fx.newRun and a fresh ownership guard).
import { MARKER_KEY, OWNER_ID_KEY, OWNER_KEY, ownerMarker } from '../../src/kinds/marker';
import { NAME_KEY, implementation, type ResourceKind } from '../../src/providers';
import { leftoverOf } from '../../src/providers/kit/marker';
import { markerIn } from '../../src/schemas/owner-marker';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { sampleInputs } from '../support/kind-samples';
import { checkedBy, useCaughtStderr, useProviderFixture, writesIn } from './support';

const OWNER_ID = '0123456789abcdef';
const marker = (name: string, kind: string) => ownerMarker({ ownerId: OWNER_ID, project: 'p', stack: 's', parent: '', kind, name });

describe('the decisions', () => {
  test.each<[string, string[], string[], { take?: string; also: string[] }]>([
    ['none carries the marker', [], [], { also: [] }],
    ['one, held by no resource: taken', ['a'], [], { take: 'a', also: [] }],
    ['one, held by a resource of the deployment (the object a replacement replaces): not taken', ['a'], ['a'], { also: [] }],
    ['two, the first held: the second taken', ['a', 'b'], ['a'], { take: 'b', also: [] }],
    ['two held by nothing: the first taken, the other named', ['a', 'b'], [], { take: 'a', also: ['b'] }],
  ])('%s', (_case, carrying, held, expected) => {
    expect(leftoverOf(carrying, (id) => held.includes(id))).toEqual(expected);
  });

  test.each<[string, object, 'ref' | 'description', string | undefined]>([
    ['a ref with a marker', { ref: 'office zg:0123456789' }, 'ref', 'zg:0123456789'],
    ['a description with a marker', { description: 'zg:0123456789' }, 'description', 'zg:0123456789'],
    ['unmarked', { ref: 'office' }, 'ref', undefined],
    ['no field', {}, 'ref', undefined],
  ])('markerIn: %s', (_case, object, field, expected) => {
    expect(markerIn(object, field)).toBe(expected);
  });
});

describe('every marked kind against the emulator', () => {
  const fx = useProviderFixture();
  const stderr = useCaughtStderr();
  let zoneId: string;
  beforeAll(async () => {
    zoneId = await fx.freshZone({ plan: 'enterprise' });
  });
  /** The next run of the provider: a new process, which has seen nothing of the last one. */
  const nextRun = async () => {
    await fx.newRun();
    resetOwnership();
  };

  const KINDS: ResourceKind[] = ['CspPolicy', 'FirewallFilter', 'FirewallRule', 'FirewallRuleWithFilter', 'CustomRule', 'RateLimitRule'];
  /** A sample of `kind`, distinct per `tag` (its expression), as resource `name` of the program passes it. */
  async function inputsOf(kind: ResourceKind, tag: string, name: string): Promise<Record<string, unknown>> {
    const expression = `(http.request.uri.path eq "/${kind.toLowerCase()}/${tag}")`;
    // A FirewallRule's filter is made first (its sample's prepare makes one of a fixed expression, once a zone).
    const own = kind === 'FirewallRule' ? { filterId: (await fx.client.filters.create({ zoneId, filters: [{ expression }] }))[0]!.id } : { expression };
    return checkedBy(implementation(kind), { ...sampleInputs(kind, zoneId), ...own, [NAME_KEY]: name, [OWNER_KEY]: marker(name, kind), [OWNER_ID_KEY]: OWNER_ID });
  }

  test.each(KINDS)('%s: the object its own interrupted create made is taken with no create call, in one line', async (kind) => {
    const provider = implementation(kind);
    const inputs = await inputsOf(kind, 'interrupted', 'mine');
    await nextRun();
    const lost = await provider.create(inputs);
    // The next run: the state holds nothing (the answer was lost), and the program declares the same resource.
    await nextRun();
    await fx.requestsSince();
    const again = await provider.create(inputs);
    expect(again.id).toBe(lost.id);
    expect(writesIn(await fx.requestsSince())).toEqual([]);
    expect(again.outs).toMatchObject({ [MARKER_KEY]: marker('mine', kind) });
    expect(again.outs).not.toHaveProperty(String(Object.keys(again.outs ?? {}).find((key) => key.startsWith('adopt'))));
    expect(stderr.calls()).toContainEqual([expect.stringContaining(`${lost.id}, which carries this resource's marker ${marker('mine', kind)}: an interrupted run made it`)]);
    // In a later run: in its own, a delete of what the create took back is of an entry kept to delete, and leaves it.
    await nextRun();
    await provider.delete(again.id, again.outs as Record<string, unknown>);
  });

  test.each(KINDS)('%s: an object of another owner, or of another resource of this stack, is never taken', async (kind) => {
    const provider = implementation(kind);
    const theirs = await provider.create(await inputsOf(kind, 'theirs', 'theirs'));
    await nextRun();
    // Another resource's ('theirs', of this stack or of another stack: a marker not this resource's) is not its own.
    // (Of the same expression, a firewall kind's create is refused for the duplicate, naming the object: the service's rule.)
    const inputs = await inputsOf(kind, 'mine', 'mine');
    await nextRun();
    const mine = await provider.create(inputs);
    expect(mine.id).not.toBe(theirs.id);
    for (const made of [mine, theirs]) await provider.delete(made.id, made.outs as Record<string, unknown>);
  });

  test('an unmarked policy of the same fields is never taken', async () => {
    const provider = implementation('CspPolicy');
    const inputs = await inputsOf('CspPolicy', 'unmarked', 'mine');
    const unmarked = await fx.client.cspPolicies.create({ zoneId, action: 'log', expression: String(inputs.expression), value: String(inputs.value), description: '', enabled: true });
    await nextRun();
    const mine = await provider.create(inputs);
    expect(mine.id).not.toBe(unmarked.id);
  });

  test('a replacement by a new zone makes a new policy there; the old one, in its own zone, is the engine\'s to delete', async () => {
    const provider = implementation('CspPolicy');
    const before = await provider.create(await inputsOf('CspPolicy', 'moving', 'mover'));
    await nextRun();
    const otherZone = await fx.freshZone({ plan: 'enterprise' });
    const after = { ...(await inputsOf('CspPolicy', 'moving', 'mover')), zoneId: otherZone };
    expect((await provider.diff(before.id, before.outs as Record<string, unknown>, after)).replaces).toEqual(['zoneId']);
    const moved = await provider.create(after);
    expect(moved.id).not.toBe(before.id);
    await provider.delete(before.id, before.outs as Record<string, unknown>);
    expect((await fx.client.cspPolicies.list({ zoneId }).toArray()).map((policy) => policy.id)).not.toContain(before.id);
    expect((await fx.client.cspPolicies.list({ zoneId: otherZone }).toArray()).map((policy) => policy.id)).toEqual([moved.id]);
  });

  test("a replacement (a FirewallRuleWithFilter's new expression) makes a new rule: the one it replaces carries its marker and is not taken", async () => {
    const provider = implementation('FirewallRuleWithFilter');
    const before = await provider.create(await inputsOf('FirewallRuleWithFilter', 'replaced', 'mine'));
    await nextRun();
    const after = await inputsOf('FirewallRuleWithFilter', 'replacing', 'mine');
    // The engine diffs the resource first (its state holds the old rule), then creates the replacement.
    expect((await provider.diff(before.id, before.outs as Record<string, unknown>, after)).replaces).toEqual(['expression']);
    const replacement = await provider.create(after);
    expect(replacement.id).not.toBe(before.id);
    await provider.delete(before.id, before.outs as Record<string, unknown>);
    expect((await fx.client.firewallRules.list({ zoneId }).toArray()).map((rule) => rule.id)).toContain(replacement.id);
  });

  test.each([
    ['without a refresh', 'back', false],
    ['after a refresh in the same run (up --refresh), which reads the entry kept to delete', 'back-refreshed', true],
  ])(
    "a replacement whose delete did not run, then the previous program (%s): the create takes the old rule back, and the entry kept to delete leaves it",
    async (_case, name, refresh) => {
      const provider = implementation('FirewallRuleWithFilter');
      const previous = await inputsOf('FirewallRuleWithFilter', name, name);
      const old = await provider.create(previous);
      await nextRun();
      const replacing = await inputsOf('FirewallRuleWithFilter', `${name}-new`, name);
      await provider.diff(old.id, old.outs as Record<string, unknown>, replacing);
      const replacement = await provider.create(replacing);
      // The run stops there: its state holds the replacement, and the old rule as an entry kept to delete.
      await nextRun();
      if (refresh) {
        // A refresh reads each entry of the state, and diffs it against the state's own inputs.
        for (const [made, inputs] of [[old, previous], [replacement, replacing]] as const) {
          const read = await provider.read(made.id, made.outs as Record<string, unknown>);
          await provider.diff(made.id, read.props as Record<string, unknown>, inputs);
        }
      }
      // The engine's order: the diff of the resource, the create of its replacement, its delete, and the kept entry's delete last.
      expect((await provider.diff(replacement.id, replacement.outs as Record<string, unknown>, previous)).replaces).toEqual(['expression']);
      const back = await provider.create(previous);
      expect(back.id).toBe(old.id);
      await provider.delete(replacement.id, replacement.outs as Record<string, unknown>);
      await fx.requestsSince();
      await provider.delete(old.id, old.outs as Record<string, unknown>);
      expect(writesIn(await fx.requestsSince())).toEqual([]);
      const left = (await fx.client.firewallRules.list({ zoneId }).toArray()).filter((rule) => rule.filter.expression.includes(`/${name}`));
      expect(left.map((rule) => rule.id)).toEqual([old.id]);
      expect(stderr.calls()).toContainEqual([expect.stringContaining(`not deleting firewall rule ${old.id}: the state kept it to delete`)]);
      await nextRun();
      await provider.delete(back.id, back.outs as Record<string, unknown>);
    },
  );

  test("a replacement whose delete did not run, then a third program (another expression): a new rule, and the entry kept to delete removes the old one", async () => {
    const provider = implementation('FirewallRuleWithFilter');
    const old = await provider.create(await inputsOf('FirewallRuleWithFilter', 'third-a', 'third'));
    await nextRun();
    const replacing = await inputsOf('FirewallRuleWithFilter', 'third-b', 'third');
    await provider.diff(old.id, old.outs as Record<string, unknown>, replacing);
    const replacement = await provider.create(replacing);
    await nextRun();
    const third = await inputsOf('FirewallRuleWithFilter', 'third-c', 'third');
    await provider.diff(replacement.id, replacement.outs as Record<string, unknown>, third);
    // The old rule carries the resource's marker, held by nothing this run saw, but of another expression: not taken.
    const made = await provider.create(third);
    expect([old.id, replacement.id]).not.toContain(made.id);
    await provider.delete(replacement.id, replacement.outs as Record<string, unknown>);
    await provider.delete(old.id, old.outs as Record<string, unknown>);
    const left = (await fx.client.firewallRules.list({ zoneId }).toArray()).filter((rule) => rule.filter.expression.includes('/third-'));
    expect(left.map((rule) => rule.id)).toEqual([made.id]);
    expect(stderr.calls().flat().join('\n')).not.toContain('taking firewall rule');
    await nextRun();
    await provider.delete(made.id, made.outs as Record<string, unknown>);
  });
});
