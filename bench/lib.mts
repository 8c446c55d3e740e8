// What the benchmarks share: how a bench reports its figures to bench/report.mts, engine workspaces under
// .zoneguard/bench/, the emulator's counters read per step, and small statistics.
//
// The benches run on Node 24 directly (type stripping) and import the BUILT package (`pulumi-zoneguard`, linked
// into node_modules by scripts/engine.sh), as a consumer would. A bench loads this file with
// `await import(new URL('./lib.mts', import.meta.url).href)`: TypeScript types it through './lib.mjs'.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { LocalWorkspace, type PulumiFn, type Stack } from '@pulumi/pulumi/automation/index.js';
import {
  EmulatorAdmin,
  startEmulator,
  type RequestCounters,
  type RequestLogEntry,
  type StartEmulatorOptions,
  type StartedEmulator,
} from 'pulumi-zoneguard/emulator';

export const root = path.resolve(import.meta.dirname, '..');

/** One figure of the summary table of BENCHMARKS.md. */
export interface Figure {
  /** What is measured, e.g. "API calls, preview of the unchanged demo stack". */
  what: string;
  /** The measured value as it reads in the table. */
  value: string;
  /** The issue's goal, when it sets one. */
  goal?: string;
  /** Whether the goal is met (undefined: no goal). */
  met?: boolean;
}

/** What a bench hands to the report: its summary figures and a markdown section with the details. */
export interface BenchResult {
  bench: string;
  /** The command that runs this bench alone (after the build and environment of scripts/bench.sh). */
  command: string;
  figures: Figure[];
  /** Markdown: how it was measured and the detailed tables. */
  section: string;
}

/** The line prefix bench/report.mts looks for on a bench's stdout. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

export function emitResult(result: BenchResult): void {
  process.stdout.write(`\n${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

/** A fresh directory under .zoneguard/bench/ (ignored by git). */
export function workDir(label: string): string {
  const dir = path.join(root, '.zoneguard', 'bench', label);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'state'), { recursive: true });
  return dir;
}

/** Environment of every engine run: its own PULUMI_HOME and passphrase; the rest comes from scripts/engine.sh. */
export function engineEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PULUMI_HOME: path.join(dir, 'home'), PULUMI_CONFIG_PASSPHRASE: 'bench', ...extra };
}

/** A redis-server on a free loopback port, nothing saved to disk: the shared store of the benches that need one. */
export async function startRedis(): Promise<{ url: string; stop(): void }> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    server.on('error', reject);
    createInterface({ input: server.stdout! }).on('line', (line) => line.includes('Ready to accept connections') && resolve());
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => server.kill('SIGTERM') };
}

/**
 * `zoneguard emulator` (the built CLI), seeded from `seedFile` when given, in a child process, once it printed its
 * URLs: a process of its own, as the service is, so the measuring process's stalls and heap are not the emulator's.
 */
export async function startEmulatorProcess(seedFile?: string): Promise<{ child: ChildProcess; baseUrl: string; admin: EmulatorAdmin }> {
  const args = [path.join(root, 'dist/cli/index.js'), 'emulator', '--port', '0', ...(seedFile === undefined ? [] : ['--seed', seedFile])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const urls: Record<string, string> = {};
  for await (const line of createInterface({ input: child.stdout! })) {
    const found = /^\s*(base|admin) URL\s+(\S+)/.exec(line);
    if (found) urls[found[1]!] = found[2]!;
    if (urls.base && urls.admin) break;
  }
  if (!urls.base || !urls.admin) {
    child.kill('SIGTERM');
    throw new Error('the emulator did not print its URLs');
  }
  return { child, baseUrl: urls.base, admin: new EmulatorAdmin(urls.admin) };
}

/** A stack of an inline program in a hermetic workspace, zoneguard's config pointing at the emulator. */
export async function engineStack(
  dir: string,
  options: {
    project: string;
    stack: string;
    program: PulumiFn;
    emulator: Pick<StartedEmulator, 'baseUrl' | 'credentials'>;
    config?: Record<string, { value: string; secret?: boolean }>;
    env?: Record<string, string>;
  },
): Promise<Stack> {
  const stackDir = path.join(dir, options.stack);
  fs.mkdirSync(stackDir, { recursive: true });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: options.stack, projectName: options.project, program: options.program },
    {
      workDir: stackDir,
      envVars: engineEnv(dir, options.env),
      projectSettings: { name: options.project, runtime: 'nodejs', backend: { url: pathToFileURL(path.join(dir, 'state')).href } },
    },
  );
  await stack.setAllConfig({
    'zoneguard:baseUrl': { value: options.emulator.baseUrl },
    'zoneguard:apiToken': { value: options.emulator.credentials.apiToken, secret: true },
    ...options.config,
  });
  return stack;
}

/** What a bench against an emulator of its own process is given ({@link emulatorBench}). */
export interface EmulatorBench {
  emulator: StartedEmulator;
  /** The bench's work directory under .zoneguard/bench/. */
  dir: string;
  /** A stack of `program` in the work directory, named `stack` (default `bench`), zoneguard's config pointing at the emulator. */
  stack(project: string, program: PulumiFn, stack?: string): Promise<Stack>;
  /** The bench's steps, measured one after the other. */
  steps: ReturnType<typeof stepRecorder>;
}

/**
 * A bench against an emulator in this process (`port: 0` and `options`): makes its work directory, runs `measure`,
 * emits the result it answers, and closes the emulator however the bench ends.
 */
