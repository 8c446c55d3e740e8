import type { Stack } from '@pulumi/pulumi/automation';
import { openSandbox, type EngineSandbox } from '../e2e/harness';
import { convergenceProblems, engine, fleet, freshZone, programOf, unique, upOrThrow, type Declared, type EngineRun } from './support';

// Rotated credentials through the real engine (README, "Rotate credentials"). The dynamic provider host gets its
// config only from the engine's Configure call, whose arguments are the inputs of the default `pulumi-nodejs`
// provider as the state recorded them at the last run of the program; the PULUMI_CONFIG variable the engine gives
// the host is `{}` (seen in this suite's runs with CLI v3.259). So a plain refresh or destroy after
// `pulumi config set --secret zoneguard:apiToken <new>` sends the old token, and only a run of the program (an up,
// or --run-program) records the new one. The emulator's admin API rotates and revokes the tokens, as a user would.
jest.setTimeout(300_000);

let sandbox: EngineSandbox;
const declared = fleet('rotation');
/** The hint each refused resource ends its line with (src/providers/kit/implementation.ts, settingHint). */
const HINT =
  'pulumi refresh, destroy and preview --refresh use the credentials of the last pulumi up: after changing them, run pulumi up without --refresh, or add --run-program to refresh and destroy';
const RESOURCES = 1 + declared.policies.length + declared.rules.length;

beforeAll(async () => {
  sandbox = await openSandbox('rotation');
});
afterAll(() => sandbox?.close());

/** A deployed stack on a fresh zone, with a token of its own for the zone (so rotating it touches no other test). */
async function deployed(label: string, want: () => Declared = () => declared): Promise<{ zoneId: string; stack: Stack; token: string }> {
  const zoneId = await freshZone(sandbox.emulator, label);
  const { token } = await sandbox.emulator.admin.addToken({ zoneId });
  const stack = await sandbox.stack(unique(label), programOf(zoneId, want), { 'zoneguard:apiToken': { value: token, secret: true } });
  await upOrThrow(stack);
  expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
  return { zoneId, stack, token };
}

/** Revokes `token` for a new one of the same zone, and sets the new one in the stack config, as a user would. */
async function rotate(stack: Stack, token: string): Promise<string> {
  const { token: next } = await sandbox.emulator.admin.rotateToken(token);
  await stack.setConfig('zoneguard:apiToken', { value: next, secret: true });
  return next;
}

/** A run refused for its credentials: one line per resource, each with the 403 and the hint, and nothing changed. */
async function expectRefusedWithHint(zoneId: string, run: EngineRun, inventoryBefore: unknown): Promise<void> {
  expect(run.ok).toBe(false);
  expect(run.resourceErrors).toHaveLength(RESOURCES);
  for (const { message } of run.resourceErrors) {
    expect(message).not.toContain('\n');
    expect(message).toContain('failed: HTTP 403');
    expect(message.endsWith(HINT)).toBe(true);
  }
  const requests = await sandbox.emulator.admin.requests();
  expect([...new Set(requests.map((entry) => entry.status))]).toEqual([403]);
  // Refused credentials stop at once per API of a zone (src/client/refused-credentials.ts): one zone here, whose
  // settings, CSP policies, firewall rules and filters are four APIs at most, each refused once, and every resource
  // after the first refusal of its API refused without a request of its own, where every resource sent its own before.
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.length).toBeLessThanOrEqual(4);
  expect(await sandbox.emulator.admin.inventory(zoneId)).toEqual(inventoryBefore);
}

