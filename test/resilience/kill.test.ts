import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run as orphans } from '../../src/cli/commands/orphans';
import { OWNER_KEY } from '../../src/kinds/marker';
import { splitMarked } from '../../src/schemas/owner-marker';
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
  useKilledProcesses,
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
// What a user does afterwards (the Pulumi CLI v3.274; README "Recover after a killed run", test/resilience/README.md):
// - provider host killed: the run fails with "error reading from server: EOF" and Pulumi records the create as
//   failed (no pending operation). An object the service made anyway carries the resource's marker and is held by no
//   resource: the next `pulumi up` takes it (docs/ownership.md#leftovers).
// - CLI killed: the stack stays locked and the create stays pending. `pulumi cancel` removes the lock; the next
//   `pulumi up` takes what the pending create made, and warns of the pending create, which the engine keeps until
//   `pulumi refresh --clear-pending-creates` drops it (`--import-pending-creates <urn> <id>` drops it as well
//   without importing it, and dynamic providers cannot import anyway).
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
beforeAll(async () => (sandbox = await openSandbox('resilience-kill')));
const signalled = useKilledProcesses(() => sandbox);

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

/** `pulumi stack export | zoneguard orphans --zone <zone> --stack-export - <flags>`, as the recovery runs it: exit code and output. */
async function orphansOf(stack: Stack, zoneId: string, flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = path.join(sandbox.dir, `${stack.name}-export.json`);
  fs.writeFileSync(file, JSON.stringify(await stack.exportStack()));
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const connection = ['--base-url', sandbox.emulator.baseUrl, '--api-token', sandbox.emulator.credentials.apiToken];
  const code = await orphans(['--zone', zoneId, '--stack-export', file, ...flags, ...connection], io);
  return { code, stdout, stderr };
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
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts.cspPolicies).toBe(0);
  // Pulumi recorded the create as failed, not pending: nothing for the user to repair.
  expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);

  await upOrThrow(stack);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the provider host killed after the service created a firewall rule: the next up takes the rule, with no create call, and converges', async () => {
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

  // The state does not know the rule; it carries the resource's marker: the next create takes it (docs/ownership.md#leftovers).
  await sandbox.emulator.admin.clearRequests();
  const output = await upOrThrow(stack);
  expect(output).toContain(`FirewallRuleWithFilter 'admin' ${made!.id} in zone ${zoneId}: taking firewall rule ${made!.id}, which carries this resource's marker ${splitMarked(made!.ref).marker}: an interrupted run made it`);
  expect((await sandbox.emulator.admin.requests()).filter((request) => request.method !== 'GET')).toEqual([]);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the provider host killed after the service created a CSP policy: the next up takes it, and zoneguard orphans then lists nothing', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'kill-policy');
  const declared: Declared = {
    policies: [{ name: 'login', description: 'kill-policy login', expression: 'http.host eq "login.kill-policy.example"', value: "script-src 'self'", action: 'log' }],
    rules: [],
  };
  const stack = await sandbox.stack(unique('kill-policy'), programOf(zoneId, () => declared));

  const { run } = await upInterrupted(stack, zoneId, { kind: 'CspPolicy', victim: 'provider', afterServiceActed: true });
  expect(run.ok).toBe(false);
  const [made] = (await sandbox.emulator.admin.inventory(zoneId)).cspPolicies;
  expect(made).toBeDefined();
  expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);
  // The policy carries the owner marker of the resource whose create lost its answer.
  const marker = splitMarked(made!.description).marker;
  expect(marker).toMatch(/^zg:[0-9a-f]{10}$/);

  // The export records nothing of the zone yet, so it cannot say who holds what: refused, naming the way out.
  const early = await orphansOf(stack, zoneId, []);
  expect(early.code).toBe(2);
  expect(early.stderr).toContain('after a first pulumi up that recorded nothing, run pulumi up again first');

  // As the recovery says: up again. The create finds the policy its interrupted run made, by its marker, and takes it.
  await sandbox.emulator.admin.clearRequests();
  const output = await upOrThrow(stack);
  expect(output).toContain(`taking policy ${made!.id}, which carries this resource's marker ${marker}: an interrupted run made it`);
  expect((await sandbox.emulator.admin.requests()).filter((request) => request.method !== 'GET')).toEqual([]);
  const resources = (await stack.exportStack()).deployment.resources as Array<{ type: string; id?: string }>;
  expect(resources.find((resource) => resource.type.endsWith(':CspPolicy'))?.id).toBe(made!.id);
  expect(await orphansOf(stack, zoneId, [])).toMatchObject({ code: 0, stderr: '' });

  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  expect(convergenceProblems(inventory, declared)).toEqual([]);
  expect(inventory.cspPolicies.map((p) => p.id)).toEqual([made!.id]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the pulumi CLI killed mid-up: pulumi cancel, the next up takes what the pending create made, refresh --clear-pending-creates, and the stack converges quietly', async () => {
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
  // The rule's create is pending. So may be the other creates of the run: the client sends one request at a time to
  // a zone until the zone has answered once (refused credentials stop at once), so when the held create went first,
  // the others were still waiting at the kill. The recovery below is the same for them.
  const pending = (await stack.exportStack()).deployment.pending_operations as Array<{ type: string; resource: { urn: string } }>;
  const ruleCreate = expect.objectContaining({ type: 'creating', resource: expect.objectContaining({ urn: expect.stringMatching(/FirewallRuleWithFilter::admin$/) }) });
  expect(pending).toEqual(expect.arrayContaining([ruleCreate]));
  const ruleOperation = pending.find((operation) => operation.resource.urn.endsWith('FirewallRuleWithFilter::admin'))! as { resource: { urn: string; inputs?: Record<string, unknown> } };
  // The export records the pending create's owner marker (its __zoneguardOwner input): the rule it made carries it.
  expect(ruleOperation.resource.inputs?.[OWNER_KEY]).toBe(splitMarked(made!.ref).marker);

  // The killed CLI left its lock: every command refuses until `pulumi cancel`.
  const locked = await engine((opts) => stack.up(opts));
  expect(locked.error).toMatch(/the stack is currently locked/);
  await stack.cancel();

  // The next up takes the rule the pending create made (docs/ownership.md#leftovers); the engine warns of the pending
  // create, which it keeps until a refresh clears it.
  const output = await upOrThrow(stack);
  expect(output).toContain(`taking firewall rule ${made!.id}, which carries this resource's marker ${splitMarked(made!.ref).marker}: an interrupted run made it`);
  expect(output).toMatch(/pending operations? from previous deployment/i);
  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  expect(convergenceProblems(inventory, declared)).toEqual([]);
  expect(inventory.firewallRules.map((rule) => rule.id)).toEqual([made!.id]);

  await stack.refresh({ color: 'never', clearPendingCreates: true });
  expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);
  expect(await upOrThrow(stack)).not.toMatch(/pending operation/i);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});
