import { ZoneGuardClient } from '../../src/client';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { engineFailure, holdsServiceObject, openSandbox, previewDiff, type EngineSandbox } from './harness';
import type { Stack } from '@pulumi/pulumi/automation';
import { testClient, writesOf, zoneOfPlan } from '../support/emulator';

// The real engine against the emulator: the recommended two-call flow, one FirewallFilter shared by several
// FirewallRules (filterId: filter.id), through up, preview --diff, refresh and destroy.
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
let stack: Stack;
let client: ZoneGuardClient;
let zoneId: string;
let seeded: { filters: number; firewallRules: number };

const FIRST = '(http.request.uri.path contains "/admin")';
const SECOND = '(http.request.uri.path contains "/admin" or http.request.uri.path contains "/wp-admin")';

// The program reads this object, so each step of a test declares a new desired state.
const desired = {
  expression: FIRST,
  description: 'Admin paths',
  rules: { block: 'block', log: 'log', challenge: 'managed_challenge' } as Record<string, 'block' | 'log' | 'managed_challenge'>,
};

/** The program: one filter, and one rule on it per entry of desired.rules. */
async function program() {
  const filter = new FirewallFilter('admin-paths', { zoneId, expression: desired.expression, description: desired.description });
  const rules = Object.entries(desired.rules).map(([name, action]) => new FirewallRule(`admin-${name}`, { zoneId, filterId: filter.id, action }));
  return { filterId: filter.id, ruleIds: rules.map((rule) => rule.id) };
}

beforeAll(async () => {
  sandbox = await openSandbox('firewall-filter-and-rule');
  zoneId = zoneOfPlan(sandbox.emulator, 'pro');
  client = testClient(sandbox.emulator);
  seeded = (await sandbox.emulator.admin.inventory(zoneId)).counts;
  stack = await sandbox.stack('dev', program);
});
afterAll(() => sandbox?.close());

async function outputs(): Promise<{ filterId: string; ruleIds: string[] }> {
  const { filterId, ruleIds } = await stack.outputs();
  return { filterId: filterId!.value as string, ruleIds: ruleIds!.value as string[] };
}

/** The zone's rules on our filter, as [id, action, expression]. */
async function rulesOn(filterId: string): Promise<Array<[string, string, string]>> {
  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  return inventory.firewallRules
    .filter((rule) => rule.filter.id === filterId)
    .map((rule): [string, string, string] => [rule.id, rule.action, rule.filter.expression])
    .sort();
}

const writes = () => writesOf(sandbox.emulator, { path: 'belowZone' });

