import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { RESOURCE_KINDS } from '../../src/kinds';
import { zoneOfPlan } from '../support/emulator';

// Does what the engine does with a provider, the way a consumer gets it: the package from `npm pack` installed in
// a project outside this repo, the provider text the resource classes store taken there, loaded in a fresh process
// as the dynamic provider host loads it, and driven against the emulator.
const root = path.resolve(__dirname, '../..');
/** The text is stored twice per resource; a resource's whole state is held to 2 KB (issue 27). */
const MAX_BYTES = 128;

let emulator: StartedEmulator;
let project: string;
let texts: Record<string, string>;

// Asynchronous: the emulator answers from this very process, so its event loop must keep running.
const node = async (script: string, env: Record<string, string> = {}) =>
  (await promisify(execFile)(process.execPath, [script], { cwd: project, env: { ...process.env, ...env }, encoding: 'utf8' })).stdout;

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, 'dist/providers/index.js'))) {
    throw new Error('dist/ is missing: run the tests with npm test, which builds first');
  }
  emulator = await startEmulator({ port: 0 });
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-consumer-'));
  // Without the package's `prepare` (a rebuild of dist/, which another suite of the same run may be reading): built above.
  const tarball = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', project], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop()!;
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, dependencies: { 'pulumi-zoneguard': `file:./${tarball}` } }),
  );
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: project, stdio: 'pipe' });
  fs.writeFileSync(
    path.join(project, 'serialize.js'),
    `const { providerText } = require('pulumi-zoneguard/providers');
     const out = {};
     for (const kind of ${JSON.stringify(RESOURCE_KINDS)}) out[kind] = providerText(kind);
     process.stdout.write(JSON.stringify(out));`,
  );
  texts = JSON.parse(await node('serialize.js'));
}, 180_000);

afterAll(async () => {
  await emulator?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

test.each(RESOURCE_KINDS)('the %s provider text is small, loads its code by specifier, and holds no credential', (kind) => {
  const text = texts[kind]!;
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BYTES);
  expect(text).toContain("require('pulumi-zoneguard/providers')");
  expect(text).toContain(JSON.stringify(kind));
  for (const secret of [emulator.credentials.apiToken, emulator.credentials.apiKey, emulator.credentials.apiEmail]) {
    expect(text).not.toContain(secret);
  }
});

test('the text loaded in a fresh process runs create, read, update and delete against the emulator', async () => {
  const zoneId = zoneOfPlan(emulator, 'pro');
  fs.writeFileSync(path.join(project, 'text.js'), texts.CspPolicy!);
  fs.writeFileSync(
    path.join(project, 'run.js'),
    `const requireFromString = require('require-from-string');
     const fs = require('fs');
     const provider = requireFromString(fs.readFileSync('text.js', 'utf8')).handler();
     (async () => {
       const config = { get: (k) => ({ 'zoneguard:baseUrl': process.env.BASE_URL, 'zoneguard:apiToken': process.env.TOKEN })[k] };
       await provider.configure({ config });
       const news = { zoneId: ${JSON.stringify(zoneId)}, action: 'log', expression: 'true', value: "script-src 'self'" };
       const { inputs, failures } = await provider.check({}, news);
       const { id, outs } = await provider.create(inputs);
       const read = await provider.read(id, outs);
       const updated = await provider.update(id, outs, { ...inputs, enabled: false });
       await provider.delete(id, updated.outs);
       const gone = await provider.read(id, updated.outs);
       process.stdout.write(JSON.stringify({ failures, id, read: read.props, updated: updated.outs, gone }));
     })().catch((e) => { console.error(e); process.exit(1); });`,
  );
  const result = JSON.parse(await node('run.js', { BASE_URL: emulator.baseUrl, TOKEN: emulator.credentials.apiToken }));
  expect(result.failures).toEqual([]);
  expect(result.read).toMatchObject({ zoneId, action: 'log', enabled: true, policyId: result.id });
  expect(result.updated).toMatchObject({ enabled: false, policyId: result.id });
  expect(result.gone).toEqual({ id: '' });
});
