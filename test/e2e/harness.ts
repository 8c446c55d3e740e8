import * as fs from 'node:fs';
import * as path from 'node:path';
import { LocalWorkspace, type Stack, type PulumiFn } from '@pulumi/pulumi/automation';
import * as ts from 'typescript';
import { startEmulator, type StartEmulatorOptions, type StartedEmulator } from '../../src/emulator';
import { kindOfType } from '../../src/kinds';

const root = path.resolve(__dirname, '../..');

/**
 * Whether a resource of a stack's state is one of zoneguard's kinds, holding an object of the service: not the
 * stack's owner id (docs/ownership.md#owner-id), which every stack has from its first up and which holds nothing.
 */
export const holdsServiceObject = (resource: { type: string }): boolean => kindOfType(resource.type) !== undefined;

/** Fails loudly when the engine is not on PATH: in CI a missing engine is a failure, never a skip. */
export function assertEngineOnPath(): void {
  const dirs = (process.env.PATH ?? '').split(path.delimiter);
  for (const bin of ['pulumi', 'pulumi-resource-pulumi-nodejs']) {
    if (!dirs.some((dir) => fs.existsSync(path.join(dir, bin)))) {
      throw new Error(`${bin} is not on PATH: run the tests with 'npm test', which builds and provides the engine`);
    }
  }
}

/** A hermetic engine environment: its own PULUMI_HOME, file backend and work directory under .zoneguard/. */
export interface EngineSandbox {
  emulator: StartedEmulator;
  dir: string;
  /**
   * A stack of an inline program, with zoneguard's config pointing at the emulator. `backend` names another file
   * backend of the sandbox (default: its one), so two stacks of the same project and stack name can live side by side.
   */
  stack(name: string, program: PulumiFn, config?: Record<string, { value: string; secret?: boolean }>, backend?: string): Promise<Stack>;
  /** Every file of the backend's state directory, as text: what an attacker with the state would read. */
  stateText(): string;
  close(): Promise<void>;
}

