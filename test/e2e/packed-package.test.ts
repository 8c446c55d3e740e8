import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { ZoneGuardClient } from '../../src/client';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { assertEngineOnPath } from './harness';
import { zoneOfPlan } from '../support/emulator';
import { useRedisServer } from '../client/redis-server';

// A consumer's project: the package from `npm pack` installed in a folder outside this repo, a program that imports
// 'pulumi-zoneguard', and the Automation API of that project's own node_modules driving the real engine there (a
// child process, so nothing of this repo's module graph leaks in). The provider process the engine starts runs in
// that folder and resolves the stored closures' require('pulumi-zoneguard/providers') from its node_modules, exactly
// as for a user. The runs count their requests in a shared rate budget store (a real redis-server), as a fleet's
// would: the installed package loads its store client and limiter from the consumer's node_modules.
jest.setTimeout(300_000);

const redis = useRedisServer();

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

let emulator: StartedEmulator;
let client: ZoneGuardClient;
let project: string;
let zoneId: string;
let seeded: { cspPolicies: number; filters: number; firewallRules: number };
/** The ids the stack's outputs reported at create. */
let created: Record<string, string> = {};
/** The requests the emulator received during the first preview, and during the up. */
let previewCalls = 0;
let upCalls = 0;

const PROGRAM = `// A consumer's program, as it would be written with a full Pulumi CLI.
const pulumi = require('@pulumi/pulumi');
const { CspPolicy, CustomRule, FirewallRuleWithFilter } = require('pulumi-zoneguard');

const config = new pulumi.Config();
const zoneId = config.require('zoneId');

const checkout = new CspPolicy('checkout-scripts', {
  zoneId,
  action: 'log',
  expression: 'http.request.uri.path contains "/checkout"',
  value: "script-src 'self' https://js.stripe.com",
  description: 'Checkout: report scripts outside the payment provider',
});

const scanners = new FirewallRuleWithFilter('block-scanners', {
  zoneId,
  expression: '(http.user_agent contains "sqlmap" or http.user_agent contains "nikto")',
  action: 'block',
  description: 'Vulnerability scanners',
});

const admin = new CustomRule('admin-block', {
  zoneId,
  action: 'block',
  expression: 'starts_with(http.request.uri.path, "/admin")',
  ref: 'admin',
});

exports.policyId = checkout.policyId;
exports.customRuleId = admin.ruleId;
exports.ruleId = scanners.ruleId;
exports.filterId = scanners.filterId;
`;

