import { ZoneGuardClient } from '../../src/client';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { engineFailure, expectNoCredentialAndSmallProviders, openSandbox, previewDiff, type EngineSandbox } from './harness';
import type { Stack } from '@pulumi/pulumi/automation';
import { testClient, writesOf, zoneOfPlan } from '../support/emulator';

// The real engine against the emulator: pulumi up, preview --diff, refresh and destroy of FirewallRuleWithFilter,
// driven through the Automation API. The zone is the demo's Pro zone, which holds two rules of its own.
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
let stack: Stack;
let client: ZoneGuardClient;
let zoneId: string;
/** The zone's counts before the stack, so what the stack leaves behind shows up. */
let seeded: { filters: number; firewallRules: number };

const FIRST = '(http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24})';
const SECOND = '(http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24 198.51.100.0/24})';

// The program reads this object, so each step of a test declares a new desired state.
const desired = {
  expression: FIRST,
  action: 'block' as 'block' | 'managed_challenge',
  paused: false,
  priority: null as number | null,
  description: 'Admin only from the office',
  ref: 'SEC-101',
};
const MANAGED = ['expression', 'action', 'paused', 'priority', 'description', 'ref'] as const;

/** A field's value as the service holds it: a ref ends in the rule's owner marker (docs/ownership.md), the rest as declared. */
const onService = (field: string, value: unknown) => (field === 'ref' ? expect.stringMatching(new RegExp(`^${String(value)} zg:[0-9a-f]{10}$`)) : value);

beforeAll(async () => {
  sandbox = await openSandbox('firewall-rule');
  zoneId = zoneOfPlan(sandbox.emulator, 'pro');
  client = testClient(sandbox.emulator);
  seeded = (await sandbox.emulator.admin.inventory(zoneId)).counts;
  stack = await sandbox.stack('dev', async () => {
    const rule = new FirewallRuleWithFilter('admin-outside-office', { zoneId, ...desired });
    return { ruleId: rule.ruleId, filterId: rule.filterId, expression: rule.expression };
  });
});
afterAll(() => sandbox?.close());

async function outputs(): Promise<{ ruleId: string; filterId: string }> {
  const { ruleId, filterId } = await stack.outputs();
  return { ruleId: ruleId!.value as string, filterId: filterId!.value as string };
}

/** The zone's filters and rules, and which filters carry one of our expressions. */
async function inventory() {
  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  const ours = (expression: string) => inventory.filters.filter((filter) => filter.expression === expression);
  const usedFilters = new Set(inventory.firewallRules.map((rule) => rule.filter.id));
  return {
    counts: inventory.counts,
    ours,
    /** Filters no rule references: what a rule deleted without its filter leaves behind. */
    orphans: inventory.filters.filter((filter) => !usedFilters.has(filter.id)),
  };
}

