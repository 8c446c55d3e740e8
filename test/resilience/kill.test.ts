import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { openSandbox, type EngineSandbox } from '../e2e/harness';
import {
  convergenceProblems,
  engine,
  freshZone,
  isAlive,
  programOf,
  providerHosts,
  pulumiCli,
  upOrThrow,
  waitFor,
  type Declared,
  type EngineRun,
  type ProcessInfo,
  unique,
} from './support';

// A process killed in the middle of `pulumi up`: the dynamic provider host (SIGKILL, as the OOM killer or a
// crashed container would), or the Pulumi CLI itself (a killed CI job). The create in flight is held in the emulator
// by a latency fault, so the kill lands while it is on the wire; where the service must have acted first, the host
// is stopped (SIGSTOP) until the emulator has answered, then killed, so the answer is lost.
//
// What a user does afterwards (Pulumi v3.259):
// - provider host killed: the run fails with "error reading from server: EOF" and Pulumi records the create as
//   failed (no pending operation). Run `pulumi up` again.
// - CLI killed: the stack stays locked and the create stays pending. `pulumi cancel` removes the lock;
//   `pulumi refresh --clear-pending-creates` drops the pending create (`--import-pending-creates <urn> <id>` is
//   accepted by this CLI but drops it as well without importing it, and dynamic providers cannot import anyway);
//   then `pulumi up`. An object the interrupted create made is taken over with the resource's adopt input
//   (adoptRuleId, adoptPolicyId), since `import` does not work for dynamic providers.
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
/** Every provider host a test signalled: any still alive at the end is ended (it was started by this process). */
const signalled = new Set<number>();
beforeAll(async () => {
  sandbox = await openSandbox('resilience-kill');
});
afterAll(async () => {
  for (const pid of signalled) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await sandbox?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long the emulator holds the create: time enough to act while it is on the wire, on a loaded machine too. */
const HOLD_MS = 3000;

type Kind = 'CspPolicy' | 'FirewallRuleWithFilter';
const ROUTE: Record<Kind, string> = { CspPolicy: 'page_guard/policies', FirewallRuleWithFilter: 'firewall/rules' };

interface Interruption {
  kind: Kind;
  victim: 'provider' | 'cli';
  /** Wait until the service has answered the create (the object exists) before the provider host dies. */
  afterServiceActed: boolean;
}

/**
 * Runs `up` and interrupts it during the first create of `kind`, as described above. Answers the run and the
 * processes killed. The faults are cleared afterwards.
 */
async function upInterrupted(stack: Stack, zoneId: string, how: Interruption): Promise<{ run: EngineRun; killed: ProcessInfo[] }> {
  const path = `/zones/${zoneId}/${ROUTE[how.kind]}`;
  const created = async () =>
    (await sandbox.emulator.admin.requests()).find((entry) => entry.method === 'POST' && entry.path.endsWith(path) && entry.status === 200);
  await sandbox.emulator.admin.setFaults({ latencyMs: HOLD_MS, match: { method: 'POST', pathPrefix: path } });
  await sandbox.emulator.admin.clearRequests();
  let killed: ProcessInfo[] = [];
  let interruption: Promise<void> | undefined;
  const interrupt = async () => {
    // The create has left the provider and waits in the emulator.
    await sleep(HOLD_MS / 3);
    const hosts = providerHosts();
    expect(hosts.length).toBeGreaterThan(0);
    for (const host of hosts) signalled.add(host.pid);
    if (how.victim === 'cli') {
      killed = pulumiCli();
      expect(killed.length).toBe(1);
      process.kill(killed[0]!.pid, 'SIGKILL');
      return;
    }
    if (how.afterServiceActed) {
      for (const host of hosts) process.kill(host.pid, 'SIGSTOP');
      await waitFor('the emulator to answer the create', created, HOLD_MS * 4);
    }
    for (const host of hosts) process.kill(host.pid, 'SIGKILL');
    killed = hosts;
  };
  const watch = (event: EngineEvent) => {
    const pre = event.resourcePreEvent?.metadata;
    if (!interruption && pre?.op === 'create' && pre.type.endsWith(`:${how.kind}`)) interruption = interrupt();
  };
  const run = await engine((opts) =>
    stack.up({
      ...opts,
      onEvent: (event) => {
        opts.onEvent(event);
        watch(event);
      },
    }),
  );
  await interruption;
  if (how.victim === 'cli') {
    // The provider host outlives the CLI and finishes the create: that is what makes the pending create real.
    await waitFor('the orphaned provider host to finish the create', created, HOLD_MS * 4);
  } else {
    // Let the held request run out: the emulator must not act on a create whose caller is gone.
    await sleep(HOLD_MS);
  }
  await sandbox.emulator.admin.clearFaults();
  expect(interruption).toBeDefined();
  return { run, killed };
}

test('the provider host killed while a create waits on the service: the run fails, and the next up converges', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'kill-waiting');
  const declared: Declared = {
    settings: { enabled: true },
    policies: [{ name: 'login', description: 'kill-waiting login', expression: 'http.host eq "login.kill-waiting.example"', value: "script-src 'self'", action: 'log' }],
    rules: [{ name: 'admin', description: 'kill-waiting admin', expression: '(http.request.uri.path eq "/kill-waiting")', action: 'block' }],
  };
  const stack = await sandbox.stack(unique('kill-waiting'), programOf(zoneId, () => declared));

  const { run, killed } = await upInterrupted(stack, zoneId, { kind: 'CspPolicy', victim: 'provider', afterServiceActed: false });
  expect(run.ok).toBe(false);
  expect(run.resourceErrors.map((e) => e.message).join('\n')).toMatch(/error reading from server: EOF|transport is closing|connection/i);
  for (const host of killed) expect(isAlive(host.pid)).toBe(false);
  // The service never acted on the create whose caller died: nothing to duplicate.
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts.policies).toBe(0);
  // Pulumi recorded the create as failed, not pending: nothing for the user to repair.
  expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);

  await upOrThrow(stack);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the provider host killed after the service created a firewall rule: the next up names the rule, and adopting it converges', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'kill-rule');
  const declared: Declared = {
    policies: [],
    rules: [{ name: 'admin', description: 'kill-rule admin', expression: '(http.request.uri.path eq "/kill-rule")', action: 'block' }],
  };
  const stack = await sandbox.stack(unique('kill-rule'), programOf(zoneId, () => declared));

  const { run } = await upInterrupted(stack, zoneId, { kind: 'FirewallRuleWithFilter', victim: 'provider', afterServiceActed: true });
  expect(run.ok).toBe(false);
  const [made] = (await sandbox.emulator.admin.inventory(zoneId)).firewallRules;
  expect(made).toBeDefined();

  // The state does not know the rule: the next create meets its filter, and the provider says what to do.
  const second = await engine((opts) => stack.up(opts));
  expect(second.ok).toBe(false);
  expect(second.resourceErrors.map((e) => e.message).join('\n')).toContain(`firewall rule ${made!.id} of this zone already matches this expression; take it over with adoptRuleId: '${made!.id}'`);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);

  declared.rules[0]!.adoptRuleId = made!.id;
  await upOrThrow(stack);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the provider host killed after the service created a CSP policy: the next up does not create a second policy', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'kill-policy');
  const declared: Declared = {
    policies: [{ name: 'login', description: 'kill-policy login', expression: 'http.host eq "login.kill-policy.example"', value: "script-src 'self'", action: 'log' }],
    rules: [],
  };
  const stack = await sandbox.stack(unique('kill-policy'), programOf(zoneId, () => declared));

  const { run } = await upInterrupted(stack, zoneId, { kind: 'CspPolicy', victim: 'provider', afterServiceActed: true });
  expect(run.ok).toBe(false);
  const [made] = (await sandbox.emulator.admin.inventory(zoneId)).policies;
  expect(made).toBeDefined();

  // Either the provider takes the policy the lost create made, or it stops and names it (as for firewall rules);
  // it must not make a second one.
  const second = await engine((opts) => stack.up(opts));
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  if (!second.ok) expect(second.resourceErrors.map((e) => e.message).join('\n')).toContain(made!.id);
});

