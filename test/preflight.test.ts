import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The README's two commands check at their start what they need (scripts/preflight.sh) and say, one line each, what
// to install, instead of failing minutes later. Run here with a PATH that has only the tools the check itself uses,
// and an empty CLI cache, as on a fresh machine.
const root = path.resolve(__dirname, '..');
const made: string[] = [];
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
const which = (tool: string) => spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();

function bare(...tools: string[]): { PATH: string; HOME: string; ZONEGUARD_CACHE: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-preflight-'));
  made.push(dir);
  fs.mkdirSync(path.join(dir, 'bin'));
  for (const tool of ['uname', 'sed', 'sort', 'head', 'dirname', ...tools]) fs.symlinkSync(which(tool), path.join(dir, 'bin', tool));
  return { PATH: path.join(dir, 'bin'), HOME: dir, ZONEGUARD_CACHE: path.join(dir, 'cache') };
}

const preflight = (what: string, env: NodeJS.ProcessEnv) =>
  spawnSync('/bin/bash', ['-c', `source scripts/preflight.sh && preflight ${what} && echo ready`], { cwd: root, env, encoding: 'utf8' });

test('npm test without Go (no CLI built) nor redis-server names both, and stops before any work', () => {
  const run = spawnSync('/bin/bash', ['scripts/test.sh'], { cwd: root, env: bare(), encoding: 'utf8' });
  expect(run.status).toBe(1);
  expect(run.stdout).toBe('');
  const goMod = fs.readFileSync(path.join(root, 'tools/pulumi-cli/go.mod'), 'utf8');
  const go = /^go (\S+)$/m.exec(goMod)?.[1];
  const cli = /github\.com\/pulumi\/pulumi\/pkg\/v3 (v\S+)/.exec(goMod)?.[1];
  expect(run.stderr.split('\n')).toEqual(
    [
      'npm test cannot start:',
      `  Go ${go} or later is needed once, to build the Pulumi CLI ${cli} (no pulumi of that version is on PATH): install Go, then run this again.`,
      "  redis-server is missing: the shared rate budget's tests run a real one; install it (Debian and Ubuntu: apt-get install -y redis-server).",
      '',
    ],
  );
});

test('the demo does not need redis-server; with Go there it is ready', () => {
  expect(preflight('demo', bare('go'))).toMatchObject({ status: 0, stdout: 'ready\n', stderr: '' });
  expect(preflight('test', bare('go'))).toMatchObject({ status: 1, stdout: '' });
  expect(preflight('test', bare('go', 'redis-server'))).toMatchObject({ status: 0, stdout: 'ready\n', stderr: '' });
});
