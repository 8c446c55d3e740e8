import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { testClient } from '../support/emulator';
import { openSandbox, type EngineSandbox } from '../e2e/harness';
import { sealedPreview, sealedUp } from '../e2e/sealing';
import { convergenceProblems, engine, freshZone, programOf, providerHosts, pulumiCli, unique, upOrThrow, useKilledProcesses, type Declared, type EngineRun, type ProcessInfo } from './support';

// A FirewallRuleWithFilter replaced (a new expression) whose `up` stops between the new rule's create and the old
// one's delete (the engine's order: create before delete): the seal refuses the delete, the service fails it, or the
// provider host is killed while it waits. The state then holds the new rule, and the old one as an entry kept only to
// delete, which the engine deletes last in the next run. The next `up` runs the previous program (the old expression):
// its create takes the old rule back, since it carries the resource's marker (docs/ownership.md#leftovers), and the
// kept entry's delete must then leave it. It once deleted it: the declared rule was gone, and only `preview --refresh`
// said so.
jest.setTimeout(300_000);

let sandbox: EngineSandbox;
beforeAll(async () => (sandbox = await openSandbox('resilience-replace')));
const signalled = useKilledProcesses(() => sandbox);

const OLD = (label: string) => `(http.request.uri.path eq "/${label}/old")`;
const NEW = (label: string) => `(http.request.uri.path eq "/${label}/new")`;
const declaredWith = (label: string, expression: string): Declared => ({
  policies: [],
  rules: [{ name: 'admin', description: `${label} admin`, expression, action: 'block' }],
});

/** The ids of the state's entries kept only to delete (`delete: true`). */
async function pendingDeletes(stack: Stack): Promise<string[]> {
  const { resources } = (await stack.exportStack()).deployment as { resources: Array<{ id?: string; delete?: boolean }> };
  return resources.filter((resource) => resource.delete === true).map((resource) => resource.id ?? '');
}

interface Interrupted {
  /** Whether the up failed, and what it printed. */
  run: { failed: boolean; text: string };
  /** What the failed run must have said. */
  said: RegExp | string;
}

/** An engine run of ./support, as sealedUp answers it. */
const outcome = (run: EngineRun) => ({ failed: !run.ok, text: `${run.resourceErrors.map((e) => e.message).join('\n')}\n${run.error ?? ''}` });

/** A scenario: the replacing up, stopped between the create and the delete. The program already declares the new expression. */
type Interrupt = (stack: Stack, zoneId: string) => Promise<Interrupted>;

/**
 * Runs the replacing up and SIGKILLs the processes `victims` names while the old rule's delete reads it: every read of
 * the zone's rules is held in the emulator, so the delete call is never sent.
 */
async function killedDuringDelete(stack: Stack, zoneId: string, victims: () => ProcessInfo[]): Promise<Interrupted> {
  const HOLD_MS = 3000;
  await sandbox.emulator.admin.setFaults({ latencyMs: HOLD_MS, match: { method: 'GET', pathPrefix: `/zones/${zoneId}/firewall/rules` } });
  let interruption: Promise<void> | undefined;
  const kill = async () => {
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS / 2));
    for (const victim of victims()) {
      signalled.add(victim.pid);
      process.kill(victim.pid, 'SIGKILL');
    }
  };
  const watch = (event: EngineEvent) => {
    const pre = event.resourcePreEvent?.metadata;
    if (!interruption && pre?.op === 'delete-replaced' && pre.type.endsWith(':FirewallRuleWithFilter')) interruption = kill();
  };
  const run = await engine((opts) => stack.up({ ...opts, onEvent: (event) => (opts.onEvent(event), watch(event)) }));
  await interruption;
  await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
  await sandbox.emulator.admin.clearFaults();
  expect(interruption).toBeDefined();
  return { run: outcome(run), said: /error reading from server: EOF|transport is closing|connection/i };
}

const scenarios: Array<[string, Interrupt]> = [
  [
    '(a) a sealed up whose seal refuses the old rule\'s delete (the rule was edited in the dashboard after the preview)',
    async (stack, zoneId) => {
      const { seal, report } = await sealedPreview(sandbox, stack);
      expect(report).toContain('| replace | FirewallRuleWithFilter `admin` | expression |');
      const client = testClient(sandbox.emulator);
      const [old] = (await sandbox.emulator.admin.inventory(zoneId)).firewallRules;
      await client.firewallRules.update({ zoneId, ruleId: old!.id, filter: { id: old!.filter.id }, action: 'managed_challenge', ref: old!.ref, description: old!.description });
      return { run: await sealedUp(stack, seal), said: 'changed on the service since the sealed preview: action "block" → "managed_challenge"' };
    },
  ],
  [
    '(b) an up whose delete of the old rule the service fails',
    async (stack, zoneId) => {
      // 501 is not retried (src/client/retry.ts): the delete fails at once.
      await sandbox.emulator.admin.setFaults({ serverErrors: 20, serverErrorStatus: 501, match: { method: 'DELETE', pathPrefix: `/zones/${zoneId}/firewall/rules` } });
      const run = await engine((opts) => stack.up(opts));
      await sandbox.emulator.admin.clearFaults();
      return { run: outcome(run), said: /deleting the rule and its filter: DELETE \S+ failed: HTTP 501/ };
    },
  ],
  [
    '(c) an up whose provider host is killed while the old rule\'s delete reads it (the owner marker\'s read, before the delete call)',
    (stack, zoneId) => killedDuringDelete(stack, zoneId, providerHosts),
  ],
  [
    '(d) an up killed whole (the CLI and its provider host, as a killed CI job) while the old rule\'s delete reads it; then pulumi cancel',
    async (stack, zoneId) => {
      const interrupted = await killedDuringDelete(stack, zoneId, () => [...pulumiCli(), ...providerHosts()]);
      await stack.cancel();
      return { ...interrupted, said: /SIGKILL/ };
    },
  ],
];

