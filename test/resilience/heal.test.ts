import type { LocalWorkspace, Stack } from '@pulumi/pulumi/automation';
import { CspPolicy } from '../../src/resources/csp-policy';
import { CustomRule } from '../../src/resources/custom-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { splitMarked } from '../../src/schemas/owner-marker';
import { holdsServiceObject, openSandbox, type EngineSandbox } from '../e2e/harness';
import { testClient } from '../support/emulator';
import { engine, freshZone, isAlive, providerHosts, pulumiCli, unique, upOrThrow, waitFor } from './support';

// A killed `up` heals on the next `up` (docs/ownership.md#leftovers), with the engine's checkpoints and without
// (PULUMI_SKIP_CHECKPOINTS=true, the mode for large stacks: docs/many-stacks.md). A stack of 150 resources of three
// kinds on two zones grows from one policy; its `up` is killed once about half of the creates have reached the
// service: the provider host (SIGKILL) with checkpoints, the CLI and the host without. The next `up` (after
// `pulumi cancel` for a killed CLI's lock) leaves exactly the program's objects: each made once, the killed run's
// leftovers taken with no create call, nothing orphaned.
jest.setTimeout(580_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('resilience-heal');
});
afterAll(() => sandbox?.close());

/** Per zone: policies, single-call firewall rules and custom rules (3 × 25 = 75, 150 over two zones). */
const EACH = 25;
const CREATE_PATHS = [/\/page_guard\/policies$/, /\/firewall\/rules$/, /\/rulesets\/[0-9a-f]+\/rules$/, /\/rulesets\/phases\/http_request_firewall_custom\/entrypoint$/, /\/rulesets$/];
const isCreate = (request: { method: string; path: string; status: number }) =>
  (request.method === 'POST' || request.method === 'PUT') && request.status === 200 && CREATE_PATHS.some((pattern) => pattern.test(request.path));

function programOf(zones: string[], full: () => boolean) {
  return async () => {
    for (const [z, zoneId] of zones.entries()) {
      const count = full() ? EACH : z === 0 ? 1 : 0;
      for (let n = 0; n < count; n++) {
        new CspPolicy(`policy-${z}-${n}`, { zoneId, action: 'log', expression: `http.host eq "p${n}.z${z}.example"`, value: "script-src 'self'", description: `heal ${z}-${n}` });
        if (!full()) continue;
        new FirewallRuleWithFilter(`rule-${z}-${n}`, { zoneId, expression: `(http.request.uri.path eq "/heal/${z}/${n}")`, action: 'block', description: `heal ${z}-${n}` });
        new CustomRule(`custom-${z}-${n}`, { zoneId, expression: `(http.request.uri.path eq "/custom/${z}/${n}")`, action: 'block', ref: `heal-${z}-${n}` });
      }
    }
    return {};
  };
}

/** What the zones hold of the program's objects, by kind: each own text must be there once. */
async function duplicatesAndMissing(zones: string[], strangerIds: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const [z, zoneId] of zones.entries()) {
    const inventory = await sandbox.emulator.admin.inventory(zoneId);
    const custom = await testClient(sandbox.emulator).rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' });
    const owns = {
      // The program's own policies: marked (a stranger made by hand carries none, another owner's another marker).
      policy: inventory.cspPolicies.filter((p) => strangerIds.every((id) => id !== p.id)).map((p) => splitMarked(p.description).own),
      rule: inventory.firewallRules.map((r) => r.description),
      custom: custom.rules.map((r) => splitMarked(r.ref).own),
    };
    for (let n = 0; n < EACH; n++) {
      for (const [kind, texts] of Object.entries(owns)) {
        const want = kind === 'custom' ? `heal-${z}-${n}` : `heal ${z}-${n}`;
        const found = texts.filter((text) => text === want).length;
        if (found !== 1) problems.push(`${kind} ${want}: ${found} on zone ${z}`);
      }
    }
    if (inventory.cspPolicies.length !== EACH + (z === 1 ? strangerIds.length : 0) || inventory.firewallRules.length !== EACH || inventory.filters.length !== EACH || custom.rules.length !== EACH) {
      problems.push(`zone ${z}: ${inventory.cspPolicies.length} policies, ${inventory.firewallRules.length} rules, ${inventory.filters.length} filters, ${custom.rules.length} custom rules`);
    }
  }
  return problems;
}