// The driver: one engine command per run, the result as JSON on stdout's last line, the engine's output on stderr.
const DRIVER = `const path = require('node:path');
const { LocalWorkspace } = require('@pulumi/pulumi/automation');

const program = async () => {
  // The inline program is this folder's index.js, loaded afresh for each engine run.
  delete require.cache[require.resolve('./index.js')];
  return { ...require('./index.js') };
};

(async () => {
  const env = process.env;
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: 'dev', projectName: 'consumer', program },
    {
      workDir: __dirname,
      envVars: { PULUMI_HOME: path.join(__dirname, '.pulumi-home'), PULUMI_CONFIG_PASSPHRASE: 'consumer' },
      projectSettings: { name: 'consumer', runtime: 'nodejs', backend: { url: 'file://' + path.join(__dirname, '.state') } },
    },
  );
  await stack.setAllConfig({
    'zoneguard:baseUrl': { value: env.ZONEGUARD_TEST_BASE_URL },
    'zoneguard:apiToken': { value: env.ZONEGUARD_TEST_TOKEN, secret: true },
    'consumer:zoneId': { value: env.ZONEGUARD_TEST_ZONE },
  });
  const onOutput = (text) => process.stderr.write(text);
  const command = process.argv[2];
  let result;
  if (command === 'up') {
    const up = await stack.up({ color: 'never', onOutput });
    result = { changes: up.summary.resourceChanges, outputs: Object.fromEntries(Object.entries(up.outputs).map(([k, o]) => [k, o.value])) };
  } else if (command === 'preview') {
    result = { changes: (await stack.preview({ expectNoChanges: true, color: 'never', onOutput })).changeSummary };
  } else if (command === 'first-preview') {
    result = { changes: (await stack.preview({ color: 'never', onOutput })).changeSummary };
  } else if (command === 'destroy') {
    result = { changes: (await stack.destroy({ color: 'never', onOutput })).summary.resourceChanges };
  } else if (command === 'export') {
    result = (await stack.exportStack()).deployment;
  } else {
    throw new Error('unknown command ' + command);
  }
  process.stdout.write('\\n' + JSON.stringify(result) + '\\n');
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/** Runs the driver in the consumer's project (asynchronously: the emulator answers from this process). */
async function driver(command: 'first-preview' | 'up' | 'preview' | 'destroy' | 'export'): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ZONEGUARD_TEST_BASE_URL: emulator.baseUrl,
    ZONEGUARD_TEST_TOKEN: emulator.credentials.apiToken,
    ZONEGUARD_TEST_ZONE: zoneId,
    ZONEGUARD_RATE_BUDGET_STORE: redis().url,
  };
  delete env.NODE_PATH; // nothing but the project's own node_modules
  const { stdout } = await run(process.execPath, ['driver.js', command], { cwd: project, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

beforeAll(async () => {
  assertEngineOnPath();
  if (!fs.existsSync(path.join(root, 'dist/index.js'))) {
    throw new Error('dist/ is missing: build first (tsc -p tsconfig.build.json, or npm test, which builds)');
  }
  emulator = await startEmulator({ port: 0 });
  zoneId = zoneOfPlan(emulator, 'pro');
  client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  seeded = (await emulator.admin.inventory(zoneId)).counts;

  project = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-packed-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: root, encoding: 'utf8' });
  const tarball = stdout.trim().split('\n').pop()!;
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, main: 'index.js', dependencies: { 'pulumi-zoneguard': `file:./${tarball}` } }, null, 2),
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: project });
  fs.writeFileSync(path.join(project, 'index.js'), PROGRAM);
  fs.writeFileSync(path.join(project, 'driver.js'), DRIVER);
  fs.mkdirSync(path.join(project, '.state'));
});

afterAll(async () => {
  await emulator?.close();
  if (project && !process.env.ZONEGUARD_KEEP_E2E) fs.rmSync(project, { recursive: true, force: true });
});

test('the project resolves a real copy of the package and the engine from its own node_modules', () => {
  const installed = path.join(project, 'node_modules', 'pulumi-zoneguard');
  expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
  const resolve = (specifier: string) => require.resolve(specifier, { paths: [project] });
  expect(resolve('pulumi-zoneguard')).toBe(path.join(installed, 'dist', 'index.js'));
  expect(resolve('pulumi-zoneguard/providers')).toBe(path.join(installed, 'dist', 'providers', 'index.js'));
  expect(resolve('@pulumi/pulumi/automation')).toMatch(new RegExp(`^${project}/node_modules/@pulumi/pulumi/`));
  expect(fs.existsSync(path.join(installed, 'src'))).toBe(false);
});

test("the first preview checks the custom rule's create with the service (a dry run) and changes nothing", async () => {
  const preview = (await driver('first-preview')) as { changes: Record<string, number> };
  expect(preview.changes).toEqual({ create: 4 });
  const requests = await emulator.admin.requests();
  previewCalls = requests.length;
  // The zone has no custom rules yet: the dry run is the create-only write that would make the entry point with the rule.
  expect(requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path.replace(/^.*\/zones\/[0-9a-f]+/, '')} ${JSON.stringify(r.query)}`)).toEqual([
    'POST /rulesets {"dry_run":"true"}',
  ]);
  await expect(client.rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' })).rejects.toThrow(/404/);
  await emulator.admin.clearRequests();
});

