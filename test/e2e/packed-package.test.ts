import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { ZoneGuardClient } from '../../src/client';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { assertEngineOnPath, transpiledProgram } from './harness';
import { zoneOfPlan } from '../support/emulator';
import { useRedisServer } from '../client/redis-server';
import type { ZoneMoment } from '../../src/emulator/state';
import { describeRequest, requestsOf, zoneEvaluator, type FirewallRulesUpgradePlan, type KeyedCustomRule } from '../../src/firewall-upgrade';
import { sameOutcome } from '../../src/rulesets';
import { CUSTOM_PHASE, type RulesetRule } from '../../src/schemas';
import { splitMarked } from '../../src/schemas/owner-marker';
import { consumerProject, engineFailureOf, packTarball, root, run, runDriver, type DriverCommand } from './packed-project';

// A consumer's project (packed-project.ts): the package from `npm pack` installed in a folder outside this repo, its
// program run by the real engine through that project's own Automation API. The runs count their requests in a
// shared rate budget store (a real redis-server), as a fleet's would: the installed package loads its store client
// and limiter from the consumer's node_modules.
// The package shares the program's @pulumi/pulumi (a peer dependency): consumers pinned at the oldest version of the
// package's range and at the newest the registry serves each run, with one copy; a second copy stops at load.
jest.setTimeout(300_000);

const redis = useRedisServer();

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

/**
 * Runs the driver in a consumer's project (packed-project.ts) against this file's emulator and rate budget store, on
 * its zone unless `env` names another (ZONEGUARD_TEST_ZONE), and with the rest of `env`.
 */
const driver = (command: DriverCommand, folder: string = project, env: NodeJS.ProcessEnv = {}) =>
  runDriver(folder, command, {
    ZONEGUARD_TEST_BASE_URL: emulator.baseUrl,
    ZONEGUARD_TEST_TOKEN: emulator.credentials.apiToken,
    ZONEGUARD_TEST_ZONE: zoneId,
    ZONEGUARD_RATE_BUDGET_STORE: redis().url,
    ...env,
  });

/** A consumer's project pinned at one @pulumi/pulumi, with the packed package and this file's program. */
const consumer = (pulumiVersion: string) => consumerProject({ packs, tarball }, pulumiVersion, PROGRAM);