test.each([
  ['with the engine\'s checkpoints', false],
  ['with PULUMI_SKIP_CHECKPOINTS=true', true],
])('an up of 150 resources killed at about half, %s: the next up alone takes the leftovers, makes the rest once, and the preview after it is clean', async (_mode, skip) => {
  const label = skip ? 'heal-skip' : 'heal-ckpt';
  const zones = [await freshZone(sandbox.emulator, `${label}-a`), await freshZone(sandbox.emulator, `${label}-b`)];
  let full = false;
  const stack: Stack = await sandbox.stack(unique(label), programOf(zones, () => full));
  // The stack's first up, with checkpoints: it records its owner id (docs/ownership.md#owner-id).
  await upOrThrow(stack);
  if (skip) (stack.workspace as LocalWorkspace).envVars.PULUMI_SKIP_CHECKPOINTS = 'true';

  // Beside the program's: a policy made by hand and one another owner marked, of a program policy's fields. Neither
  // is ever taken (only this resource's exact marker counts).
  const client = testClient(sandbox.emulator);
  const strangers = [
    await client.cspPolicies.create({ zoneId: zones[1]!, action: 'log', expression: 'http.host eq "p0.z1.example"', value: "script-src 'self'", description: 'heal 1-0', enabled: true }),
    await client.cspPolicies.create({ zoneId: zones[1]!, action: 'log', expression: 'http.host eq "p1.z1.example"', value: "script-src 'self'", description: 'heal 1-1 zg:0123456789', enabled: true }),
  ];

  full = true;
  await sandbox.emulator.admin.setFaults({ latencyMs: 40, match: { method: 'POST' } });
  await sandbox.emulator.admin.clearRequests();
  const created = async () => (await sandbox.emulator.admin.requests()).filter(isCreate).length;
  const killed = engine((opts) => stack.up(opts));
  await waitFor('half of the creates to reach the service', async () => ((await created()) >= 75 ? true : undefined), 240_000);
  // The provider host is stopped, so the creates on the wire are answered with no one to hear; then killed. Without
  // checkpoints the CLI is killed too (it records nothing); with them it is left to record what finished, as after a
  // host killed for its memory (a CLI killed while it rewrites the state file can leave it truncated: the engine's own
  // hazard, not zoneguard's).
  const hosts = providerHosts();
  expect(hosts.length).toBeGreaterThan(0);
  for (const host of hosts) process.kill(host.pid, 'SIGSTOP');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const victims = [...(skip ? pulumiCli() : []), ...hosts];
  for (const victim of victims) process.kill(victim.pid, 'SIGKILL');
  const run = await killed;
  expect(run.ok).toBe(false);
  for (const victim of victims) await waitFor(`process ${victim.pid} to end`, () => (isAlive(victim.pid) ? undefined : true));
  await sandbox.emulator.admin.clearFaults();
  const madeByKilled = await created();
  expect(madeByKilled).toBeGreaterThanOrEqual(75);
  expect(madeByKilled).toBeLessThan(150 - 1);
  const recorded = ((await stack.exportStack()).deployment.resources ?? []).filter(holdsServiceObject).length;
  // Without checkpoints the state is as the last up left it (one policy); with them, what finished before the kill.
  if (skip) expect(recorded).toBe(1);

  // What the engine requires: the killed CLI's lock; then the next up.
  if (skip) await stack.cancel();
  await sandbox.emulator.admin.clearRequests();
  const healed = await engine((opts) => stack.up(opts));
  expect(healed.ok).toBe(true);
  const creates = await created();
  // Each taking line names its object; the engine prints a diagnostic twice (as it comes and in its summary).
  const taken = new Set(healed.output.match(/taking [a-z ]+ [0-9a-f]{32}, which carries this resource's marker zg:[0-9a-f]{10}: an interrupted run made it/g) ?? []).size;
  // Every object made once: the killed run's, then the rest; the leftovers (made, not recorded) taken with no create.
  expect(await duplicatesAndMissing(zones, strangers.map((stranger) => stranger.id))).toEqual([]);
  expect(madeByKilled + creates).toBe(150 - 1); // the first policy was made by the stack's first up
  expect(taken).toBeGreaterThan(0);
  expect(taken).toBe(madeByKilled - (recorded - 1));
  expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);
  const held = ((await stack.exportStack()).deployment.resources ?? []).map((resource: { id?: string }) => resource.id);
  for (const stranger of strangers) {
    expect(held).not.toContain(stranger.id);
    expect(await client.cspPolicies.get({ zoneId: zones[1]!, policyId: stranger.id })).toEqual(stranger);
  }
  await stack.preview({ expectNoChanges: true, color: 'never' });
});