describe.each(scenarios)('%s', (_name, interrupt) => {
  test('then an up of the previous program takes the old rule back and keeps it; preview --refresh and up find it as declared, once', async () => {
    const label = unique('replace');
    const zoneId = await freshZone(sandbox.emulator, 'replace');
    let declared = declaredWith(label, OLD(label));
    const stack = await sandbox.stack(label, programOf(zoneId, () => declared));
    await upOrThrow(stack);
    const [old] = (await sandbox.emulator.admin.inventory(zoneId)).firewallRules;

    declared = declaredWith(label, NEW(label));
    const { run, said } = await interrupt(stack, zoneId);
    expect(run.failed).toBe(true);
    expect(run.text).toMatch(said);
    // Stopped between the two: the new rule made, the old one still on the zone and kept in the state to delete.
    const between = (await sandbox.emulator.admin.inventory(zoneId)).firewallRules.map((rule) => rule.filter.expression).sort();
    expect(between).toEqual([NEW(label), OLD(label)]);
    expect(await pendingDeletes(stack)).toEqual([old!.id]);

    declared = declaredWith(label, OLD(label));
    const output = await upOrThrow(stack);
    expect(output).toContain(`taking firewall rule ${old!.id}, which carries this resource's marker`);
    expect(output).toContain(`not deleting firewall rule ${old!.id}: the state kept it to delete`);
    expect(await pendingDeletes(stack)).toEqual([]);
    expect((await stack.exportStack()).deployment.pending_operations ?? []).toEqual([]);
    expect((await stack.outputs())['rule-admin']?.value).toBe(old!.id);
    expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
    // The stack, its owner id and the rule: unchanged after a refresh, and again after an up.
    expect((await stack.preview({ refresh: true, color: 'never' })).changeSummary).toEqual({ same: 3 });
    expect((await stack.up({ color: 'never' })).summary.resourceChanges).toEqual({ same: 3 });
    expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  });
});

const THIRD = (label: string) => `(http.request.uri.path eq "/${label}/third")`;

/**
 * A stack whose rule's replacement `scenarios[scenario]` stopped between the create and the delete: the state keeps the
 * old rule to delete. `declare` sets the program's expression for the next run and answers what it declares.
 */
async function stoppedReplacement(prefix: string, scenario: number) {
  const label = unique(prefix);
  const zoneId = await freshZone(sandbox.emulator, prefix);
  let declared = declaredWith(label, OLD(label));
  const stack = await sandbox.stack(label, programOf(zoneId, () => declared));
  await upOrThrow(stack);
  const [old] = (await sandbox.emulator.admin.inventory(zoneId)).firewallRules;
  declared = declaredWith(label, NEW(label));
  const [, interrupt] = scenarios[scenario]!;
  expect((await interrupt(stack, zoneId)).run.failed).toBe(true);
  expect(await pendingDeletes(stack)).toEqual([old!.id]);
  const declare = (expression: (label: string) => string) => (declared = declaredWith(label, expression(label)));
  return { label, zoneId, stack, old: old!, declare };
}

test.each([
  ['the new program', NEW],
  ['a third program (another expression again): a new rule is made, and the old one is not taken', THIRD],
])('(b) then an up of %s: the old rule is deleted, the declared one kept', async (_case, next) => {
  const { zoneId, stack, declare } = await stoppedReplacement('replace-forward', 1);
  const declared = declare(next);
  const output = await upOrThrow(stack);
  expect(output).not.toContain('taking firewall rule');
  expect(await pendingDeletes(stack)).toEqual([]);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  expect((await stack.preview({ refresh: true, color: 'never' })).changeSummary).toEqual({ same: 3 });
});

test('(a) then a sealed preview and the up that keeps its seal, of the previous program: the old rule taken back, the new one deleted, nothing refused', async () => {
  const { label, zoneId, stack, old, declare } = await stoppedReplacement('replace-sealed', 0);
  // The state holds the new rule and, kept to delete, the old one (edited since): the seal has an entry for each.
  const declared = declare(OLD);
  const { seal, report } = await sealedPreview(sandbox, stack);
  expect(report).toContain(`- FirewallRuleWithFilter \`admin\` replaced: expression \`${NEW(label)}\` → \`${OLD(label)}\``);
  const up = await sealedUp(stack, seal);
  expect(up.text).not.toContain('since the sealed preview');
  expect(up.failed).toBe(false);
  expect(up.text).toContain(`not deleting firewall rule ${old.id}: the state kept it to delete`);
  expect(await pendingDeletes(stack)).toEqual([]);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  expect((await stack.preview({ refresh: true, color: 'never' })).changeSummary).toEqual({ same: 3 });
});

test('(b) then an up --refresh of the previous program (the refresh reads the entry kept to delete): the old rule taken back and kept', async () => {
  const { zoneId, stack, old, declare } = await stoppedReplacement('replace-refresh', 1);
  const declared = declare(OLD);
  const run = await engine((opts) => stack.up({ ...opts, refresh: true }));
  expect(run.resourceErrors).toEqual([]);
  expect(run.output).toContain(`not deleting firewall rule ${old.id}: the state kept it to delete`);
  expect(await pendingDeletes(stack)).toEqual([]);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  expect((await stack.preview({ refresh: true, color: 'never' })).changeSummary).toEqual({ same: 3 });
});
