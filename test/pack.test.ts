import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

// What a fresh clone packs: `npm pack` there (and npm installing the package from a git URL) must build and ship
// dist/, with nothing built beforehand. The clone is the repository's tracked files copied to a temp folder, with
// this checkout's node_modules linked in (the build needs TypeScript; a git install gets it from the dev dependencies).
jest.setTimeout(240_000);

const root = path.resolve(__dirname, '..');
const run = promisify(execFile);

test('npm pack in a fresh clone builds first and ships dist/', async () => {
  fs.mkdirSync(path.join(root, '.zoneguard'), { recursive: true });
  const clone = fs.mkdtempSync(path.join(root, '.zoneguard', 'fresh-clone-'));
  try {
    const { stdout: tracked } = await run('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    for (const file of tracked.split('\0').filter((f) => f !== '' && !f.startsWith('test/') && fs.existsSync(path.join(root, f)))) {
      fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
      fs.copyFileSync(path.join(root, file), path.join(clone, file));
    }
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(clone, 'node_modules'));
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);

    const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: clone, maxBuffer: 64 * 1024 * 1024 });
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; exports: Record<string, string> };
    // Every entry point package.json names is in the tarball.
    const entries = [...Object.values(pkg.bin), ...Object.values(pkg.exports)].map((p) => p.replace(/^\.\//, ''));
    expect(entries.filter((entry) => !files.includes(entry))).toEqual([]);
    expect(files).toContain('dist/node-version.js');
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'CHANGELOG.md', 'README.md']));
  } finally {
    fs.rmSync(clone, { recursive: true, force: true });
  }
});

test('npm pack in a fresh clone before `npm ci` says to run it first', async () => {
  fs.mkdirSync(path.join(root, '.zoneguard'), { recursive: true });
  const clone = fs.mkdtempSync(path.join(root, '.zoneguard', 'no-install-clone-'));
  try {
    for (const file of ['package.json', 'scripts/prepare.mjs', 'tsconfig.build.json']) {
      fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
      fs.copyFileSync(path.join(root, file), path.join(clone, file));
    }
    const failed = await run('npm', ['pack', '--dry-run'], { cwd: clone }).then(() => undefined, (error: unknown) => error as { stderr: string });
    expect(failed?.stderr).toContain('run `npm ci` first, then this command again.');
    expect(failed?.stderr).not.toContain('tsc: not found');
  } finally {
    fs.rmSync(clone, { recursive: true, force: true });
  }
});
