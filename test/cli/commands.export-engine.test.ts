import { splitMarked } from '../../src/schemas/owner-marker';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Stack } from '@pulumi/pulumi/automation';
import * as ts from 'typescript';
import { run } from '../../src/cli/commands/export';
import { openSandbox, type EngineSandbox } from '../e2e/harness';
import { capture } from '../insights/helpers';
import { writesOf, zoneOfPlan } from '../support/emulator';

// The promise, checked with the real engine: the program `zoneguard export` prints takes the zone's
// settings, CSP policies and firewall rules over on the first `pulumi up`, writing nothing but their owner markers.
jest.setTimeout(300_000);

const root = path.resolve(__dirname, '../..');
const exec = promisify(execFile);

let sandbox: EngineSandbox;
let stack: Stack;
let zoneId: string;
let programFile: string;

beforeAll(async () => {
  // The engine on PATH as the scripts provide it (the pinned CLI, built once into a cache), and a fresh dist/ for
  // the provider processes, which load 'pulumi-zoneguard/providers' from it.
  const { stdout } = await exec('bash', ['-c', 'source scripts/env.sh >/dev/null && source scripts/engine.sh >/dev/null && printf %s "$PATH"'], {
    cwd: root,
    maxBuffer: 1 << 20,
  });
  process.env.PATH = stdout;
  await exec(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root });
  sandbox = await openSandbox('export');
  zoneId = zoneOfPlan(sandbox.emulator, 'enterprise');
  const c = capture();
  // The program imports the package root from the sources, as the other end-to-end tests do.
  const argv = ['--zone', zoneId, '--package', path.join(root, 'src'), '--base-url', sandbox.emulator.baseUrl, '--api-token', sandbox.emulator.credentials.apiToken];
  expect(await run(argv, c.io)).toBe(0);
  programFile = path.join(sandbox.dir, 'exported.ts');
  fs.writeFileSync(programFile, c.stdout());
  // The program declares its resources at its top level, so each engine run evaluates it afresh; its imports go
  // through this module's require, so it shares the one @pulumi/pulumi the engine connection was made with.
  const js = ts.transpileModule(fs.readFileSync(programFile, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  stack = await sandbox.stack('adopt', async () => {
    const module = { exports: {} as Record<string, unknown> };
    new Function('require', 'module', 'exports', js)(require, module, module.exports);
    return { resources: Object.keys(module.exports).length };
  });
});
afterAll(() => sandbox?.close());

test('the first pulumi up adopts everything and writes only the owner markers, one PUT per adopted policy or rule', async () => {
  const before = await sandbox.emulator.admin.inventory(zoneId);
  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  // The stack, its owner id, the settings, two CSP policies and four firewall rules of the demo enterprise zone.
  expect(up.summary.resourceChanges).toMatchObject({ create: 9 });
  expect(up.outputs.resources?.value).toBe(7);
  // Each adopted object gets its resource's owner marker (docs/ownership.md), and nothing else changes.
  const writes = await writesOf(sandbox.emulator, { ids: true });
  expect(writes.sort()).toEqual([
    ...before.cspPolicies.map(() => 'PUT /client/v4/zones/:id/page_guard/policies/:id'),
    ...before.firewallRules.map(() => 'PUT /client/v4/zones/:id/firewall/rules/:id'),
  ].sort());
  const unmarked = (text: string | undefined) => splitMarked(text).own;
  const after = await sandbox.emulator.admin.inventory(zoneId);
  expect(after.cspPolicies.map((p) => ({ ...p, description: unmarked(p.description) }))).toEqual(before.cspPolicies);
  expect(after.firewallRules.map((r) => ({ ...r, ref: unmarked(r.ref) }))).toEqual(before.firewallRules.map((r) => ({ ...r, ref: r.ref ?? '' })));
  expect(after.cspPolicies.map((p) => splitMarked(p.description).marker)).toEqual(before.cspPolicies.map(() => expect.stringMatching(/^zg:[0-9a-f]{10}$/)));
});

test('a preview after it shows no change', async () => {
  await stack.preview({ expectNoChanges: true, color: 'never' });
});