test('the pulumi CLI killed mid-up: after pulumi cancel and refresh --clear-pending-creates, the next up names what the interrupted create made, and adopting it converges', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'kill-cli');
  const declared: Declared = {
    settings: { enabled: true, useConnectionUrlPath: true },
    policies: [{ name: 'login', description: 'kill-cli login', expression: 'http.host eq "login.kill-cli.example"', value: "script-src 'self'", action: 'log' }],
    rules: [{ name: 'admin', description: 'kill-cli admin', expression: '(http.request.uri.path eq "/kill-cli")', action: 'block' }],
  };
  const stack = await sandbox.stack(unique('kill-cli'), programOf(zoneId, () => declared));

  const { run } = await upInterrupted(stack, zoneId, { kind: 'FirewallRuleWithFilter', victim: 'cli', afterServiceActed: true });
  expect(run.ok).toBe(false);
  expect(run.error).toMatch(/SIGKILL/);
  const [made] = (await sandbox.emulator.admin.inventory(zoneId)).firewallRules;
  expect(made).toBeDefined();
  const pending = (await stack.exportStack()).deployment.pending_operations as Array<{ type: string; resource: { urn: string } }>;
  expect(pending).toEqual([expect.objectContaining({ type: 'creating', resource: expect.objectContaining({ urn: expect.stringMatching(/FirewallRuleWithFilter::admin$/) }) })]);

  // The killed CLI left its lock: every command refuses until `pulumi cancel`.
  const locked = await engine((opts) => stack.up(opts));
  expect(locked.error).toMatch(/the stack is currently locked/);
  await stack.cancel();
  await stack.refresh({ color: 'never', clearPendingCreates: true });
  expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);

  const second = await engine((opts) => stack.up(opts));
  expect(second.ok).toBe(false);
  expect(second.resourceErrors.map((e) => e.message).join('\n')).toContain(`take it over with adoptRuleId: '${made!.id}'`);

  declared.rules[0]!.adoptRuleId = made!.id;
  await upOrThrow(stack);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});
