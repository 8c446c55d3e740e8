// WafManagedRules against the emulator over loopback: every provider method, adoption of the migrated entry point
// with zero writes (counted in the emulator's request log), updates that keep the ids of unchanged rules, drift,
// delete putting back what create found, and the refusals before a migration.
import { exportZoneProgram } from '../../src/insights';
import { readMigrationPlan } from '../../src/migration';
import { NAME_KEY, implementation } from '../../src/providers';
import { PREVIEW_KEY } from '../../src/unknown';
import { resetOwnership } from '../../src/providers/kit/ownership';
import type { WafManagedRulesOutputs } from '../../src/providers/waf-managed-rules';
import { declaredOf, rulesByRef, rulesFromRuleset, type ManagedRuleWithRef } from '../../src/rulesets';
import { planWafMigration } from '../../src/resources/waf-migration';
import { OWASP_RULESET_ID } from '../../src/schemas/service';
import { checkedManagedRules, useProviderFixture, writesIn } from './support';

jest.setTimeout(60_000);

const provider = implementation('WafManagedRules');
const fixture = useProviderFixture();
let zoneId: string;
let migrated: ManagedRuleWithRef[];


/** The provider's checked inputs for a list of rules of the zone under test. */
const checked = (list: ManagedRuleWithRef[], extra: Record<string, unknown> = {}) => checkedManagedRules(zoneId, list, extra);

beforeAll(async () => {
  zoneId = fixture.zone('pro');
});
beforeEach(() => resetOwnership());

describe('before the migration', () => {
  test('create on a zone that has not migrated is refused naming WafMigration and dependsOn, with no write', async () => {
    const inputs = await checked([{ ref: 'owasp', execute: { rulesetId: OWASP_RULESET_ID } }]);
    await fixture.requestsSince();
    await expect(provider.create(inputs)).rejects.toThrow(
      `WafManagedRules of zone ${zoneId}: refused before any change: zone ${zoneId} has not migrated to the new WAF managed rules (migration_state start). Declare a WafMigration with mode: 'direct'`,
    );
    await expect(provider.create(inputs)).rejects.toThrow('dependsOn: [thatMigration]');
    expect(writesIn(await fixture.requestsSince())).toEqual([]);
  });

  test('create on a zone in validation is refused: its WafMigration owns the configuration', async () => {
    const enterprise = fixture.zone('enterprise');
    const plan = await readMigrationPlan(fixture.client, enterprise);
    await fixture.client.wafMigration.updateEntrypoint({ zoneId: enterprise, mode: 'validation', ruleset: plan.ruleset! });
    const result = await provider.check({}, { zoneId: enterprise, ...rulesByRef([{ ref: 'owasp', execute: { rulesetId: OWASP_RULESET_ID } }]) });
    await fixture.requestsSince();
    await expect(provider.create(result.inputs as Record<string, unknown>)).rejects.toThrow('is in validation mode, where its WafMigration resource owns the new WAF configuration');
    expect(writesIn(await fixture.requestsSince())).toEqual([]);
  });
});

