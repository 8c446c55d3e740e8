import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Stack } from '@pulumi/pulumi/automation';
import { holdsServiceObject, openSandbox, type EngineSandbox } from '../e2e/harness';
import { CustomRule } from '../../src/resources/custom-rule';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { CUSTOM_PHASE } from '../../src/schemas';
import { splitMarked } from '../../src/schemas/owner-marker';
import { testClient } from '../support/emulator';
import { convergenceProblems, engine, fleet, freshZone, programOf, unique, upOrThrow, type EngineRun } from './support';

// Credentials through the real engine: a wrong token, and the token of another zone, fail clearly (403, code 10000,
// the resource and the call named) and change nothing on the service, on up, refresh and destroy alike. No
// credential, right or wrong, appears in the state files, the engine's output or an error message.
//
// refresh and destroy run with --run-program here: without it the engine configures the providers with the config
// recorded by the last up (the token that worked), not the stack's current config. A user who rotated the token
// runs `pulumi up` (or refresh/destroy --run-program) so the new one is used.
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
let otherZoneToken: string;
const declared = fleet('creds');
const WRONG_TOKEN = 'zg_Wr0ngT0kenWr0ngT0kenWr0ngT0kenWr0ng';

beforeAll(async () => {
  sandbox = await openSandbox('resilience-credentials');
  otherZoneToken = (await sandbox.emulator.admin.zones()).find((zone) => zone.plan === 'business')!.token;
});
afterAll(() => sandbox?.close());

/** Every credential the emulator accepts, and the wrong one: none may show anywhere. */
async function allCredentials(): Promise<string[]> {
  const { credentials } = await sandbox.emulator.admin.info();
  return [WRONG_TOKEN, credentials.apiToken, credentials.apiKey, ...Object.values(credentials.zoneTokens)];
}

/** The stack's settings file (Pulumi.<stack>.yaml), where the config secrets are kept encrypted. */
function stackSettings(stack: Stack): string {
  return fs.readFileSync(path.join(sandbox.dir, stack.name, `Pulumi.${stack.name}.yaml`), 'utf8');
}

async function expectNoCredentialIn(texts: Record<string, string>): Promise<void> {
  for (const credential of await allCredentials()) {
    for (const [where, text] of Object.entries(texts)) {
      if (text.includes(credential)) throw new Error(`a credential (${credential.slice(0, 4)}…) appears in ${where}`);
    }
  }
}

/** Refused for its credentials: every resource that called the service names itself, the call, 403 and code 10000. */
function expectRefused(run: EngineRun): void {
  expect(run.ok).toBe(false);
  expect(run.resourceErrors.length).toBeGreaterThan(0);
  for (const { message } of run.resourceErrors) {
    expect(message).toMatch(/^(PageGuardSettings|CspPolicy|FirewallRuleWithFilter)\b[^\n]* zone [0-9a-f]{32}: [a-z][^\n:]*: (GET|POST|PUT|DELETE) \/zones\/[0-9a-f]{32}\S* failed: HTTP 403\b[^\n]*\b10000\b/);
  }
}

/** The token the emulator accepts for this zone only. */
async function zoneToken(zoneId: string): Promise<string> {
  return (await sandbox.emulator.admin.zones()).find((zone) => zone.id === zoneId)!.token;
}

/** zoneguard's resources in the state (their ids, inputs and outputs, the provider text aside): a refused run must leave them as they were. */
async function zoneguardState(stack: Stack) {
  const strip = ({ __provider: _provider, ...rest }: Record<string, unknown> = {}) => rest;
  const resources = ((await stack.exportStack()).deployment.resources ?? []) as Array<{
    urn: string;
    type: string;
    id?: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  }>;
  return resources
    .filter(holdsServiceObject)
    .map((resource) => ({ urn: resource.urn, id: resource.id, inputs: strip(resource.inputs), outputs: strip(resource.outputs) }))
    .sort((a, b) => a.urn.localeCompare(b.urn));
}

/** Runs a command with the stack's token replaced, and checks it was refused and changed nothing. */
async function refusedWith(stack: Stack, zoneId: string, token: string, command: (stack: Stack) => (opts: Parameters<Parameters<typeof engine>[0]>[0]) => Promise<unknown>) {
  await stack.setConfig('zoneguard:apiToken', { value: token, secret: true });
  const before = await sandbox.emulator.admin.inventory(zoneId);
  const stateBefore = await zoneguardState(stack);
  await sandbox.emulator.admin.clearRequests();
  const run = await engine(command(stack));
  expectRefused(run);
  const requests = await sandbox.emulator.admin.requests();
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((entry) => entry.status !== 403)).toEqual([]);
  expect(await sandbox.emulator.admin.inventory(zoneId)).toEqual(before);
  // The state keeps what it had: a refused run records nothing new.
  expect(await zoneguardState(stack)).toEqual(stateBefore);
  await expectNoCredentialIn({
    'the engine output': run.output,
    'the error': run.error ?? '',
    'the error messages': run.resourceErrors.map((e) => e.message).join('\n'),
    'the state files': sandbox.stateText(),
    'the stack settings': stackSettings(stack),
  });
  return run;
}

