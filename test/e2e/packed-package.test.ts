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
// The package shares the program's @pulumi/pulumi (a peer dependency): consumers pinned at the oldest version of the
// package's range and at the newest the registry serves each run, with one copy; a second copy stops at load.
jest.setTimeout(300_000);

const redis = useRedisServer();

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** The package's range of @pulumi/pulumi, its oldest version, and the newest the registry serves today. */
const range = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> })
  .peerDependencies['@pulumi/pulumi']!;
const oldest = /^\^(\d+\.\d+\.\d+)$/.exec(range)![1]!;
let newest: string;

let emulator: StartedEmulator;
let client: ZoneGuardClient;
let tarball: string;
let packs: string;
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

/** Runs the driver in a consumer's project (asynchronously: the emulator answers from this process). */
async function driver(
  command: 'first-preview' | 'up' | 'preview' | 'destroy' | 'export',
  folder: string = project,
): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ZONEGUARD_TEST_BASE_URL: emulator.baseUrl,
    ZONEGUARD_TEST_TOKEN: emulator.credentials.apiToken,
    ZONEGUARD_TEST_ZONE: zoneId,
    ZONEGUARD_RATE_BUDGET_STORE: redis().url,
  };
  delete env.NODE_PATH; // nothing but the project's own node_modules
  const { stdout } = await run(process.execPath, ['driver.js', command], { cwd: folder, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

/** A consumer's project pinned at one @pulumi/pulumi, with the packed package: `npm install` there, as a user would. */
async function consumer(pulumiVersion: string): Promise<string> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `zoneguard-packed-${pulumiVersion}-`));
  const dependencies = { '@pulumi/pulumi': pulumiVersion, 'pulumi-zoneguard': `file:${path.join(packs, tarball)}` };
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'consumer', private: true, main: 'index.js', dependencies }, null, 2));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: folder });
  fs.writeFileSync(path.join(folder, 'index.js'), PROGRAM);
  fs.writeFileSync(path.join(folder, 'driver.js'), DRIVER);
  fs.mkdirSync(path.join(folder, '.state'));
  return fs.realpathSync(folder);
}

const installedVersion = (folder: string) =>
  (JSON.parse(fs.readFileSync(path.join(folder, 'node_modules', '@pulumi', 'pulumi', 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  assertEngineOnPath();
  if (!fs.existsSync(path.join(root, 'dist/index.js'))) {
    throw new Error('dist/ is missing: build first (tsc -p tsconfig.build.json, or npm test, which builds)');
  }
  emulator = await startEmulator({ port: 0 });
  zoneId = zoneOfPlan(emulator, 'pro');
  client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  seeded = (await emulator.admin.inventory(zoneId)).counts;
  newest = (await run('npm', ['view', '@pulumi/pulumi', 'version'], { encoding: 'utf8' })).stdout.trim();

  packs = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-pack-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: root, encoding: 'utf8' });
  tarball = stdout.trim().split('\n').pop()!;
  project = await consumer(oldest);
});

/** Every folder this file made, removed at the end. */
const folders = () => [project, newestProject, secondCopy, packs].filter((folder): folder is string => folder !== undefined);
let newestProject: string | undefined;
let secondCopy: string | undefined;

afterAll(async () => {
  await emulator?.close();
  if (!process.env.ZONEGUARD_KEEP_E2E) for (const folder of folders()) fs.rmSync(folder, { recursive: true, force: true });
});

test(`the project pinned at the oldest @pulumi/pulumi of the range (${oldest}) holds that one copy, shared with the package`, () => {
  expect(installedVersion(project)).toBe(oldest);
  expect(fs.existsSync(path.join(project, 'node_modules', 'pulumi-zoneguard', 'node_modules', '@pulumi'))).toBe(false);
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
  expect(preview.changes).toEqual({ create: 5 }); // the stack, its owner id, the policy and the two rules
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
  expect(up.changes).toEqual({ create: 5 }); // with the stack's owner id
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
  expect(preview.changes).toEqual({ same: 5 }); // with the stack's owner id
});

