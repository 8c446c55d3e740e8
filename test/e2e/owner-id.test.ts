import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Stack } from '@pulumi/pulumi/automation';
import { run as orphans } from '../../src/cli/commands/orphans';
import { STACK_OWNER_TYPE } from '../../src/kinds';
import { CspPolicy } from '../../src/resources/csp-policy';
import { CustomRule } from '../../src/resources/custom-rule';
import { WafManagedRules } from '../../src/resources/waf-managed-rules';
import { MANAGED_RULESET_ID, WafMigration } from '../../src/resources/waf-migration';
import { splitMarked } from '../../src/schemas/owner-marker';
import { capture } from '../insights/helpers';
import { engine } from '../resilience/support';
import { testClient, zoneOfPlan } from '../support/emulator';
import { openSandbox, type EngineSandbox } from './harness';

// Two stacks of one project and stack name on two file backends (two teams that copied one template) are two owners
// (docs/ownership.md#owner-id): each draws its own owner id, so the second cannot adopt the first's objects without
// takeOver, its orphans command and its destroy leave them, and its WafManagedRules is refused on the first's zone.
// Before owner ids, their markers were equal: each of these took or deleted the other team's objects.
jest.setTimeout(300_000);

let sandbox: EngineSandbox;
let zoneId: string;
/** The program of each team, read at every run so a test can change it. */
const declared: Record<'a' | 'b', () => void> = { a: () => {}, b: () => {} };
let teamA: Stack;
let teamB: Stack;
const wait = { timeoutSeconds: 60, pollIntervalSeconds: 0.2 };
const MANAGED = [{ ref: 'managed', execute: { rulesetId: MANAGED_RULESET_ID } }];
const POLICY = { action: 'log' as const, expression: 'http.host eq "shop.example.com"', value: "script-src 'self'", description: 'checkout' };
const RULE = { action: 'block' as const, expression: '(http.request.uri.path eq "/admin")', ref: 'admin' };

beforeAll(async () => {
  sandbox = await openSandbox('owner-id');
  zoneId = zoneOfPlan(sandbox.emulator, 'pro');
  const program = (team: 'a' | 'b') => async () => {
    declared[team]();
    return {};
  };
  // The same stack name, on two backends, in one project (the harness names the project after the sandbox).
  teamA = await sandbox.stack('prod', program('a'), {}, 'team-a');
  teamB = await sandbox.stack('prod', program('b'), {}, 'team-b');
});
afterAll(() => sandbox?.close());

const client = () => testClient(sandbox.emulator);
/** The stack's owner id, from its state. */
async function ownerIdOf(stack: Stack): Promise<string | undefined> {
  const resources = ((await stack.exportStack()).deployment.resources ?? []) as Array<{ type: string; outputs?: Record<string, unknown> }>;
  return resources.find((resource) => resource.type === STACK_OWNER_TYPE)?.outputs?.ownerId as string | undefined;
}
/** The zone's objects as team A left them: its policy's and rule's markers, and the managed entry point's. */
async function teamAObjects() {
  const policy = (await client().cspPolicies.list({ zoneId }).toArray()).find((p) => p.id === ids.policy);
  const custom = await client().rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' });
  const managed = await client().rulesets.getEntrypoint({ zoneId });
  return {
    policy: splitMarked(policy?.description).marker,
    rule: splitMarked(custom.rules.find((r) => r.id === ids.rule)?.ref).marker,
    managed: splitMarked(managed.description).marker,
  };
}
const ids = { policy: '', rule: '' };
let markersOfA: Awaited<ReturnType<typeof teamAObjects>>;

test("team A's up draws its owner id and marks its policy, its custom rule and the managed entry point", async () => {
  declared.a = () => {
    const migration = new WafMigration('waf', { zoneId, mode: 'direct', wait });
    new WafManagedRules('managed', { zoneId, rules: MANAGED }, { dependsOn: [migration] });
    const policy = new CspPolicy('login', { zoneId, ...POLICY });
    const rule = new CustomRule('block', { zoneId, ...RULE });
    policy.policyId.apply((id) => (ids.policy = id));
    rule.ruleId.apply((id) => (ids.rule = id));
  };
  await teamA.up({ color: 'never' });
  expect(await ownerIdOf(teamA)).toMatch(/^[0-9a-f]{16}$/);
  markersOfA = await teamAObjects();
  expect(Object.values(markersOfA)).toEqual([expect.stringMatching(/^zg:/), expect.stringMatching(/^zg:/), expect.stringMatching(/^zg:/)]);
});