/** Runs a command that must succeed, and answers the service requests it made that were not answered 2xx. */
async function succeeds(command: Parameters<typeof engine>[0]): Promise<string[]> {
  await sandbox.emulator.admin.clearRequests();
  const run = await engine(command);
  if (!run.ok) throw new Error(`the engine command failed:\n${run.resourceErrors.map((e) => e.message).join('\n')}\n${run.error ?? ''}`);
  const requests = await sandbox.emulator.admin.requests();
  expect(requests.length).toBeGreaterThan(0);
  // A read answered 404 is an answer, not a refusal: a legacy rule's delete reads the zone's custom phase, which a zone
  // without custom rules does not have (src/providers/kit/conversion.ts).
  const answered = (entry: { method: string; status: number }) => (entry.status >= 200 && entry.status <= 299) || (entry.method === 'GET' && entry.status === 404);
  return requests.filter((entry) => !answered(entry)).map((entry) => `${entry.method} ${entry.path}: ${entry.status}`);
}

test('after a rotation: plain refresh and destroy are refused with the hint; refresh --run-program, a no-change up and destroy --run-program take the new token', async () => {
  const { zoneId, stack, token: first } = await deployed('rotated');
  const second = await rotate(stack, first);

  // Plain refresh and plain destroy: the providers get the token of the last up, which the service now refuses.
  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  await sandbox.emulator.admin.clearRequests();
  await expectRefusedWithHint(zoneId, await engine((opts) => stack.refresh(opts)), inventory);
  await sandbox.emulator.admin.clearRequests();
  await expectRefusedWithHint(zoneId, await engine((opts) => stack.destroy(opts)), inventory);
  // preview --refresh: its refresh step reads with the same recorded token, before the program runs.
  await sandbox.emulator.admin.clearRequests();
  await expectRefusedWithHint(zoneId, await engine((opts) => stack.preview({ ...opts, refresh: true })), inventory);

  // refresh --run-program: the program runs, the providers get the new token, and the state records it, so a
  // plain refresh afterwards works too.
  expect(await succeeds((opts) => stack.refresh({ ...opts, runProgram: true }))).toEqual([]);
  expect(await succeeds((opts) => stack.refresh(opts))).toEqual([]);

  // Rotated again: a no-change up changes nothing (no replacement: the provider's new config is no change of the
  // resources) and records the new token for the plain refresh after it.
  const third = await rotate(stack, second);
  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toEqual({ same: RESOURCES + 2 }); // with the stack and its owner id
  expect(await succeeds((opts) => stack.refresh(opts))).toEqual([]);

  // Rotated once more: destroy --run-program deletes everything with the newest token.
  await rotate(stack, third);
  expect(await succeeds((opts) => stack.destroy({ ...opts, runProgram: true }))).toEqual([]);
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject({ cspPolicies: 0, firewallRules: 0, filters: 0 });
});

test('the reverse: an up that failed with a wrong token recorded it; after the right one is set back, plain refresh is refused and refresh --run-program works', async () => {
  let current = declared;
  const { zoneId, stack, token } = await deployed('reverse', () => current);
  // A token of the zone that the service then revokes: as a user who pasted an old one.
  const { token: wrong } = await sandbox.emulator.admin.addToken({ zoneId });
  await sandbox.emulator.admin.revokeToken(wrong);
  await stack.setConfig('zoneguard:apiToken', { value: wrong, secret: true });
  // An up that changes nothing sends nothing (diff is local), so the failed up is one that adds a policy.
  current = { ...declared, policies: [...declared.policies, { ...declared.policies[0]!, name: 'added', description: 'rotation added' }] };
  const failedUp = await engine((opts) => stack.up(opts));
  expect(failedUp.ok).toBe(false);
  expect(failedUp.resourceErrors.map((e) => e.message)).toEqual([expect.stringContaining('failed: HTTP 403')]);

  current = declared;
  await stack.setConfig('zoneguard:apiToken', { value: token, secret: true });
  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  await sandbox.emulator.admin.clearRequests();
  await expectRefusedWithHint(zoneId, await engine((opts) => stack.refresh(opts)), inventory);

  expect(await succeeds((opts) => stack.refresh({ ...opts, runProgram: true }))).toEqual([]);
  expect(await succeeds((opts) => stack.destroy(opts))).toEqual([]);
  expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject({ cspPolicies: 0, firewallRules: 0, filters: 0 });
});
