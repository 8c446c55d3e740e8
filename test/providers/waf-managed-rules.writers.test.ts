// WafManagedRules when another writer changed the entry point between this stack's runs (the on-call engineer's
// exception in the dashboard, another stack on the same zone): the service has no version check on entry point
// writes, so the provider compares the live version and rules with its state before any write, in update, in the
// preview's diff, and before delete puts back what create found. Against the emulator over loopback.
import { OWNER_KEY } from '../../src/kinds/marker';
import { NAME_KEY, implementation } from '../../src/providers';
import { splitMarked } from '../../src/schemas/owner-marker';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { interveningWriter, type WafManagedRulesOutputs } from '../../src/providers/waf-managed-rules';
import { rulesFromRuleset, type ManagedRuleWithRef } from '../../src/rulesets';
import { planWafMigration } from '../../src/resources/waf-migration';
import type { SavedRuleset } from '../../src/schemas';
import { checkedManagedRules, useProviderFixture, writesIn } from './support';

jest.setTimeout(60_000);

const provider = implementation('WafManagedRules');
const fixture = useProviderFixture();
let zoneId: string;
let migrated: ManagedRuleWithRef[];

const partner: ManagedRuleWithRef = { ref: 'partner', expression: 'ip.src eq 198.51.100.7', skip: { ruleset: 'current' } };
const oncall = { ref: 'oncall', action: 'skip', expression: 'ip.src eq 203.0.113.50', action_parameters: { ruleset: 'current' }, enabled: true };

/** The provider's checked inputs for a list of rules of the zone under test. */
const checked = (list: ManagedRuleWithRef[], extra: Record<string, unknown> = {}) => checkedManagedRules(zoneId, list, extra);

/** What the dashboard does: one more rule first in the entry point, written by someone else. */
async function addedOutOfBand(): Promise<SavedRuleset> {
  const live = await fixture.client.rulesets.getEntrypoint({ zoneId });
  return fixture.client.rulesets.updateEntrypoint({ zoneId, ruleset: { name: live.name, rules: [oncall as never, ...live.rules] } });
}

/** A fresh zone, migrated directly, and a WafManagedRules that took its entry point over. */
async function managedZone(): Promise<WafManagedRulesOutputs> {
  zoneId = await fixture.freshZone({ previousWaf: { enabled: true, sensitivity: 'medium', actionMode: 'simulate' } });
  const plan = await planWafMigration({ zoneId, client: fixture.client });
  await fixture.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
  migrated = rulesFromRuleset(plan.ruleset!);
  return (await provider.create(await checked(migrated))).outs as WafManagedRulesOutputs;
}

beforeEach(() => resetOwnership());

test('an unrelated update after an out-of-band exception is refused before any write, naming the rule and pulumi refresh; the preview says the same', async () => {
  const outs = await managedZone();
  const live = await addedOutOfBand();
  const news = await checked([partner, ...migrated]);
  const expected = `WafManagedRules of zone ${zoneId}: refused before any change: the entry point changed since this stack last wrote or refreshed it (version ${outs.version}, now ${live.version}; changed: rules.oncall, order), and this update would undo that change. Run pulumi refresh`;
  await fixture.requestsSince();
  await expect(provider.diff(zoneId, outs as never, news)).rejects.toThrow(expected);
  await expect(provider.update(zoneId, outs as never, news)).rejects.toThrow(expected);
  expect(writesIn(await fixture.requestsSince())).toEqual([]);
  expect((await fixture.client.rulesets.getEntrypoint({ zoneId })).rules.map((rule) => rule.ref)).toContain('oncall');

  // After a refresh the state holds the exception: the diff names its removal, and the update is the user's choice.
  const read = await provider.read(zoneId, outs as never);
  const diff = await provider.diff(zoneId, read.props as never, news);
  expect(diff.changes).toBe(true);
  await provider.update(zoneId, read.props as never, news);
  expect((await fixture.client.rulesets.getEntrypoint({ zoneId })).rules.map((rule) => rule.ref)).toEqual(['partner', ...migrated.map((rule) => rule.ref)]);
});

test('a write by someone else that leaves the same rules loses nothing: the update goes through', async () => {
  const outs = await managedZone();
  const live = await fixture.client.rulesets.getEntrypoint({ zoneId });
  const rewritten = await fixture.client.rulesets.updateEntrypoint({ zoneId, ruleset: { name: live.name, rules: live.rules } });
  expect(rewritten.version).not.toBe(outs.version);
  const updated = (await provider.update(zoneId, outs as never, await checked([partner, ...migrated]))).outs as WafManagedRulesOutputs;
  expect(updated.order).toEqual(['partner', ...outs.order]);
});