describe.each([
  { name: 'a wrong token', label: 'wrong', token: () => WRONG_TOKEN },
  { name: "another zone's token", label: 'other', token: () => otherZoneToken },
])('$name', ({ label, token }) => {
  const setUp = async () => {
    const zoneId = await freshZone(sandbox.emulator, `creds-${label}`);
    return { zoneId, stack: await sandbox.stack(unique(label), programOf(zoneId, () => declared)) };
  };

  test('up is refused clearly and creates nothing', async () => {
    const { zoneId, stack } = await setUp();
    await refusedWith(stack, zoneId, token(), (s) => (opts) => s.up(opts));
    expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject({ cspPolicies: 0, firewallRules: 0, filters: 0 });
  });

  test('refresh and destroy of a deployed stack are refused clearly and change nothing', async () => {
    const { zoneId, stack } = await setUp();
    // Deployed with the zone's own token, which works: the refusals below are about the credential alone.
    await stack.setConfig('zoneguard:apiToken', { value: await zoneToken(zoneId), secret: true });
    await upOrThrow(stack);
    expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);

    await refusedWith(stack, zoneId, token(), (s) => (opts) => s.refresh({ ...opts, runProgram: true }));
    await refusedWith(stack, zoneId, token(), (s) => (opts) => s.destroy({ ...opts, runProgram: true }));
    expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);

    // The refused --run-program runs recorded the wrong token as the providers' config: the cleanup runs the
    // program too, so the providers take the token of the stack config again.
    await stack.setConfig('zoneguard:apiToken', { value: await zoneToken(zoneId), secret: true });
    await stack.destroy({ color: 'never', runProgram: true });
    expect((await sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject({ cspPolicies: 0, firewallRules: 0, filters: 0 });
  });
});

test('no credential configured: every resource fails its check naming the settings to give, and nothing is sent', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'creds-none');
  const stack = await sandbox.stack(unique('none'), programOf(zoneId, () => declared));
  await stack.removeConfig('zoneguard:apiToken');
  await sandbox.emulator.admin.clearRequests();
  const run = await engine((opts) => stack.up(opts));
  expect(run.ok).toBe(false);
  expect(run.resourceErrors.length).toBeGreaterThan(0);
  for (const { message } of run.resourceErrors) expect(message).toMatch(/zoneguard: no credentials; set zoneguard:apiToken \(pulumi config set --secret zoneguard:apiToken <token>\) or ZONEGUARD_API_TOKEN/);
  expect(await sandbox.emulator.admin.requests()).toEqual([]);
});

// The Automation API's exportStack decrypts secrets (--show-secrets): the files on disk are what a reader of the state gets.
test('after a deployment with the token: the state files, the stack settings and the output hold no credential in clear', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'creds-clean');
  const stack = await sandbox.stack(unique('clean'), programOf(zoneId, () => declared));
  const output = await upOrThrow(stack);
  const preview = await engine((opts) => stack.preview({ ...opts, diff: true }));
  await expectNoCredentialIn({
    'the up output': output,
    'the preview output': preview.output,
    'the state files': sandbox.stateText(),
    'the stack settings': stackSettings(stack),
  });
  // The token is in the state, as the encrypted secret config: proof that the search above looked at the right files.
  expect(sandbox.stateText()).toContain('"zoneguard:apiToken"');
  await stack.destroy({ color: 'never' });
});

// Refused credentials stop per API of a zone (src/client/refused-credentials.ts): a token allowed custom rules and
// not page security (docs/service.md#authentication) writes the stack's rules; its page security settings fail alone.
test('a token allowed the rulesets and not page security: the custom rules are created, PageGuardSettings fails alone in one line', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'creds-apis');
  const { token } = await sandbox.emulator.admin.addToken({ zoneId, apis: ['rulesets'] });
  const stack = await sandbox.stack(
    unique('apis'),
    async () => {
      new PageGuardSettings('settings', { zoneId, enabled: true });
      new CustomRule('scanners', { zoneId, action: 'block', expression: '(http.user_agent contains "sqlmap")', ref: 'scanners' });
      new CustomRule('admin', { zoneId, action: 'managed_challenge', expression: '(http.request.uri.path eq "/admin")', ref: 'admin' });
      return {};
    },
    { 'zoneguard:apiToken': { value: token, secret: true } },
  );
  await sandbox.emulator.admin.clearRequests();
  // --continue-on-error: without it the engine starts no step after the first failure, and whether the rules' creates
  // started before the refusal is the engine's timing (every resource waits for the stack's owner id first).
  const run = await engine((opts) => stack.up({ ...opts, continueOnError: true }));
  expect(run.ok).toBe(false);
  expect(run.resourceErrors).toHaveLength(1);
  const message = run.resourceErrors[0]!.message;
  expect(message).not.toContain('\n');
  expect(message).toMatch(/^PageGuardSettings\b.* zone [0-9a-f]{32}: .*GET \/zones\/[0-9a-f]{32}\/page_guard failed: HTTP 403 Forbidden: 10000 Authentication error: the API token is not allowed the page_guard API of zone [0-9a-f]{32}/);
  const rules = (await testClient(sandbox.emulator).rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).rules;
  // Each ref ends in the rule's owner marker (docs/ownership.md).
  expect(rules.map((rule) => splitMarked(rule.ref).own).sort()).toEqual(['admin', 'scanners']);
  // One refused request: the page security API of this zone, stopped after it; the rules' calls all answered.
  const refused = (await sandbox.emulator.admin.requests()).filter((entry) => entry.status === 403);
  expect(refused.map((entry) => `${entry.method} ${entry.path}`)).toEqual([`GET /client/v4/zones/${zoneId}/page_guard`]);
  expect((await sandbox.emulator.admin.inventory(zoneId)).pageGuard?.enabled).toBe(false);
});