const installedVersion = (folder: string) =>
  (JSON.parse(fs.readFileSync(path.join(folder, 'node_modules', '@pulumi', 'pulumi', 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  assertEngineOnPath();
  emulator = await startEmulator({ port: 0 });
  zoneId = zoneOfPlan(emulator, 'pro');
  client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  seeded = (await emulator.admin.inventory(zoneId)).counts;
  newest = (await run('npm', ['view', '@pulumi/pulumi', 'version'], { encoding: 'utf8' })).stdout.trim();

  ({ packs, tarball } = await packTarball());
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

// The sealed preview and the firewall move as a consumer runs them (docs/sealed-previews.md,
// docs/firewall-and-migration.md#move), in the same project: two more stacks, `seal` on the emulator's Enterprise zone
// and `move` on the Pro zone (the one above, emptied by its destroy but for its seed: two legacy rules made by hand),
// with the package's own `zoneguard` command from the project's node_modules.

// The seal stack's program: CONSUMER_REVIEWED (read in the driver's process, where the inline program runs) is the
// pull request's change. The rule waits for the policy: a refusal of its write then comes after the policy's write.
const SEAL_PROGRAM = `const pulumi = require('@pulumi/pulumi');
const { CspPolicy, CustomRule } = require('pulumi-zoneguard');
const zoneId = new pulumi.Config().require('zoneId');
const reviewed = process.env.CONSUMER_REVIEWED === '1';
const policy = new CspPolicy('checkout-scripts', {
  zoneId,
  action: reviewed ? 'allow' : 'log',
  expression: 'http.request.uri.path contains "/checkout"',
  value: "script-src 'self' https://js.stripe.com",
  description: 'Checkout scripts',
});
new CustomRule('admin-block', {
  zoneId,
  action: reviewed ? 'managed_challenge' : 'block',
  expression: 'starts_with(http.request.uri.path, "/admin")',
  ref: 'admin',
}, { dependsOn: [policy] });
`;

// The move stack's program before the move: both legacy forms, a shared filter, priorities that decide.
const LEGACY_PROGRAM = `const pulumi = require('@pulumi/pulumi');
const { FirewallFilter, FirewallRule, FirewallRuleWithFilter } = require('pulumi-zoneguard');
const zoneId = new pulumi.Config().require('zoneId');
new FirewallRuleWithFilter('block-scanners', { zoneId, expression: '(http.user_agent contains "sqlmap")', action: 'block', priority: 1, description: 'scanners' });
const admin = new FirewallFilter('admin-paths', { zoneId, expression: '(http.request.uri.path contains "/admin")', description: 'admin paths' });
new FirewallRule('admin-challenge', { zoneId, filterId: admin.id, action: 'managed_challenge', priority: 2 });
new FirewallRule('admin-log', { zoneId, filterId: admin.id, action: 'log', ref: 'admin-log' });
`;

/** The driver on one more stack of the project (its program `<stack>.js`), on a zone of its own. */
const stackDriver = (stack: 'seal' | 'move', command: DriverCommand, zone: string, env: NodeJS.ProcessEnv = {}) =>
  driver(command, project, { ZONEGUARD_TEST_ZONE: zone, ZONEGUARD_TEST_STACK: stack, ZONEGUARD_TEST_PROGRAM: `${stack}.js`, ...env });

/** The installed package's `zoneguard` command, in the project, reading the emulator's credentials as a user sets them. */
const zoneguard = async (...args: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ZONEGUARD_BASE_URL: emulator.baseUrl, ZONEGUARD_API_TOKEN: emulator.credentials.apiToken };
  delete env.NODE_PATH;
  return (await run(path.join(project, 'node_modules/.bin/zoneguard'), args, { cwd: project, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })).stdout;
};

describe('a sealed preview, from the consumer project (docs/sealed-previews.md)', () => {
  let sealZone: string;
  let previews = 0;
  const reviewed = { CONSUMER_REVIEWED: '1' };
  const adminRule = async () => {
    const entrypoint = await client.rulesets.getEntrypoint({ zoneId: sealZone, phase: CUSTOM_PHASE });
    return { rulesetId: entrypoint.id, rule: entrypoint.rules.find((rule) => splitMarked(rule.ref).own === 'admin')! };
  };

  /** `ci.sh pr`'s two steps: the preview with ZONEGUARD_SEAL_RECORD, then the project's `zoneguard preview-report --seal`. */
  async function sealedPreview(): Promise<{ seal: string; report: string }> {
    const seal = path.join(project, `seal-${++previews}.json`);
    const landings = path.join(project, 'landings.jsonl');
    fs.writeFileSync(landings, ''); // ci.sh's mktemp
    await stackDriver('seal', 'sealed-preview', sealZone, { ...reviewed, ZONEGUARD_SEAL_RECORD: landings });
    const report = await zoneguard('preview-report', '--seal', seal, '--landings', landings, path.join(project, 'preview.json'));
    return { seal, report };
  }

  beforeAll(async () => {
    fs.writeFileSync(path.join(project, 'seal.js'), SEAL_PROGRAM);
    sealZone = zoneOfPlan(emulator, 'enterprise');
    expect(((await stackDriver('seal', 'up', sealZone)) as { changes: Record<string, number> }).changes).toEqual({ create: 4 }); // with the stack and its owner id
  });

  test("a dashboard edit after the preview: the sealed up refuses that rule in one line naming the field and 'preview again', and writes nothing to it", async () => {
    const { seal, report } = await sealedPreview();
    expect(report).toContain('| update | CustomRule `admin-block` | action |');
    const { rulesetId, rule } = await adminRule();
    const edited = 'starts_with(http.request.uri.path, "/admin") and not ip.src in {192.0.2.0/24}';
    await client.rulesets.updateRule({ zoneId: sealZone, rulesetId, ruleId: rule.id!, rule: { expression: edited } });
    await emulator.admin.clearRequests();

    const printed = await engineFailureOf(stackDriver('seal', 'up', sealZone, { ...reviewed, ZONEGUARD_SEAL: seal }));
    const lines = [...new Set(printed.split('\n').flatMap((line) => (line.includes('since the sealed preview') ? [line.slice(line.indexOf("CustomRule 'admin-block'")).trim()] : [])))];
    expect(lines).toEqual([
      `CustomRule 'admin-block' ${rule.id} in zone ${sealZone} (the rule "admin" (id ${rule.id}, marker ${splitMarked(rule.ref).marker})): changed on the service since ` +
        `the sealed preview: expression "starts_with(http.request.uri.path, \\"/admin\\")" → ${JSON.stringify(edited)}; nothing was written to it: preview again ` +
        '(ci.sh pr) and have the new report reviewed before this up',
    ]);
    // Nothing but reads went to the rule; the policy the reviewer saw was written (the Automation API's up runs no preview first).
    const writes = (await emulator.admin.requests()).filter((entry) => entry.method !== 'GET').map((entry) => `${entry.method} ${entry.path.split('/').slice(-2, -1)[0]}`);
    expect(writes).toEqual(['PUT policies']);
    expect((await adminRule()).rule).toMatchObject({ action: 'block', expression: edited });
  });

  test("preview again: the new seal's up applies the change, the dashboard's edit put back as the report said", async () => {
    const { seal, report } = await sealedPreview();
    expect(report).toContain('| update | CustomRule `admin-block` | action, expression |');
    const up = (await stackDriver('seal', 'up', sealZone, { ...reviewed, ZONEGUARD_SEAL: seal })) as { changes: Record<string, number> };
    expect(up.changes).toEqual({ update: 1, same: 3 });
    expect((await adminRule()).rule).toMatchObject({ action: 'managed_challenge', expression: 'starts_with(http.request.uri.path, "/admin")' });
  });
});

describe('the firewall move, from the consumer project (docs/firewall-and-migration.md#move)', () => {
  let plan: FirewallRulesUpgradePlan;

  beforeAll(async () => {
    fs.writeFileSync(path.join(project, 'move.js'), LEGACY_PROGRAM);
    expect(((await stackDriver('move', 'up', zoneId)) as { changes: Record<string, number> }).changes).toEqual({ create: 6 }); // with the stack and its owner id
  });

  test('the plan with the stack export: equivalent, and the move line names the requests a rule made by hand then decides', async () => {
    await stackDriver('move', 'stack-export', zoneId);
    const exported = path.join(project, 'stack.json');
    const text = await zoneguard('firewall-upgrade-plan', '--zone', zoneId, '--stack-export', exported);
    plan = JSON.parse(await zoneguard('firewall-upgrade-plan', '--zone', zoneId, '--stack-export', exported, '--json')) as FirewallRulesUpgradePlan;
    expect(text).toMatch(/^Verdict +equivalent on every request tried \(\d+ requests\)$/m);
    expect(plan.move?.rules.map((rule) => [rule.name, rule.customRuleId])).toEqual([
      ['block-scanners', null],
      ['admin-challenge', null],
      ['admin-log', null],
    ]);
    // The seed's rule made by hand, managed_challenge for 203.0.113.0/24 and without priority, ran after the stack's
    // block at priority 1; it stays legacy and runs first, so those clients' scanner requests get its challenge.
    const hand = plan.rules.find((rule) => rule.expression === '(ip.src in {203.0.113.0/24})')!;
    const scanners = plan.rules.find((rule) => rule.expression === '(http.user_agent contains "sqlmap")')!;
    expect(plan.move!.differences.length).toBeGreaterThan(0);
    expect(new Set(plan.move!.differences.map((d) => `${d.before} -> ${d.after}`))).toEqual(
      new Set([`block by ${scanners.legacyRuleId} -> managed_challenge by ${hand.legacyRuleId}`]),
    );
    expect(text).toContain(
      `The move (3 rules of the given stacks): the up creates these 3 custom rule(s) first, in this order, then deletes the firewall rules they replace: ` +
        `the two overlap, both run meanwhile, so every request is covered by one or the other at every moment; but the legacy rules it leaves`,
    );
    fs.writeFileSync(path.join(project, 'move.ts'), await zoneguard('firewall-upgrade-plan', '--zone', zoneId, '--stack-export', exported, '--program'));
  });

  test('one up of the program the plan wrote moves them: at every moment each request of the plan is decided as at the start or at the end, never let through', async () => {
    // The project runs the program as ts-node would.
    fs.writeFileSync(path.join(project, 'move.js'), transpiledProgram(path.join(project, 'move.ts')));
    await emulator.admin.watchZone(zoneId);
    const up = (await stackDriver('move', 'up', zoneId)) as { changes: Record<string, number> };
    expect(up.changes).toEqual({ create: 3, delete: 4, same: 2 }); // the filter with its rules

    const moments: ZoneMoment[] = await emulator.admin.zoneHistory(zoneId);
    const [start, end] = [moments[0]!, moments.at(-1)!];
    const keyed = (rules: readonly RulesetRule[]) => rules.map((rule): KeyedCustomRule => ({ key: rule.id ?? '', rule }));
    const decide = (moment: ZoneMoment) => zoneEvaluator({ legacyRuns: moment.legacyFirewall === 'available', legacy: moment.firewallRules, custom: keyed(moment.customRules) });
    // The plan's requests: built from the zone's rules as the plan read them.
    const requests = requestsOf([...start.firewallRules.map((rule) => rule.filter.expression), ...start.customRules.map((rule) => rule.expression)]);
    const [before, after] = [requests.map(decide(start)), requests.map(decide(end))];
    expect(end.firewallRules).toHaveLength(2); // the two made by hand
    expect(end.customRules).toHaveLength(3);
    const odd = moments.flatMap((moment) => {
      const now = requests.map(decide(moment));
      return requests.flatMap((request, i) => {
        const decision = now[i]!.decision;
        const unprotected = before[i]!.decision !== 'pass' && decision === 'pass';
        return unprotected || ![before[i]!.decision, after[i]!.decision].includes(decision) ? [`after ${moment.after}: ${describeRequest(request)}: ${before[i]!.decision} -> ${decision}`] : [];
      });
    });
    expect(odd).toEqual([]);
    // The end differs from the start exactly where the plan's move said.
    const differing = requests.flatMap((request, i) => (sameOutcome(before[i]!, after[i]!) ? [] : [describeRequest(request)]));
    expect(differing.sort()).toEqual(plan.move!.differences.map((d) => d.request).sort());
  });
});
