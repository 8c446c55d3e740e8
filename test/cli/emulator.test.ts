import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The CLI is tested as a user runs it: compiled by tsc, started with node, read from its standard output.
const root = resolve(__dirname, '../..');
let build: string;
let cli: string;

beforeAll(() => {
  build = mkdtempSync(join(tmpdir(), 'zoneguard-cli-'));
  const tsconfig = join(build, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.build.json'),
      compilerOptions: { rootDir: join(root, 'src'), outDir: join(build, 'dist'), declaration: false, sourceMap: false, typeRoots: [join(root, 'node_modules/@types')] },
      include: [],
      files: [join(root, 'src/cli/index.ts')],
    }),
  );
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  cli = join(build, 'dist/cli/index.js');
}, 120_000);

afterAll(() => rmSync(build, { recursive: true, force: true }));

/** Starts `zoneguard emulator` and resolves with its output once it says it serves. */
function startCli(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; output: string }> {
  const child = spawn(process.execPath, [cli, 'emulator', ...args], {
    env: { ...process.env, NODE_PATH: join(root, 'node_modules'), NODE_OPTIONS: '' },
  });
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no banner after 15 s:\n${output}`)), 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl+C to stop.')) {
        clearTimeout(timer);
        resolvePromise({ child, output });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

function stop(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolvePromise({ code, output }));
    child.kill(signal);
  });
}

const field = (output: string, name: string) => new RegExp(`^  ${name} +(\\S+)`, 'm').exec(output)?.[1] ?? '';

describe('zoneguard emulator', () => {
  test('prints the base URL, the token, the key pair and each zone with its plan, serves them, and stops on SIGINT', async () => {
    const { child, output } = await startCli(['--port', '0']);
    try {
      const lines = output.trimEnd().split('\n');
      expect(lines[0]).toBe('zoneguard emulator is serving the service API');
      expect(lines[1]).toMatch(/^ {2}base URL {3}http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
      expect(lines[2]).toMatch(/^ {2}admin URL {2}http:\/\/127\.0\.0\.1:\d+\/__admin$/);
      expect(lines[3]).toMatch(/^ {2}API token {2}zg_[A-Za-z0-9_-]{37} {3}\(Authorization: Bearer <token>\)$/);
      expect(lines[4]).toBe('  API email  admin@acme.example');
      expect(lines[5]).toMatch(/^ {2}API key {4}[0-9a-f]{37} {3}\(X-Auth-Email \+ X-Auth-Key\)$/);
      expect(lines[6]).toBe('  state      in memory (use --state FILE to keep it)');
      expect(lines[7]).toBe('zones');
      const zones = lines.slice(8, 12).map((line) => /^ {2}([0-9a-f]{32}) {2}(\w+) +(\S+) +zone token (\S+)$/.exec(line));
      expect(zones.map((z) => [z?.[2], z?.[3]])).toEqual([
        ['free', 'acme-blog.example'],
        ['pro', 'acme-store.example'],
        ['business', 'acme-media.example'],
        ['enterprise', 'acme-bank.example'],
      ]);
      expect(lines[12]).toBe('Press Ctrl+C to stop.');

      const baseUrl = field(output, 'base URL');
      const zoneId = zones[3]![1]!;
      const byToken = await fetch(`${baseUrl}/zones/${zoneId}/page_guard`, { headers: { authorization: `Bearer ${field(output, 'API token')}` } });
      expect(byToken.status).toBe(200);
      const byKey = await fetch(`${baseUrl}/zones/${zoneId}/page_guard`, {
        headers: { 'x-auth-email': field(output, 'API email'), 'x-auth-key': field(output, 'API key') },
      });
      expect(byKey.status).toBe(200);
      const byZoneToken = await fetch(`${baseUrl}/zones/${zoneId}/page_guard`, { headers: { authorization: `Bearer ${zones[3]![4]}` } });
      expect(byZoneToken.status).toBe(200);
    } finally {
      const stopped = await stop(child, 'SIGINT');
      expect(stopped.code).toBe(0);
      expect(stopped.output).toContain('SIGINT: stopping the emulator');
    }
  }, 30_000);

  test('--seed FILE serves the zones and credentials of the file; --state FILE keeps changes across a restart; SIGTERM stops it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zoneguard-cli-state-'));
    const seed = join(dir, 'seed.json');
    const statePath = join(dir, 'state.json');
    writeFileSync(
      seed,
      JSON.stringify({
        credentials: { apiToken: 'seeded-token', apiEmail: 'ops@example.org', apiKey: 'seeded-key' },
        zones: [{ id: 'ab00000000000000000000000000ab01', name: 'seeded.example.org', plan: 'pro', token: 'seeded-zone-token' }],
      }),
    );
    try {
      const first = await startCli(['--port', '0', '--seed', seed, '--state', statePath]);
      expect(field(first.output, 'API token')).toBe('seeded-token');
      expect(field(first.output, 'API key')).toBe('seeded-key');
      expect(first.output).toContain(`  state      ${statePath}`);
      expect(first.output).toMatch(/^ {2}ab00000000000000000000000000ab01 {2}pro +seeded\.example\.org +zone token seeded-zone-token$/m);
      const changed = await fetch(`${field(first.output, 'base URL')}/zones/ab00000000000000000000000000ab01/page_guard`, {
        method: 'PUT',
        headers: { authorization: 'Bearer seeded-token', 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: true }),
      });
      expect(changed.status).toBe(200);
      expect((await stop(first.child, 'SIGTERM')).code).toBe(0);

      const second = await startCli(['--port', '0', '--state', statePath]);
      try {
        expect(field(second.output, 'API token')).toBe('seeded-token');
        const read = await fetch(`${field(second.output, 'base URL')}/zones/ab00000000000000000000000000ab01/page_guard`, {
          headers: { authorization: 'Bearer seeded-token' },
        });
        expect(((await read.json()) as { result: { enabled: boolean } }).result.enabled).toBe(true);
      } finally {
        await stop(second.child, 'SIGTERM');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test('--host 0.0.0.0 warns, and the admin API answers only with the admin token it prints', async () => {
    const { child, output } = await startCli(['--port', '0', '--host', '0.0.0.0']);
    try {
      const lines = output.split('\n');
      expect(lines.slice(0, 2)).toEqual([
        'warning: serving on a non-loopback address: other machines can reach the service API and its credentials;',
        '         the admin API requires the admin token printed below. Use --host 127.0.0.1 unless you need this.',
      ]);
      const adminToken = /^ {2}admin token (\S+) {3}\(Authorization: Bearer <token> on the admin API\)$/m.exec(output)?.[1] ?? '';
      expect(adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const adminUrl = field(output, 'admin URL').replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${adminUrl}/info`)).status).toBe(403);
      expect((await fetch(`${adminUrl}/info`, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);
    } finally {
      await stop(child, 'SIGTERM');
    }
  }, 30_000);

  test('a bad --port or a bad seed file is an error with a non-zero exit', () => {
    const env = { ...process.env, NODE_PATH: join(root, 'node_modules'), NODE_OPTIONS: '' };
    const port = spawnSync(process.execPath, [cli, 'emulator', '--port', 'eighty'], { encoding: 'utf8', env });
    // A usage error, like every sub-command's: one line, exit 2 (docs/cli.md).
    expect(port.status).toBe(2);
    expect(port.stderr).toBe("zoneguard emulator: error: option '--port <n>' argument 'eighty' is invalid. must be a port number, 0-65535 (0 picks a free one)\n");
    const dir = mkdtempSync(join(tmpdir(), 'zoneguard-cli-seed-'));
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ zones: [{ name: 'x.example', plan: 'platinum' }] }));
    const bad = spawnSync(process.execPath, [cli, 'emulator', '--port', '0', '--seed', seed], { encoding: 'utf8', env });
    rmSync(dir, { recursive: true, force: true });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toBe(`zoneguard: seed file ${seed}: zones.0.plan: must be one of "free", "pro", "business", "enterprise"`);
  });
});