export async function emulatorBench(label: string, options: StartEmulatorOptions, measure: (bench: EmulatorBench) => Promise<BenchResult>): Promise<void> {
  const emulator = await startEmulator({ port: 0, ...options });
  const dir = workDir(label);
  try {
    const stack = (project: string, program: PulumiFn, name = 'bench') => engineStack(dir, { project, stack: name, program, emulator });
    emitResult(await measure({ emulator, dir, stack, steps: stepRecorder(emulator) }));
  } finally {
    await emulator.close();
  }
}

/** The program of a TypeScript module (examples/demo/index.mts), imported afresh on each run so it declares its resources every time. */
export function moduleProgram(file: string): PulumiFn {
  let runs = 0;
  return async () => {
    const url = new URL(pathToFileURL(file).href);
    url.searchParams.set('run', String(++runs));
    return { ...(await import(url.href)) };
  };
}

/** The service requests of one step: the emulator's log and counters, emptied before the step. */
export async function measureRequests<T>(
  emulator: Pick<StartedEmulator, 'admin'>,
  step: () => Promise<T>,
): Promise<{ result: T; requests: RequestLogEntry[]; counters: RequestCounters; ms: number }> {
  await emulator.admin.clearRequests();
  const started = performance.now();
  const result = await step();
  const ms = performance.now() - started;
  const [requests, counters] = await Promise.all([emulator.admin.requests(), emulator.admin.counters()]);
  return { result, requests, counters, ms };
}

/** A step's calls: reads, writes, and dry runs (the diff's check by the service, docs/custom-rules.md#previews), which save nothing. */
export interface StepCalls {
  calls: number;
  reads: number;
  writes: number;
  dryRuns: number;
}

/**
 * Engine steps measured one after the other by the emulator's request log (each checked against its counters), and
 * what each cost: `run` measures and prints one, `count` splits a step's calls (the first whose name starts so),
 * `callText` words them for a table, `stepsTable` shows every step by route.
 */
export function stepRecorder(emulator: Pick<StartedEmulator, 'admin'>) {
  const steps: Array<{ name: string; requests: RequestLogEntry[]; ms: number }> = [];
  const run = async (name: string, command: () => Promise<unknown>): Promise<void> => {
    const measured = await measureRequests(emulator, command);
    if (measured.counters.total !== measured.requests.length) {
      throw new Error(`${name}: the request log (${measured.requests.length}) and the counters (${measured.counters.total}) disagree`);
    }
    steps.push({ name, requests: measured.requests, ms: measured.ms });
    console.log(`${name}: ${measured.requests.length} requests in ${fmt.ms(measured.ms)}`);
  };
  const count = (name: string): StepCalls => {
    const step = steps.find((s) => s.name.startsWith(name))!;
    const dryRuns = step.requests.filter((entry) => entry.query.dry_run === 'true').length;
    const writes = step.requests.filter((entry) => entry.method !== 'GET').length - dryRuns;
    return { calls: step.requests.length, reads: step.requests.length - writes - dryRuns, writes, dryRuns };
  };
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const callText = (c: StepCalls): string =>
    `${c.calls} (${plural(c.reads, 'read')}, ${plural(c.writes, 'write')}${c.dryRuns > 0 ? `, ${plural(c.dryRuns, 'dry run')}` : ''})`;
  /** The steps as a table: wall time, calls, and calls by route (a dry run's marked). */
  const stepsTable = (): string =>
    table(
      ['step', 'wall time', 'API calls', 'calls by route'],
      steps.map((step) => {
        const routes = new Map<string, number>();
        for (const entry of step.requests) {
          const route = `${routeOf(entry)}${entry.query.dry_run === 'true' ? '?dry_run=true' : ''}`;
          routes.set(route, (routes.get(route) ?? 0) + 1);
        }
        return [step.name, fmt.ms(step.ms), step.requests.length, [...routes.entries()].map(([route, n]) => `${n}× \`${route}\``).join('<br>') || '-'];
      }),
    );
  return { steps, run, count, callText, stepsTable };
}

/** The route template of a logged request, as the counters key it (ids replaced by their parameter names). */
export function routeOf(entry: Pick<RequestLogEntry, 'method' | 'path'>): string {
  const relative = entry.path.replace(/^\/client\/v4/, '');
  const template = relative
    .replace(/^\/zones\/[0-9a-f]{32}/, '/zones/:zone_id')
    .replace(
      /\/(policies|scripts|connections|cookies|rules|filters|overrides|packages|groups|rulesets)\/[0-9a-f]{32}/g,
      (_m, group: string) => `/${group}/:id`,
    );
  return `${entry.method} ${template}`;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const fmt = {
  ms: (value: number) =>
    value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 2 : 0)} ms`,
  bytes: (value: number) =>
    value >= 1024 ** 3
      ? `${(value / 1024 ** 3).toFixed(1)} GiB`
      : value >= 1024 ** 2
        ? `${(value / 1024 ** 2).toFixed(1)} MiB`
        : value >= 1024
          ? `${(value / 1024).toFixed(2)} KiB`
          : `${value} B`,
  int: (value: number) => Math.round(value).toLocaleString('en-US'),
};

/**
 * The least time `calls` requests can take under a limit of `requests` per `windowMs`: a batch per window, the
 * last when its window opens.
 */
export function floorMs(calls: number, limit: { requests: number; windowMs: number }): number {
  return (Math.ceil(calls / limit.requests) - 1) * limit.windowMs;
}

/** The most of these arrival times (sorted) in any span of `windowMs`: what the service's limit counts. */
export function mostInAnyWindow(arrivals: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < arrivals.length; i++) {
    while (arrivals[i]! - arrivals[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** A markdown table. */
export function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const line = (cells: ReadonlyArray<string | number>) => `| ${cells.map((cell) => String(cell).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The machine a figure was measured on. */
export function machine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpus: os.availableParallelism(),
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    memoryBytes: os.totalmem(),
    loadAverage: os.loadavg(),
  };
}