/** An engine sandbox and its emulator (`emulatorOptions`: a seed or a state file; default the demo seed). */
export async function openSandbox(label: string, emulatorOptions: StartEmulatorOptions = {}): Promise<EngineSandbox> {
  assertEngineOnPath();
  const emulator = await startEmulator({ port: 0, ...emulatorOptions });
  fs.mkdirSync(path.join(root, '.zoneguard'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, '.zoneguard', `e2e-${label}-`));
  fs.mkdirSync(path.join(dir, 'state'));
  const envVars = {
    PULUMI_HOME: path.join(dir, 'home'),
    PULUMI_CONFIG_PASSPHRASE: 'e2e',
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
  };
  return {
    emulator,
    dir,
    async stack(name, program, config = {}, backend) {
      const workDir = path.join(dir, backend === undefined ? name : `${backend}-${name}`);
      const state = path.join(dir, backend === undefined ? 'state' : `state-${backend}`);
      fs.mkdirSync(workDir, { recursive: true });
      fs.mkdirSync(state, { recursive: true });
      const stack = await LocalWorkspace.createOrSelectStack(
        { stackName: name, projectName: `zoneguard-e2e-${label}`, program },
        {
          workDir,
          envVars,
          projectSettings: {
            name: `zoneguard-e2e-${label}`,
            runtime: 'nodejs',
            backend: { url: `file://${state}` },
          },
        },
      );
      await stack.setAllConfig({
        'zoneguard:baseUrl': { value: emulator.baseUrl },
        'zoneguard:apiToken': { value: emulator.credentials.apiToken, secret: true },
        ...config,
      });
      return stack;
    },
    stateText() {
      const state = path.join(dir, 'state');
      return fs
        .readdirSync(state, { recursive: true, encoding: 'utf8' })
        .map((file) => path.join(state, file))
        .filter((file) => fs.statSync(file).isFile())
        .map((file) => fs.readFileSync(file, 'utf8'))
        .join('\n');
    },
    async close() {
      await emulator.close();
      if (!process.env.ZONEGUARD_KEEP_E2E) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Asserts that the sandbox's state holds no credential (the token's config key, never the token or the API key) and
 * that each of zoneguard's resources of `stack` stores a provider of at most 2 KB; answers their types, sorted.
 */
export async function expectNoCredentialAndSmallProviders(sandbox: EngineSandbox, stack: Stack): Promise<string[]> {
  const state = sandbox.stateText();
  expect(state).toContain('"zoneguard:apiToken"');
  for (const secret of [sandbox.emulator.credentials.apiToken, sandbox.emulator.credentials.apiKey]) expect(state).not.toContain(secret);
  const deployment = (await stack.exportStack()).deployment as { resources: Array<{ type: string; inputs: Record<string, unknown> }> };
  const dynamic = deployment.resources.filter((r) => r.type.startsWith('pulumi-nodejs:dynamic/zoneguard:'));
  for (const resource of dynamic) expect(Buffer.byteLength(String(resource.inputs.__provider))).toBeLessThanOrEqual(2048);
  return dynamic.map((r) => r.type).sort();
}

/** What `preview --diff` prints, and its change summary. */
export async function previewDiff(stack: Stack): Promise<{ text: string; summary: Record<string, number> }> {
  let text = '';
  const result = await stack.preview({ diff: true, color: 'never', onOutput: (out) => (text += out) });
  return { text, summary: result.changeSummary as Record<string, number> };
}

/**
 * Runs an engine command that must fail, and answers everything the engine printed about it: the streamed output and
 * the error's message (which carries the CLI's stderr). Resolving instead of failing is an error of its own.
 */
export async function engineFailure(run: (onOutput: (out: string) => void) => Promise<unknown>): Promise<string> {
  let text = '';
  try {
    await run((out) => (text += out));
  } catch (error) {
    return `${text}\n${error instanceof Error ? error.message : String(error)}`;
  }
  throw new Error(`the engine command succeeded, but it was expected to fail; it printed:\n${text}`);
}

/**
 * The program of a Pulumi project folder's index.ts, run inline: compiled the way ts-node would (transpile only;
 * `tsc -p tsconfig.json` type-checks the examples) and evaluated afresh at each engine run, so its resources are
 * declared every time. Its imports resolve from this repo: 'pulumi-zoneguard' is the built package (the link
 * scripts/engine.sh makes), as the provider process loads it too.
 */
export function inlineProgram(file: string): PulumiFn {
  const outputText = transpiledProgram(file);
  return async () => {
    const module = { exports: {} as Record<string, unknown> };
    new Function('require', 'module', 'exports', '__filename', '__dirname', outputText)(require, module, module.exports, file, path.dirname(file));
    return { ...module.exports };
  };
}

/** A program's TypeScript file as ts-node runs it: transpiled only, to CommonJS. */
export function transpiledProgram(file: string): string {
  return ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2023, esModuleInterop: true },
  }).outputText;
}

/**
 * A stack of a Pulumi project folder (Pulumi.yaml and index.ts, as under examples/) in the sandbox: its project name
 * from Pulumi.yaml, so `new pulumi.Config()` reads `<project>:<key>`; zoneguard's config pointing at the emulator,
 * and `config` set under the project's namespace.
 */
export async function projectStack(
  sandbox: EngineSandbox,
  folder: string,
  stackName: string,
  config: Record<string, string | object> = {},
): Promise<Stack> {
  const projectName = /^name:\s*(\S+)\s*$/m.exec(fs.readFileSync(path.join(folder, 'Pulumi.yaml'), 'utf8'))?.[1];
  if (!projectName) throw new Error(`${folder}/Pulumi.yaml names no project`);
  const workDir = path.join(sandbox.dir, `${projectName}-${stackName}`);
  fs.mkdirSync(workDir, { recursive: true });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName, projectName, program: inlineProgram(path.join(folder, 'index.ts')) },
    {
      workDir,
      // The same environment as openSandbox's stacks: the sandbox's PULUMI_HOME and passphrase.
      envVars: {
        PULUMI_HOME: path.join(sandbox.dir, 'home'),
        PULUMI_CONFIG_PASSPHRASE: 'e2e',
        PULUMI_SKIP_UPDATE_CHECK: 'true',
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
      },
      projectSettings: { name: projectName, runtime: 'nodejs', backend: { url: `file://${path.join(sandbox.dir, 'state')}` } },
    },
  );
  await stack.setAllConfig({
    'zoneguard:baseUrl': { value: sandbox.emulator.baseUrl },
    'zoneguard:apiToken': { value: sandbox.emulator.credentials.apiToken, secret: true },
    ...Object.fromEntries(
      Object.entries(config).map(([key, value]) => [`${projectName}:${key}`, { value: typeof value === 'string' ? value : JSON.stringify(value) }]),
    ),
  });
  return stack;
}
