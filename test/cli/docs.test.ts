import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startEmulator, type StartedEmulator } from '../../src/emulator';

// The docs check: every `$ zoneguard …` sample of docs/cli.md is run through the built bin against the demo
// emulator the page says it was captured from, and must print what the page shows. A sample ending in
// `; echo "exit $?"` shows its exit code too, as a shell prints it.
jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/cli/index.js');

interface Sample {
  line: number;
  command: string;
  expected: string;
}

/** The `$ ` commands of the console blocks of a Markdown file, each with the lines that follow it. */
function consoleSamples(file: string): Sample[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const samples: Sample[] = [];
  let inConsole = false;
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('```')) {
      inConsole = !inConsole && line === '```console';
      continue;
    }
    if (!inConsole) continue;
    if (line.startsWith('$ ')) samples.push({ line: index + 1, command: line.slice(2), expected: '' });
    else samples.at(-1)!.expected += `${line}\n`;
  }
  return samples;
}

/** Runs a sample's command line (`[VAR=value ...] zoneguard args... [; echo "exit $?"]`) and answers what a terminal shows. */
async function runSample(command: string, env: Record<string, string>): Promise<string> {
  const showExit = command.endsWith('; echo "exit $?"');
  const words = command.replace(/; echo "exit \$\?"$/, '').split(' ');
  const assignments: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    assignments[name!] = value.join('=');
  }
  if (words.shift() !== 'zoneguard') throw new Error(`not a zoneguard command: ${command}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...words], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env, ...assignments } });
    let shown = '';
    child.stdout.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve(showExit ? `${shown}exit ${code}\n` : shown));
  });
}

let emulator: StartedEmulator;
beforeAll(async () => {
  await promisify(execFile)(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root });
  emulator = await startEmulator({ port: 0 });
});
afterAll(() => emulator?.close());

const samples = consoleSamples(path.join(root, 'docs/cli.md'));

test('docs/cli.md has samples, errors with their exit codes among them', () => {
  expect(samples.length).toBeGreaterThanOrEqual(10);
  expect(samples.filter((s) => s.command.endsWith('; echo "exit $?"')).map((s) => s.expected.trim().split('\n').at(-1))).toEqual(
    expect.arrayContaining(['exit 1', 'exit 2']),
  );
});

test.each(samples.map((s) => [`line ${s.line}: ${s.command}`, s] as const))('docs/cli.md %s', async (_name, sample) => {
  const env = { ZONEGUARD_BASE_URL: emulator.baseUrl, ZONEGUARD_API_TOKEN: emulator.credentials.apiToken };
  expect(await runSample(sample.command, env)).toBe(sample.expected);
});