test("the consumer's state holds small providers that load the installed package, and no credential", async () => {
  const deployment = (await driver('export')) as { resources: Array<{ type: string; inputs: Record<string, unknown> }> };
  const dynamic = deployment.resources.filter((r) => r.type.startsWith('pulumi-nodejs:dynamic/zoneguard:'));
  expect(dynamic.map((r) => r.type).sort()).toEqual([
    'pulumi-nodejs:dynamic/zoneguard:CspPolicy',
    'pulumi-nodejs:dynamic/zoneguard:CustomRule',
    'pulumi-nodejs:dynamic/zoneguard:FirewallRuleWithFilter',
    'pulumi-nodejs:dynamic/zoneguard:StackOwner',
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
  expect(destroy.changes).toEqual({ delete: 5 }); // with the stack's owner id
  expect((await client.rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' })).rules).toEqual([]);
  await expect(client.cspPolicies.get({ zoneId, policyId: created.policyId! })).rejects.toThrow(/404/);
  await expect(client.firewallRules.get({ zoneId, ruleId: created.ruleId! })).rejects.toThrow(/404/);
  await expect(client.filters.get({ zoneId, filterId: created.filterId! })).rejects.toThrow(/404/);
  expect((await emulator.admin.inventory(zoneId)).counts).toMatchObject(seeded);
});

describe('a consumer pinned at the newest @pulumi/pulumi the registry serves', () => {
  beforeAll(async () => {
    newestProject = await consumer(newest);
  });

  test('holds that one copy, shared with the package', () => {
    expect(installedVersion(newestProject!)).toBe(newest);
    expect(fs.existsSync(path.join(newestProject!, 'node_modules', 'pulumi-zoneguard', 'node_modules', '@pulumi'))).toBe(false);
  });

  test('up creates, a second preview shows no change, destroy puts the zone back', async () => {
    expect(((await driver('up', newestProject)) as { changes: Record<string, number> }).changes).toEqual({ create: 5 }); // with the stack's owner id
    expect(((await driver('preview', newestProject)) as { changes: Record<string, number> }).changes).toEqual({ same: 5 });
    expect(((await driver('destroy', newestProject)) as { changes: Record<string, number> }).changes).toEqual({ delete: 5 });
    expect((await emulator.admin.inventory(zoneId)).counts).toMatchObject(seeded);
  });
});

test('a project pinned below the range is refused by npm install, which names the peer dependency', async () => {
  const [major, minor] = oldest.split('.').map(Number);
  const below = `${major}.${minor! - 1}.0`;
  secondCopy = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-packed-below-'));
  const dependencies = { '@pulumi/pulumi': below, 'pulumi-zoneguard': `file:${path.join(packs, tarball)}` };
  fs.writeFileSync(path.join(secondCopy, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies }));
  const failed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: secondCopy, encoding: 'utf8' }).then(
    () => undefined,
    (error: { stderr: string }) => error,
  );
  expect(failed?.stderr).toContain('ERESOLVE');
  expect(failed?.stderr).toContain(`peer @pulumi/pulumi@"${range}" from pulumi-zoneguard@`);
});

test("a second @pulumi/pulumi nested under the package stops the program at load, in one line naming both and the fix", async () => {
  // What an install that ignores peer dependencies, or the package's former `dependencies` entry, left: the package's
  // own copy (here the newest project's, linked) beside the program's.
  const nested = path.join(project, 'node_modules', 'pulumi-zoneguard', 'node_modules', '@pulumi');
  fs.mkdirSync(nested, { recursive: true });
  fs.symlinkSync(path.join(newestProject!, 'node_modules', '@pulumi', 'pulumi'), path.join(nested, 'pulumi'));
  try {
    const program = "require('@pulumi/pulumi'); require('pulumi-zoneguard');";
    const failed = await run(process.execPath, ['-e', program], { cwd: project, encoding: 'utf8' }).then(
      () => undefined,
      (error: { stderr: string }) => error,
    );
    const lines = failed!.stderr.split('\n').filter((line) => line.includes('two copies of @pulumi/pulumi'));
    expect(lines).toEqual([
      `Error: pulumi-zoneguard: two copies of @pulumi/pulumi are loaded, the program's ${oldest} (${project}/node_modules/@pulumi/pulumi) ` +
        `and the package's ${newest} (${newestProject}/node_modules/@pulumi/pulumi), and resources registered through two copies fail. ` +
        `Install one @pulumi/pulumi in the range ${range} in your project (npm install @pulumi/pulumi@<version in that range>) and remove ` +
        "the nested one, so the package shares the program's copy: `npm ls @pulumi/pulumi` lists them.",
    ]);
  } finally {
    fs.rmSync(nested, { recursive: true, force: true });
  }
});