test('up creates the rule with its filter; a second preview shows no change', async () => {
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toMatchObject({ create: 3 }); // the stack, its owner id and the rule
  const { ruleId, filterId } = await outputs();
  expect(ruleId).toMatch(/^[0-9a-f]{32}$/);
  expect(await client.firewallRules.get({ zoneId, ruleId })).toMatchObject({
    action: 'block',
    paused: false,
    priority: null,
    description: 'Admin only from the office',
    // The service holds the ref with the rule's owner marker after it (docs/ownership.md).
    ref: expect.stringMatching(/^SEC-101 zg:[0-9a-f]{10}$/),
    filter: { id: filterId, expression: FIRST },
  });
  const { counts, orphans, ours } = await inventory();
  expect(counts).toMatchObject({ firewallRules: seeded.firewallRules + 1, filters: seeded.filters + 1 });
  expect(orphans).toEqual([]);
  expect(ours(FIRST).map((f) => f.id)).toEqual([filterId]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the state holds no credential, and the serialized provider is at most 2 KB', async () => {
  const types = await expectNoCredentialAndSmallProviders(sandbox, stack);
  expect(types.filter((type) => type === 'pulumi-nodejs:dynamic/zoneguard:FirewallRuleWithFilter')).toHaveLength(1);
});

// @pulumi/pulumi records the frame below the first constructor under CustomResource as the source position, and the
// stack below it: with no constructor of ours in between (src/resources/kit.ts, registration), that is the program's
// `new`, and no frame of our classes takes room in each entry of the state.
test("the state records the program's line as the rule's source position, and no frame of zoneguard's classes", async () => {
  const deployment = (await stack.exportStack()).deployment as { resources: Array<{ type: string; sourcePosition?: string; stackTrace?: Array<{ sourcePosition?: string }> }> };
  const rule = deployment.resources.find((r) => r.type === 'pulumi-nodejs:dynamic/zoneguard:FirewallRuleWithFilter')!;
  expect(rule.sourcePosition).toMatch(/firewall-rule-with-filter\.test\.ts#\d+/);
  expect(rule.stackTrace?.[0]?.sourcePosition).toBe(rule.sourcePosition);
  expect(rule.stackTrace?.filter((frame) => /\/(src|dist)\/resources\//.test(frame.sourcePosition ?? ''))).toEqual([]);
});

// Each field the rule updates in place: the preview shows that one field as an update, up PUTs the same rule.
test.each([
  ['action', 'managed_challenge', /~ action\s*:\s*"block" => "managed_challenge"/],
  ['paused', true, /~ paused\s*:\s*false => true/],
  ['priority', 5, /\+ priority\s*:\s*5/], // null is no value to the engine: it shows the new one as added
  ['description', 'Admin only from the office and the VPN', /~ description\s*:\s*"Admin only from the office" => "Admin only from the office and the VPN"/],
  ['ref', 'SEC-102', /~ ref\s*:\s*"SEC-101" => "SEC-102"/],
] as const)('a new %s shows exactly that change, and up updates the rule in place', async (field, value, shown) => {
  const before = await outputs();
  Object.assign(desired, { [field]: value });
  const { text, summary } = await previewDiff(stack);
  expect(summary).toMatchObject({ update: 1, same: 2 }); // the stack and its owner id
  expect(summary.replace ?? 0).toBe(0);
  expect(text).toMatch(shown);
  for (const other of MANAGED.filter((f) => f !== field)) expect(text).not.toMatch(new RegExp(`[~+-] ${other}\\s*:`));

  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
  expect(await outputs()).toEqual(before);
  expect(await client.firewallRules.get({ zoneId, ruleId: before.ruleId })).toMatchObject({ [field]: onService(field, value), filter: { id: before.filterId } });
  expect(await writesOf(sandbox.emulator)).toEqual([`PUT ${pathOf(`/zones/${zoneId}/firewall/rules/${before.ruleId}`)}`]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('a new expression replaces the rule: the new one is created before the old one goes, and no filter is left', async () => {
  const old = await outputs();
  desired.expression = SECOND;
  const { text, summary } = await previewDiff(stack);
  expect(summary).toMatchObject({ replace: 1, same: 2 }); // the stack and its owner id
  expect(text).toMatch(/\+-\s*pulumi-nodejs:dynamic\/zoneguard:FirewallRuleWithFilter: \(replace\)/);
  expect(text).toMatch(/~ expression\s*:\s*"\(http.request.uri.path contains \\"\/admin\\" and not ip.src in \{192.0.2.0\/24\}\)" =>/);

  await sandbox.emulator.admin.clearRequests();
  await stack.up({ color: 'never' });
  const now = await outputs();
  expect(now.ruleId).not.toBe(old.ruleId);
  expect(await writesOf(sandbox.emulator)).toEqual([`POST ${pathOf(`/zones/${zoneId}/firewall/rules`)}`, `DELETE ${pathOf(`/zones/${zoneId}/firewall/rules/${old.ruleId}`)}`]);
  await expect(client.firewallRules.get({ zoneId, ruleId: old.ruleId })).rejects.toThrow(/404/);
  expect(await client.firewallRules.get({ zoneId, ruleId: now.ruleId })).toMatchObject({ filter: { id: now.filterId, expression: SECOND } });

  const { counts, orphans, ours } = await inventory();
  expect(counts).toMatchObject({ firewallRules: seeded.firewallRules + 1, filters: seeded.filters + 1 });
  expect(orphans).toEqual([]);
  expect(ours(FIRST)).toEqual([]);
  expect(ours(SECOND).map((f) => f.id)).toEqual([now.filterId]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('an out-of-band change is found by refresh and undone by up', async () => {
  const { ruleId, filterId } = await outputs();
  await client.firewallRules.update({
    zoneId,
    ruleId,
    filter: { id: filterId },
    action: 'log',
    paused: false,
    priority: 5,
    description: 'changed in the dashboard',
    ref: 'SEC-102',
  });
  const refresh = await stack.refresh({ color: 'never' });
  expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
  const { text, summary } = await previewDiff(stack);
  expect(summary).toMatchObject({ update: 1 });
  expect(text).toMatch(/~ action\s*:\s*"log" => "managed_challenge"/);
  expect(text).toMatch(/~ paused\s*:\s*false => true/);
  expect(text).toMatch(/~ description\s*:\s*"changed in the dashboard" => "Admin only from the office and the VPN"/);
  expect(text).not.toMatch(/[~+-] (priority|ref|expression)\s*:/);

  await stack.up({ color: 'never' });
  expect(await client.firewallRules.get({ zoneId, ruleId })).toMatchObject({
    action: 'managed_challenge',
    paused: true,
    description: 'Admin only from the office and the VPN',
    filter: { id: filterId },
  });
  await stack.refresh({ color: 'never' });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('a rule deleted out of band is recreated by the next up on the filter it left: no orphan, no duplicate-filter error', async () => {
  const old = await outputs();
  // Deleted alone, as the dashboard and other tools do: its filter stays behind, with the same expression.
  await client.firewallRules.delete({ zoneId, ruleId: old.ruleId });
  expect((await inventory()).orphans.map((f) => f.id)).toEqual([old.filterId]);

  await stack.refresh({ color: 'never' });
  const { summary } = await previewDiff(stack);
  expect(summary).toMatchObject({ create: 1 });

  let log = '';
  await stack.up({ color: 'never', onOutput: (out) => (log += out) });
  expect(log).not.toMatch(/10102|error/i);
  const now = await outputs();
  expect(now.ruleId).not.toBe(old.ruleId);
  expect(now.filterId).toBe(old.filterId);
  expect(await client.firewallRules.get({ zoneId, ruleId: now.ruleId })).toMatchObject({ action: 'managed_challenge', filter: { expression: SECOND } });
  const { counts, orphans, ours } = await inventory();
  expect(counts).toMatchObject({ firewallRules: seeded.firewallRules + 1, filters: seeded.filters + 1 });
  expect(orphans).toEqual([]);
  expect(ours(SECOND)).toHaveLength(1);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('a create refused by the rule quota says which filter was kept; once a slot is free, the next up uses it', async () => {
  // A zone of its own, full: a quota of one rule, and that rule.
  const full = await sandbox.emulator.admin.seedZone({
    name: 'quota.example',
    plan: 'free',
    ruleQuota: 1,
    firewallRules: [{ expression: '(http.request.uri.path eq "/old")', action: 'block', description: 'Takes the only slot' }],
  });
  const [taken] = await client.firewallRules.list({ zoneId: full.id }).toArray();
  const quotaStack = await sandbox.stack('quota', async () => {
    const rule = new FirewallRuleWithFilter('admin-outside-office', { zoneId: full.id, expression: FIRST, action: 'block' });
    return { ruleId: rule.ruleId, filterId: rule.filterId };
  });

  const text = await engineFailure((onOutput) => quotaStack.up({ color: 'never', onOutput }));
  const orphans = async () => {
    const inventory = await sandbox.emulator.admin.inventory(full.id);
    const used = new Set(inventory.firewallRules.map((rule) => rule.filter.id));
    return inventory.filters.filter((filter) => !used.has(filter.id)).map((filter) => filter.id);
  };
  const [kept] = await orphans();
  expect(kept).toMatch(/^[0-9a-f]{32}$/);
  expect(text).toContain(`FirewallRuleWithFilter in zone ${full.id}: the zone's firewall rule quota is exceeded, no rule was created`);
  expect(text).toContain(`The service kept the rule's filter ${kept} without a rule.`);
  expect(text).toContain(`run pulumi up again: the rule will be created on filter ${kept}, with no duplicate and no orphan`);

  await client.firewallRules.delete({ zoneId: full.id, ruleId: taken!.id, deleteFilterIfUnused: true });
  let log = '';
  const up = await quotaStack.up({ color: 'never', onOutput: (out) => (log += out) });
  expect(log).not.toMatch(/10102|error/i);
  expect(up.outputs.filterId!.value).toBe(kept);
  expect(await client.firewallRules.get({ zoneId: full.id, ruleId: up.outputs.ruleId!.value as string })).toMatchObject({
    action: 'block',
    filter: { id: kept, expression: FIRST },
  });
  expect(await orphans()).toEqual([]);
  expect((await sandbox.emulator.admin.inventory(full.id)).counts).toMatchObject({ firewallRules: 1, filters: 1 });
  await quotaStack.preview({ expectNoChanges: true, color: 'never' });
  await quotaStack.destroy({ color: 'never' });
  expect((await sandbox.emulator.admin.inventory(full.id)).counts).toMatchObject({ firewallRules: 0, filters: 0 });
});

test('destroy removes the rule and its filter', async () => {
  const { ruleId, filterId } = await outputs();
  await stack.destroy({ color: 'never' });
  await expect(client.firewallRules.get({ zoneId, ruleId })).rejects.toThrow(/404/);
  await expect(client.filters.get({ zoneId, filterId })).rejects.toThrow(/404/);
  const { counts, orphans } = await inventory();
  expect(counts).toMatchObject(seeded);
  expect(orphans).toEqual([]);
});

/** A service path as the emulator's request log records it (the base URL's path first). */
function pathOf(servicePath: string): string {
  return `${new URL(sandbox.emulator.baseUrl).pathname}${servicePath}`;
}