test('delete does not put back what create found over a change it did not make; restoreOnDelete: false leaves everything', async () => {
  const outs = await managedZone();
  const added = (await provider.update(zoneId, outs as never, await checked([partner, ...migrated]))).outs as WafManagedRulesOutputs;
  await addedOutOfBand();
  await fixture.requestsSince();
  await expect(provider.delete(zoneId, added as never)).rejects.toThrow(
    /refused before any change: the entry point changed since .*changed: rules\.oncall, order\), and putting back the rules create found would undo that change\. .*; or set restoreOnDelete: false \(pulumi up\) to leave the rules as they are$/,
  );
  expect(writesIn(await fixture.requestsSince())).toEqual([]);
  await provider.delete(zoneId, { ...added, restoreOnDelete: false } as never);
  expect((await fixture.client.rulesets.getEntrypoint({ zoneId })).rules.map((rule) => rule.ref)).toEqual(['oncall', 'partner', ...migrated.map((rule) => rule.ref)]);
});

test('delete over what this resource last wrote puts back what create found', async () => {
  const outs = await managedZone();
  const added = (await provider.update(zoneId, outs as never, await checked([partner, ...migrated]))).outs as WafManagedRulesOutputs;
  await provider.delete(zoneId, added as never);
  expect((await fixture.client.rulesets.getEntrypoint({ zoneId })).rules.map((rule) => rule.ref)).toEqual(migrated.map((rule) => rule.ref));
});

describe('interveningWriter', () => {
  const last = { version: '3', order: ['a'], rules: { a: { expression: 'true', skip: { ruleset: 'current' as const } } } };
  const saved = (version: string, rules: unknown[]) => ({ id: 'r', name: 'default', version, rules }) as unknown as SavedRuleset;
  const ruleA = { ref: 'a', action: 'skip', expression: 'true', action_parameters: { ruleset: 'current' }, enabled: true };
  test.each<[string, SavedRuleset, boolean]>([
    ['the version the state holds', saved('3', [ruleA, oncall]), false],
    ['a new version with the same rules', saved('4', [ruleA]), false],
    ['a new version with a rule added', saved('4', [oncall, ruleA]), true],
    ['a new version with a rule removed', saved('4', []), true],
  ])('%s: refused is %p', (_case, _live, refused) => {
    expect(interveningWriter('z', undefined, last as never, _live, 'this update') !== undefined).toBe(refused);
  });
});

describe('two stacks on one entry point (the owner marker in its description, docs/ownership.md)', () => {
  const STACK_A = { [OWNER_KEY]: 'zg:aaaaaaaaaa', [NAME_KEY]: 'managed' };
  const STACK_B = { [OWNER_KEY]: 'zg:bbbbbbbbbb', [NAME_KEY]: 'managed' };
  /** The owner marker at the end of the zone's entry point description. */
  const markerOnZone = async () => splitMarked((await fixture.client.rulesets.getEntrypoint({ zoneId })).description).marker;

  test('the second stack is refused before any write; with takeOver it takes the entry point over, and the first stack then neither writes nor puts back', async () => {
    zoneId = await fixture.freshZone({ previousWaf: { enabled: true, sensitivity: 'medium', actionMode: 'simulate' } });
    const plan = await planWafMigration({ zoneId, client: fixture.client });
    await fixture.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
    migrated = rulesFromRuleset(plan.ruleset!);
    const first = (await provider.create(await checked(migrated, STACK_A))).outs as WafManagedRulesOutputs;
    expect(await markerOnZone()).toBe('zg:aaaaaaaaaa');

    resetOwnership();
    await fixture.requestsSince();
    await expect(provider.create(await checked([partner, ...migrated], STACK_B))).rejects.toThrow(
      `WafManagedRules 'managed' of zone ${zoneId}: refused before any change: the entry point is marked as held by another owner (marker zg:aaaaaaaaaa in its description). If that stack no longer manages it, remove its WafManagedRules (with restoreOnDelete: false) or add takeOver: true here`,
    );
    expect(writesIn(await fixture.requestsSince())).toEqual([]);

    await provider.create(await checked([partner, ...migrated], { ...STACK_B, takeOver: true }));
    expect(await markerOnZone()).toBe('zg:bbbbbbbbbb');
    resetOwnership();
    await fixture.requestsSince();
    await expect(provider.update(zoneId, first as never, await checked(migrated, STACK_A))).rejects.toThrow(
      `WafManagedRules 'managed' of zone ${zoneId}: refused before any change: the entry point is marked as held by another owner (marker zg:bbbbbbbbbb in its description). The marker moved since this stack wrote it`,
    );
    const stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await provider.delete(zoneId, first as never);
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining(`not putting back the rules create found: the entry point is marked as held by another owner (marker zg:bbbbbbbbbb)`));
    stderr.mockRestore();
    expect(writesIn(await fixture.requestsSince())).toEqual([]);
    expect((await fixture.client.rulesets.getEntrypoint({ zoneId })).rules.map((rule) => rule.ref)).toEqual(['partner', ...migrated.map((rule) => rule.ref)]);
  });
});