describe('after a direct migration', () => {
  let outs: WafManagedRulesOutputs;

  beforeAll(async () => {
    // What WafMigration of mode direct submits: the plan's converted ruleset, with the refs the migration gives. The
    // starting rules are that plan's ruleset passed through rulesFromRuleset, as the migration guide shows.
    const plan = await planWafMigration({ zoneId, client: fixture.client });
    await fixture.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
    migrated = rulesFromRuleset(plan.ruleset!);
  });

  test('create adopts the migrated entry point with one write, its owner marker, and records it', async () => {
    expect(migrated.map((rule) => rule.ref)).toContain('owasp-core-ruleset');
    const inputs = await checked(migrated);
    const before = await fixture.client.rulesets.getEntrypoint({ zoneId });
    await fixture.requestsSince();
    const created = await provider.create(inputs);
    const requests = await fixture.requestsSince();
    // The migration status, the entry point, and the PUT that writes the marker at the end of its description.
    expect(requests.map((r) => r.method)).toEqual(['GET', 'GET', 'PUT']);
    const after = await fixture.client.rulesets.getEntrypoint({ zoneId });
    expect(after.description).toMatch(/(^| )zg:[0-9a-f]{10}$/);
    expect(after.rules.map((rule) => [rule.id, rule.ref])).toEqual(before.rules.map((rule) => [rule.id, rule.ref]));
    expect(created.id).toBe(zoneId);
    outs = created.outs as WafManagedRulesOutputs;
    expect(outs.order).toEqual(migrated.map((rule) => rule.ref));
    expect(outs.recorded?.rules.map((rule) => rule.ref)).toEqual(outs.order);
    expect(Object.keys(outs.ruleIds)).toEqual(outs.order);
  });

  test('the rules `zoneguard export` writes for the zone adopt it, marked already, with zero writes', async () => {
    const { program } = await exportZoneProgram({ client: fixture.client, zoneId });
    // The program's rules literal, evaluated as the program would.
    const literal = /^ {2}rules: (\[[\s\S]*?^ {2}\]),$/m.exec(program)?.[1];
    expect(literal).toBeDefined();
    const exported = new Function(`return ${literal};`)() as ManagedRuleWithRef[];
    expect(exported.map((rule) => rule.ref)).toEqual(migrated.map((rule) => rule.ref));
    const inputs = await checked(exported);
    await fixture.requestsSince();
    const created = await provider.create(inputs);
    expect((await fixture.requestsSince()).map((r) => r.method)).toEqual(['GET', 'GET']);
    expect((created.outs as WafManagedRulesOutputs).order).toEqual(outs.order);
  });

  test('read returns the inputs: a diff after it is clean, and a read makes one request', async () => {
    await fixture.requestsSince();
    const read = await provider.read(zoneId, outs as never);
    expect((await fixture.requestsSince()).length).toBe(1);
    const diff = await provider.diff(zoneId, read.props as never, await checked(migrated));
    expect(diff.changes).toBe(false);
    expect(read.inputs).toMatchObject({ zoneId, order: outs.order, rules: outs.rules, restoreOnDelete: true });
  });

  test("a preview's diff of a changed resource sends the exact PUT with dry_run=true and changes nothing; an unchanged one, and an up's diff, send none", async () => {
    const version = (await fixture.client.rulesets.getEntrypoint({ zoneId })).version;
    const partner = [{ ref: 'partner', expression: 'ip.src eq 198.51.100.7', skip: { ruleset: 'current' as const } }, ...migrated];
    const sent = async () => ((await fixture.requestsSince()) as Array<{ method: string; query?: Record<string, unknown> }>).map((c) => `${c.method}${c.query?.dry_run === 'true' ? ' dry_run' : ''}`);
    await fixture.requestsSince();
    // An up's diff: the read of the entry point (another writer's change is refused before the write), no dry run.
    expect((await provider.diff(zoneId, outs as never, await checked(partner))).changes).toBe(true);
    expect(await sent()).toEqual(['GET']);
    // A preview (its own run, told by the key the resource class adds: src/providers/kit/context.ts).
    await fixture.newRun();
    expect((await provider.diff(zoneId, outs as never, await checked(migrated, { [PREVIEW_KEY]: true }))).changes).toBe(false);
    expect(await sent()).toEqual([]);
    expect((await provider.diff(zoneId, outs as never, await checked(partner, { [PREVIEW_KEY]: true }))).changes).toBe(true);
    expect(await sent()).toEqual(['GET', 'PUT dry_run']);
    expect((await fixture.client.rulesets.getEntrypoint({ zoneId })).version).toBe(version);
    await fixture.newRun();
  });

  test('adding an exception first: one write, unchanged rules keep their ids', async () => {
    const next = [{ ref: 'partner', expression: 'ip.src eq 198.51.100.7', skip: { ruleset: 'current' as const } }, ...migrated];
    const news = await checked(next);
    const diff = await provider.diff(zoneId, outs as never, news);
    expect(diff.changes).toBe(true);
    await fixture.requestsSince();
    const updated = (await provider.update(zoneId, outs as never, news)).outs as WafManagedRulesOutputs;
    expect(writesIn(await fixture.requestsSince()).length).toBe(1);
    expect(updated.order).toEqual(['partner', ...outs.order]);
    for (const ref of outs.order) expect(updated.ruleIds[ref]).toBe(outs.ruleIds[ref]);
    expect(updated.ruleIds.partner).toMatch(/^[0-9a-f]{32}$/);
    expect(updated.recorded).toEqual(outs.recorded);
    outs = updated;
  });

  test('an update to what the zone already holds makes no write', async () => {
    const news = await checked([{ ref: 'partner', expression: 'ip.src eq 198.51.100.7', skip: { ruleset: 'current' } }, ...migrated]);
    await fixture.requestsSince();
    await provider.update(zoneId, outs as never, news);
    expect(writesIn(await fixture.requestsSince())).toEqual([]);
  });

  test('drift through the service API is found by read, and named by ref in the diff', async () => {
    const current = await fixture.client.rulesets.getEntrypoint({ zoneId });
    const rules = current.rules.map((rule) => (rule.ref === 'partner' ? { ...rule, expression: 'ip.src eq 203.0.113.9' } : rule));
    await fixture.client.rulesets.updateEntrypoint({ zoneId, ruleset: { name: current.name, rules } });
    const read = await provider.read(zoneId, outs as never);
    expect((read.inputs as WafManagedRulesOutputs).rules.partner?.expression).toBe('ip.src eq 203.0.113.9');
    const declared = await checked([{ ref: 'partner', expression: 'ip.src eq 198.51.100.7', skip: { ruleset: 'current' } }, ...migrated]);
    const diff = await provider.diff(zoneId, read.props as never, declared);
    expect(diff.changes).toBe(true);
    outs = (await provider.update(zoneId, read.props as never, declared)).outs as WafManagedRulesOutputs;
    expect(outs.rules.partner?.expression).toBe('ip.src eq 198.51.100.7');
  });

  test('delete with restoreOnDelete false leaves the rules in place', async () => {
    await fixture.requestsSince();
    await provider.delete(zoneId, { ...outs, restoreOnDelete: false } as never);
    expect(await fixture.requestsSince()).toEqual([]);
  });

  test('delete puts back what create found', async () => {
    await provider.delete(zoneId, outs as never);
    const after = await fixture.client.rulesets.getEntrypoint({ zoneId });
    expect(declaredOf(after)).toEqual(declaredOf(outs.recorded!));
    // The rules create found keep their ids: only the added exception went.
    expect(after.rules.map((rule) => rule.id)).toEqual(outs.recorded!.rules.map((rule) => outs.ruleIds[rule.ref!]));
  });

  test('a second resource adopting the same zone in one run is refused before any call', async () => {
    const inputs = await checked(migrated);
    await provider.create({ ...inputs, [NAME_KEY]: 'first' });
    await fixture.requestsSince();
    await expect(provider.create({ ...inputs, [NAME_KEY]: 'second' })).rejects.toThrow(
      "WafManagedRules 'second': refused before any change: WafManagedRules 'first' of this deployment holds the WAF managed rules entry point of zone",
    );
    expect(await fixture.requestsSince()).toEqual([]);
  });
});