test('up creates the filter, then three rules on it; a second preview shows no change', async () => {
  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toMatchObject({ create: 6 }); // with the stack's owner id
  const { filterId, ruleIds } = await outputs();
  expect(await writes()).toEqual(['POST /filters', 'POST /firewall/rules', 'POST /firewall/rules', 'POST /firewall/rules']);
  expect(await client.filters.get({ zoneId, filterId })).toMatchObject({ expression: FIRST, description: 'Admin paths', paused: false });
  expect(await rulesOn(filterId)).toEqual(
    [
      [ruleIds[0], 'block', FIRST],
      [ruleIds[1], 'log', FIRST],
      [ruleIds[2], 'managed_challenge', FIRST],
    ].sort(),
  );
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject({ filters: seeded.filters + 1, firewallRules: seeded.firewallRules + 3 });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test("a new expression updates the filter in place: one PUT, and every rule keeps its id and matches the new one", async () => {
  const before = await outputs();
  desired.expression = SECOND;
  const { text, summary } = await previewDiff(stack);
  expect(summary).toMatchObject({ update: 1, same: 5 }); // with the stack's owner id
  expect(summary.replace ?? 0).toBe(0);
  expect(text).toMatch(/~ pulumi-nodejs:dynamic\/zoneguard:FirewallFilter: \(update\)/);
  expect(text).toMatch(/~ expression\s*:\s*"\(http.request.uri.path contains \\"\/admin\\"\)" =>/);

  await sandbox.emulator.admin.clearRequests();
  await stack.up({ color: 'never' });
  expect(await writes()).toEqual([`PUT /filters/${before.filterId}`]);
  expect(await outputs()).toEqual(before);
  expect((await rulesOn(before.filterId)).map(([id, , expression]) => [id, expression])).toEqual(before.ruleIds.map((id) => [id, SECOND]).sort());
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('a rule added and a rule removed: one POST, one DELETE of that rule alone; the filter and the other rules stay', async () => {
  const before = await outputs();
  const { challenge: _removed, ...kept } = desired.rules;
  desired.rules = { ...kept, allow: 'block' };
  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toMatchObject({ create: 1, delete: 1, same: 5 }); // with the stack's owner id
  const after = await outputs();
  expect(after.filterId).toBe(before.filterId);
  expect(after.ruleIds.slice(0, 2)).toEqual(before.ruleIds.slice(0, 2));
  const added = after.ruleIds[2]!;
  const calls = await writes();
  expect(calls.sort()).toEqual(['POST /firewall/rules', `DELETE /firewall/rules/${before.ruleIds[2]}`].sort());
  const deleteRequest = (await sandbox.emulator.admin.requests()).find((r) => r.method === 'DELETE');
  expect(deleteRequest?.query ?? {}).not.toHaveProperty('delete_filter_if_unused');
  expect((await rulesOn(before.filterId)).map(([id]) => id)).toEqual([...before.ruleIds.slice(0, 2), added].sort());
  await expect(client.firewallRules.get({ zoneId, ruleId: before.ruleIds[2]! })).rejects.toThrow(/404/);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('drift on the filter and on a rule is found by refresh, shown by preview and undone by up', async () => {
  const { filterId, ruleIds } = await outputs();
  await client.filters.update({ zoneId, filterId, expression: SECOND, description: 'changed in the dashboard', paused: true });
  await client.firewallRules.update({ zoneId, ruleId: ruleIds[0]!, filter: { id: filterId }, action: 'log' });
  const refresh = await stack.refresh({ color: 'never' });
  expect(refresh.summary.resourceChanges).toMatchObject({ update: 2 });
  const { text, summary } = await previewDiff(stack);
  expect(summary).toMatchObject({ update: 2 });
  expect(text).toMatch(/~ description\s*:\s*"changed in the dashboard" => "Admin paths"/);
  expect(text).toMatch(/~ paused\s*:\s*true => false/);
  expect(text).toMatch(/~ action\s*:\s*"log" => "block"/);

  await stack.up({ color: 'never' });
  expect(await client.filters.get({ zoneId, filterId })).toMatchObject({ description: 'Admin paths', paused: false, expression: SECOND });
  expect(await client.firewallRules.get({ zoneId, ruleId: ruleIds[0]! })).toMatchObject({ action: 'block', filter: { id: filterId } });
  await stack.refresh({ color: 'never' });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('a second identical stack is refused clearly: the filter exists (10102), named with the ways out; nothing is created', async () => {
  const { filterId } = await outputs();
  const counts = (await sandbox.emulator.admin.inventory(zoneId)).counts;
  const second = await sandbox.stack('copy', program);
  const text = await engineFailure((onOutput) => second.up({ color: 'never', onOutput }));
  expect(text).toContain(`FirewallFilter 'admin-paths' in zone ${zoneId}: filter ${filterId} of this zone already has this expression`);
  expect(text).toContain("{ aliases: [{ name: '<old name>' }] } in its resource options");
  expect(text).toContain(`Only if filter ${filterId} was made outside this stack, take it over with adoptFilterId: '${filterId}'`);
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toEqual(counts);
  const resources = ((await second.exportStack()).deployment.resources ?? []) as Array<{ type: string }>;
  expect(resources.filter(holdsServiceObject)).toEqual([]);
});

test('destroy deletes the rules first, then the filter; the zone is back to its seed', async () => {
  const { filterId, ruleIds } = await outputs();
  await sandbox.emulator.admin.clearRequests();
  await stack.destroy({ color: 'never' });
  const calls = await writes();
  expect(calls.at(-1)).toBe(`DELETE /filters/${filterId}`);
  expect(calls.slice(0, -1).sort()).toEqual(ruleIds.map((id) => `DELETE /firewall/rules/${id}`).sort());
  await expect(client.filters.get({ zoneId, filterId })).rejects.toThrow(/404/);
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject(seeded);
});