test('up creates the policy and the rules; the emulator holds them as declared', async () => {
  const up = (await driver('up')) as { changes: Record<string, number>; outputs: Record<string, string> };
  upCalls = (await emulator.admin.requests()).length;
  expect(up.changes).toEqual({ create: 4 });
  created = up.outputs;
  const { policyId, ruleId, filterId } = created;
  expect(await client.cspPolicies.get({ zoneId, policyId: policyId! })).toMatchObject({
    action: 'log',
    expression: 'http.request.uri.path contains "/checkout"',
    value: "script-src 'self' https://js.stripe.com",
    // The service holds the description with the policy's owner marker after it (docs/ownership.md).
    description: expect.stringMatching(/^Checkout: report scripts outside the payment provider zg:[0-9a-f]{10}$/),
  });
  expect(await client.firewallRules.get({ zoneId, ruleId: ruleId! })).toMatchObject({
    action: 'block',
    description: 'Vulnerability scanners',
    filter: { id: filterId, expression: '(http.user_agent contains "sqlmap" or http.user_agent contains "nikto")' },
  });
  const custom = (await client.rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' })).rules;
  expect(custom).toEqual([expect.objectContaining({ id: created.customRuleId, action: 'block', ref: expect.stringMatching(/^admin zg:[0-9a-f]{10}$/) })]);
  // The up sent no dry run: its write is the service's check.
  expect((await emulator.admin.requests()).filter((r) => r.query.dry_run !== undefined)).toEqual([]);
  expect((await emulator.admin.inventory(zoneId)).counts).toMatchObject({
    cspPolicies: seeded.cspPolicies + 1,
    firewallRules: seeded.firewallRules + 1,
    filters: seeded.filters + 1,
  });
});

test("the preview's and the up's requests were counted in the store: one key, one entry a request, no credential", async () => {
  expect(upCalls).toBeGreaterThan(0);
  const probe = new Redis(redis().url);
  try {
    const keys = await probe.keys('*');
    expect(keys).toHaveLength(1);
    expect(await probe.zcard(keys[0]!)).toBe(previewCalls + upCalls);
    for (const secret of [emulator.credentials.apiToken, emulator.credentials.apiKey]) expect(keys[0]).not.toContain(secret);
  } finally {
    probe.disconnect();
  }
});

test('a second preview shows no change', async () => {
  const preview = (await driver('preview')) as { changes: Record<string, number> };
  expect(preview.changes).toEqual({ same: 4 });
});

test("the consumer's state holds small providers that load the installed package, and no credential", async () => {
  const deployment = (await driver('export')) as { resources: Array<{ type: string; inputs: Record<string, unknown> }> };
  const dynamic = deployment.resources.filter((r) => r.type.startsWith('pulumi-nodejs:dynamic/zoneguard:'));
  expect(dynamic.map((r) => r.type).sort()).toEqual([
    'pulumi-nodejs:dynamic/zoneguard:CspPolicy',
    'pulumi-nodejs:dynamic/zoneguard:CustomRule',
    'pulumi-nodejs:dynamic/zoneguard:FirewallRuleWithFilter',
  ]);
  for (const resource of dynamic) {
    const text = String(resource.inputs.__provider);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2048);
    expect(text).toContain("require('pulumi-zoneguard/providers')");
  }
  const stateDir = path.join(project, '.state');
  const state = fs
    .readdirSync(stateDir, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(stateDir, file))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => fs.readFileSync(file, 'utf8'))
    .join('\n');
  expect(state).toContain('pulumi-nodejs:dynamic/zoneguard:CspPolicy');
  // The key that tells the provider a preview from an up never reaches the state (check takes it out).
  expect(state).not.toContain('__zoneguardPreview');
  for (const secret of [emulator.credentials.apiToken, emulator.credentials.apiKey]) expect(state).not.toContain(secret);
});

test('destroy deletes the policy, the rules and the filter', async () => {
  const destroy = (await driver('destroy')) as { changes: Record<string, number> };
  expect(destroy.changes).toEqual({ delete: 4 });
  expect((await client.rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' })).rules).toEqual([]);
  await expect(client.cspPolicies.get({ zoneId, policyId: created.policyId! })).rejects.toThrow(/404/);
  await expect(client.firewallRules.get({ zoneId, ruleId: created.ruleId! })).rejects.toThrow(/404/);
  await expect(client.filters.get({ zoneId, filterId: created.filterId! })).rejects.toThrow(/404/);
  expect((await emulator.admin.inventory(zoneId)).counts).toMatchObject(seeded);
});