test("team B, of the same project and stack name on another backend, adopting A's policy without takeOver is refused before any write", async () => {
  declared.b = () => new CspPolicy('login', { zoneId, ...POLICY, adoptPolicyId: ids.policy });
  await sandbox.emulator.admin.clearRequests();
  const run = await engine((opts) => teamB.up(opts));
  expect(run.ok).toBe(false);
  expect(run.resourceErrors.map((e) => e.message).join('\n')).toContain(`refused before any change: it is marked as held by another owner (marker ${markersOfA.policy}`);
  expect((await sandbox.emulator.admin.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
  expect(await ownerIdOf(teamB)).not.toBe(await ownerIdOf(teamA));
  expect(await teamAObjects()).toEqual(markersOfA);
});

test("team B's WafManagedRules of the same name on A's zone is refused, as any other stack's", async () => {
  declared.b = () => new WafManagedRules('managed', { zoneId, rules: MANAGED });
  const run = await engine((opts) => teamB.up(opts));
  expect(run.ok).toBe(false);
  expect(run.resourceErrors.map((e) => e.message).join('\n')).toContain(`refused before any change: the entry point is marked as held by another owner (marker ${markersOfA.managed}`);
  expect(await teamAObjects()).toEqual(markersOfA);
});

test("team B's own objects of the same names: its orphans --delete and --delete-pending, and its destroy, leave A's objects", async () => {
  const mine = { policy: '', rule: '' };
  declared.b = () => {
    new CspPolicy('login', { zoneId, ...POLICY }).policyId.apply((id) => (mine.policy = id));
    new CustomRule('block', { zoneId, ...RULE }).ruleId.apply((id) => (mine.rule = id));
  };
  await teamB.up({ color: 'never' });
  expect([mine.policy, mine.rule]).not.toContain(ids.policy);
  expect(mine.rule).not.toBe(ids.rule);

  // B's export with its policy's create as a killed CLI leaves it: a pending create, no resource.
  const exported = (await teamB.exportStack()) as { deployment: { resources: Array<{ urn: string; type: string; inputs: unknown }>; pending_operations?: unknown[] } };
  const policy = exported.deployment.resources.find((r) => r.urn.endsWith('::login'))!;
  exported.deployment.resources = exported.deployment.resources.filter((r) => r !== policy);
  exported.deployment.pending_operations = [{ resource: policy, type: 'creating' }];
  const file = path.join(sandbox.dir, 'team-b-export.json');
  fs.writeFileSync(file, JSON.stringify(exported));
  const flags = ['--zone', zoneId, '--stack-export', file, '--base-url', sandbox.emulator.baseUrl, '--api-token', sandbox.emulator.credentials.apiToken];

  const refused = capture();
  expect(await orphans([...flags, '--delete', ids.policy], refused.io)).toBe(2);
  expect(refused.stderr()).toContain(ids.policy);
  const pending = capture();
  expect(await orphans([...flags, '--delete-pending'], pending.io)).toBe(0);
  // B's own policy, the one match of its pending create, is deleted; A's, of the same inputs, is another owner's.
  const policies = (await client().cspPolicies.list({ zoneId }).toArray()).map((p) => p.id);
  expect(policies).toContain(ids.policy);
  expect(policies).not.toContain(mine.policy);
  expect(await teamAObjects()).toEqual(markersOfA);

  await teamB.destroy({ color: 'never' });
  const rules = (await client().rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' })).rules.map((r) => r.id);
  expect(rules).toEqual([ids.rule]);
  expect(await teamAObjects()).toEqual(markersOfA);
  await teamA.preview({ expectNoChanges: true, color: 'never' });
});

test('two stacks adopting one unmarked policy at once: exactly one up succeeds, the other fails naming the marker that stands (3 rounds)', async () => {
  for (let round = 0; round < 3; round += 1) {
    const made = await client().cspPolicies.create({ zoneId, ...POLICY, enabled: true, description: `race ${round}` });
    const adopter = (team: string) =>
      sandbox.stack(`race-${round}-${team}`, async () => {
        new CspPolicy('race', { zoneId, ...POLICY, description: `race ${round}`, adoptPolicyId: made.id });
        return {};
      });
    const [x, y] = await Promise.all([adopter('x'), adopter('y')]);
    const runs = await Promise.all([engine((opts) => x.up(opts)), engine((opts) => y.up(opts))]);
    expect(runs.map((run) => run.ok).sort()).toEqual([false, true]);
    const standing = splitMarked((await client().cspPolicies.list({ zoneId }).toArray()).find((p) => p.id === made.id)?.description).marker;
    expect(standing).toMatch(/^zg:[0-9a-f]{10}$/);
    // Either the loser read the winner's marker before its write, or both wrote and the loser read it after.
    expect(runs.find((run) => !run.ok)!.resourceErrors.map((e) => e.message).join('\n')).toContain(`(marker ${standing} `);
    // The winner's next preview is clean: the policy is its own.
    await (runs[0]!.ok ? x : y).preview({ expectNoChanges: true, color: 'never' });
  }
});
