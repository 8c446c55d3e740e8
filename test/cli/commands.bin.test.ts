import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { BIG_ZONE, bigScript, bigZoneSeed, useInsightEmulator } from '../insights/helpers';

// The built bin, spawned: what a user's shell script sees (exit codes, stdout, stderr).
jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/cli/index.js');
const h = useInsightEmulator();

beforeAll(async () => {
  await promisify(execFile)(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    cwd: root,
  });
});

/** Runs the bin with only the given environment variables (and PATH), collecting its outputs. */
function zoneguard(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('zoneguard scripts --help: exit 0, usage on stdout', async () => {
  const result = await zoneguard(['scripts', '--help']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^Usage: zoneguard scripts \[options\]\n/);
  expect(result.stdout).toContain('Exit codes: 0 ok; 1 service or API error');
  expect(result.stderr).toBe('');
});

test('every command is registered beside emulator', async () => {
  const result = await zoneguard(['--help']);
  expect(result.code).toBe(0);
  for (const name of ['emulator', 'scripts', 'connections', 'cookies', 'export', 'firewall-upgrade-plan', 'migration', 'orphans', 'preview-report']) expect(result.stdout).toMatch(new RegExp(`\\n  ${name} `));
  const plan = await zoneguard(['migration', 'plan', '--help']);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toMatch(/^Usage: zoneguard migration plan \[options\]\n/);
});

test('a usage error: exit 2, one line on stderr', async () => {
  const result = await zoneguard(['scripts', '--zone', 'nope']);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(
    "zoneguard scripts: error: option '--zone <id>' argument 'nope' is invalid. must be a zone id: 32 lowercase hexadecimal characters\n",
  );
});

test('credentials and base URL from the environment: JSON on stdout, progress on stderr, exit 0', async () => {
  const env = { ZONEGUARD_API_TOKEN: h.emulator.credentials.apiToken, ZONEGUARD_BASE_URL: h.emulator.baseUrl };
  const result = await zoneguard(['scripts', '--zone', BIG_ZONE, '--json', '--malicious'], env);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toHaveLength(22);
  expect(result.stderr).toBe(
    ['zoneguard: loading scripts: page 1/3 (100/231)', 'zoneguard: loading scripts: page 2/3 (200/231)', 'zoneguard: loading scripts: page 3/3 (231/231)', ''].join('\n'),
  );
});

test('a refused token: exit 1, one line, no token', async () => {
  const token = 'zg_wrong-token-for-the-bin-test-000';
  const result = await zoneguard(['export', '--zone', BIG_ZONE], { ZONEGUARD_API_TOKEN: token, ZONEGUARD_BASE_URL: h.emulator.baseUrl });
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(new RegExp(`^zoneguard export: error: GET /zones/${BIG_ZONE}/page_guard failed: HTTP 403 [^\\n]*\\n$`));
  expect(result.stderr).not.toContain(token);
});

test('zoneguard migration without a sub-command: its help on stderr, exit 2', async () => {
  const result = await zoneguard(['migration']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('Usage: zoneguard migration [options] [command]');
});

test('piped into a reader that stops early (head), a command ends quietly with exit 0, not on an unhandled EPIPE', async () => {
  // 2000 scripts: a JSON answer near a megabyte, far more than a pipe holds, so the writer meets the closed pipe.
  const huge = 'abcabcabcabcabcabcabcabcabcabcab';
  await h.emulator.admin.seedZone({ ...bigZoneSeed(), id: huge, scripts: Array.from({ length: 2000 }, (_, i) => bigScript(i, 'active')) });
  const env = { ZONEGUARD_BASE_URL: h.emulator.baseUrl, ZONEGUARD_API_TOKEN: h.emulator.credentials.apiToken };
  const child = spawn(process.execPath, [bin, 'scripts', '--zone', huge, '--json', '--quiet'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Read the first chunk, then close the pipe as `head -c` does: the rest of the output meets a closed pipe.
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.stdout.destroy();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
});

describe('on a Node older than the package supports (here faked: process.versions.node set to 20.20.2 before the bin loads)', () => {
  const fake = path.join(root, '.zoneguard', 'fake-node-20.cjs');
  beforeAll(() => {
    fs.mkdirSync(path.dirname(fake), { recursive: true });
    fs.writeFileSync(fake, "Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n");
  });
  const refusal =
    'pulumi-zoneguard needs Node.js 22.12.0 or later, and this is Node.js 20.20.2. Install Node.js 24 LTS (or 22 LTS, 22.12 or later) ' +
    'and put it first on PATH: the Pulumi engine starts the providers with the node it finds there.';

  test('the bin says what to install in one line and exits 1', async () => {
    const result = await zoneguard(['scripts', '--help'], { NODE_OPTIONS: `--require ${fake}` });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `zoneguard: ${refusal}\n` });
  });

  test.each(['dist/index.js', 'dist/providers/index.js', 'dist/emulator/index.js', 'dist/client/index.js'])('loading %s throws it', async (entry) => {
    const { stderr } = await promisify(execFile)(process.execPath, ['--require', fake, '-e', `try { require(${JSON.stringify(path.join(root, entry))}) } catch (e) { console.error(e.message) }`], { cwd: root });
    expect(stderr).toBe(`${refusal}\n`);
  });
});
