import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// A consumer's project, shared by the packed-* engine suites: the package from `npm pack` installed in a folder
// outside this repo, a program that requires 'pulumi-zoneguard', and the Automation API of that project's own
// node_modules driving the real engine there (a child process, so nothing of this repo's module graph leaks in). The
// provider process the engine starts runs in that folder and resolves the stored closures'
// require('pulumi-zoneguard/providers') from its node_modules, exactly as for a user; so does its `zoneguard` command.

export const root = path.resolve(__dirname, '../..');
export const run = promisify(execFile);

/** The tarball `npm pack` made of this repo, and the folder that holds it. */
export interface Packed {
  packs: string;
  tarball: string;
}

/**
 * `npm pack` of the built package (dist/ must be built: the suite fails first otherwise). Without the package's
 * `prepare` (`--ignore-scripts`): it rebuilds dist/, which another engine suite of the same run may be reading.
 */
export async function packTarball(): Promise<Packed> {
  if (!fs.existsSync(path.join(root, 'dist/index.js'))) {
    throw new Error('dist/ is missing: build first (tsc -p tsconfig.build.json, or npm test, which builds)');
  }
  const packs = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-pack-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', packs], { cwd: root, encoding: 'utf8' });
  return { packs, tarball: stdout.trim().split('\n').pop()! };
}

/** The line the driver prints after the engine's output when the command failed, before the error. */
const FAILED = 'driver: the engine command failed';

// The driver: one engine command per run on the stack ZONEGUARD_TEST_STACK (default dev) of the program
// ZONEGUARD_TEST_PROGRAM (default index.js), the result as JSON on stdout's last line, the engine's output on stderr.
// `sealed-preview` is `pulumi preview --refresh --json` as ci.sh pr runs it (ZONEGUARD_SEAL_RECORD from the
// environment, which the CLI passes to the providers): its engine events, one a line, into preview.json.
// `stack-export` writes what `pulumi stack export` prints into stack.json.
const DRIVER = `const fs = require('node:fs');
const path = require('node:path');
const { LocalWorkspace } = require('@pulumi/pulumi/automation');

const env = process.env;
const file = path.join(__dirname, env.ZONEGUARD_TEST_PROGRAM || 'index.js');
const program = async () => {
  // The inline program is loaded afresh for each engine run.
  delete require.cache[require.resolve(file)];
  return { ...require(file) };
};

(async () => {
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: env.ZONEGUARD_TEST_STACK || 'dev', projectName: 'consumer', program },
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
  } else if (command === 'sealed-preview') {
    const events = [];
    const preview = await stack.preview({ refresh: true, color: 'never', onOutput, onEvent: (event) => events.push(event) });
    fs.writeFileSync(path.join(__dirname, 'preview.json'), events.map((event) => JSON.stringify(event)).join('\\n'));
    result = { changes: preview.changeSummary };
  } else if (command === 'destroy') {
    result = { changes: (await stack.destroy({ color: 'never', onOutput })).summary.resourceChanges };
  } else if (command === 'export') {
    result = (await stack.exportStack()).deployment;
  } else if (command === 'stack-export') {
    fs.writeFileSync(path.join(__dirname, 'stack.json'), JSON.stringify(await stack.exportStack()));
    result = {};
  } else {
    throw new Error('unknown command ' + command);
  }
  process.stdout.write('\\n' + JSON.stringify(result) + '\\n');
})().catch((error) => {
  process.stderr.write('\\n' + ${JSON.stringify(FAILED)} + '\\n');
  console.error(error);
  process.exit(1);
});
`;

/** A consumer's project pinned at one @pulumi/pulumi, with the packed package: `npm install` there, as a user would. */
export async function consumerProject(packed: Packed, pulumiVersion: string, program: string): Promise<string> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `zoneguard-packed-${pulumiVersion}-`));
  const dependencies = { '@pulumi/pulumi': pulumiVersion, 'pulumi-zoneguard': `file:${path.join(packed.packs, packed.tarball)}` };
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'consumer', private: true, main: 'index.js', dependencies }, null, 2));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: folder });
  fs.writeFileSync(path.join(folder, 'index.js'), program);
  fs.writeFileSync(path.join(folder, 'driver.js'), DRIVER);
  fs.mkdirSync(path.join(folder, '.state'));
  return fs.realpathSync(folder);
}

/** The driver's commands. */
export type DriverCommand = 'first-preview' | 'up' | 'preview' | 'sealed-preview' | 'destroy' | 'export' | 'stack-export';

/**
 * Runs the driver in a consumer's project (asynchronously: the emulator answers from the test's process), with the
 * test's environment and `env` (ZONEGUARD_TEST_BASE_URL, _TOKEN, _ZONE; _STACK and _PROGRAM to choose others), and
 * nothing but the project's own node_modules.
 */
export async function runDriver(folder: string, command: DriverCommand, env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete merged.NODE_PATH;
  const { stdout } = await run(process.execPath, ['driver.js', command], { cwd: folder, env: merged, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

/** A driver run expected to fail (runDriver's promise): what the engine printed, without the driver's error after it. */
export function engineFailureOf(running: Promise<unknown>): Promise<string> {
  return running.then(
    () => {
      throw new Error('the engine command succeeded, but it was expected to fail');
    },
    (error: { stderr?: string }) => {
      const stderr = error.stderr ?? '';
      if (!stderr.includes(FAILED)) throw error;
      return stderr.slice(0, stderr.indexOf(FAILED));
    },
  );
}
