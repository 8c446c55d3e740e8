// How cost grows with the size of a stack: `up`, a no-op `preview` and `refresh` of 100, 400 and 1,600 resources
// (about 400 per zone: 1, 1 and 4 enterprise zones; half CspPolicy, half FirewallRuleWithFilter), by the real engine
// against the emulator; then `up` of the same program again, as a second stack, with the engine's per-step
// checkpoints skipped, to tell the engine's share of the slope from the provider's. For each step: wall time, API
// calls (the emulator's request log), and from /proc, sampled every 100 ms while the step runs, the dynamic provider
// host's peak RSS and CPU time, the engine's CPU time and bytes written; the state file's size after it. The growth
// exponent of each is the least-squares slope of log(figure) against log(resources): 1 is linear; the exponent of
// the cost per added resource (between consecutive sizes) leaves out the processes' start: 0 is linear.
// The client's rate budget is off (`zoneguard:rateBudget off`) so that the wall time is the engine's and the
// provider's, not the budget's (1,600 creates would otherwise wait for the 1200-per-5-minutes window).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/growth.bench.mts [SIZES]
//
// SIZES: comma-separated resource counts (default 100,400,1600, or ZONEGUARD_GROWTH_SIZES); ZONEGUARD_GROWTH_KEEP=1
// adds earlier runs' rows of the other sizes (see SAVED_ROWS). ZONEGUARD_GROWTH_PREVIOUS=<commit> measures that
// commit's build first, in the same run and by this same bench (see previousBuildRows), and sets the two side by side.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CspPolicy, FirewallRuleWithFilter } from 'pulumi-zoneguard';
import { startEmulator } from 'pulumi-zoneguard/emulator';
import type * as Lib from './lib.mjs';
import type { LocalWorkspace } from '@pulumi/pulumi/automation/index.js';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/growth.bench.mts';
const PER_ZONE = 400;
// The argument, else ZONEGUARD_GROWTH_SIZES (the way through `npm run bench -- growth`), else all three sizes.
const measuredSizes = (process.argv[2] ?? process.env.ZONEGUARD_GROWTH_SIZES ?? '100,400,1600').split(',').map(Number);
/**
 * The rows of the last run; with ZONEGUARD_GROWTH_KEEP=1 a run reports, beside its own sizes, the rows of the other
 * sizes from the runs before it, each row naming its run: so the bench can run as pieces that each hold the engine
 * lock under 10 minutes (`node bench/growth.bench.mts 1600`, then `ZONEGUARD_GROWTH_SIZES=100,400
 * ZONEGUARD_GROWTH_KEEP=1 npm run bench -- growth --write`). Both series of one size always come from one run.
 */
const SAVED_ROWS = path.join(lib.root, '.zoneguard', 'bench', 'growth-rows.json');
const RUN = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC at ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: lib.root, encoding: 'utf8' }).trim()}`;

/** What the processes of one step cost, read from /proc: the dynamic provider host and the engine (the `pulumi` CLI). */
interface ProcessCost {
  /** Peak RSS of the dynamic provider host (the node process the engine starts for `pulumi-nodejs`). */
  providerPeakRss: number;
  /** CPU time (user + system) of the provider host, in ms: its own work, the creates' and reads' included. */
  providerCpuMs: number;
  /** CPU time of the engine process, in ms: planning, steps, and saving the state after each step. */
  engineCpuMs: number;
  /** Bytes the engine wrote (its `wchar`: the state file, its backups, its gRPC and display output). */
  engineWrittenBytes: number;
}

const CLOCK_TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
interface ProcessStat {
  /** pid and start time: a pid alone is reused once the machine's pids wrap. */
  key: string;
  name: string;
  ppid: number;
  cpuTicks: number;
}

/** The parent and CPU ticks of a process, from /proc/<pid>/stat (the name in parentheses may hold spaces). */
function readStat(pid: string): ProcessStat {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is the 3rd field of proc(5): state; ppid is the 4th, utime the 14th, stime the 15th, starttime the 22nd.
  return {
    key: `${pid}:${fields[19]}`,
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    ppid: Number(fields[1]),
    cpuTicks: Number(fields[11]) + Number(fields[12]),
  };
}

/**
 * Whether a process is this checkout's dynamic provider host: node running @pulumi/pulumi's host script from this
 * checkout's node_modules (another checkout's engine runs on the same machine are not ours; `node -e` resolving the
 * script's path is not the host).
 */
function isProviderHost(pid: string): boolean {
  const script = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1] ?? '';
  return script.startsWith(lib.root) && script.includes('dynamic-provider');
}

/**
 * Runs `step`, sampling every 100 ms the engine (the `pulumi` process this process starts) and the provider host: the
 * host's RSS and CPU time, the engine's CPU time and bytes written. A process's figures are those of its last sample,
 * so each may lose up to one interval of CPU time before it exits (tens of ms against seconds). Throws when no
 * provider host or engine was seen.
 */
async function withProcessCost<T>(step: () => Promise<T>): Promise<{ result: T; cost: ProcessCost }> {
  const ours = new Map<string, { role: 'provider' | 'engine'; cpuTicks: number; rss: number; written: number }>();
  const sample = () => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readStat(pid);
        const role = stat.ppid === process.pid && stat.name === 'pulumi' ? 'engine' : isProviderHost(pid) ? 'provider' : undefined;
        if (!role) continue;
        const known = ours.get(stat.key) ?? { role, cpuTicks: 0, rss: 0, written: 0 };
        ours.set(stat.key, known);
        known.cpuTicks = stat.cpuTicks;
        if (role === 'provider') {
          const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
          if (rss) known.rss = Math.max(known.rss, Number(rss[1]) * 1024);
        } else {
          known.written = Number(/^wchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? known.written);
        }
      } catch {
        // The process ended between the listing and the reads.
      }
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await step();
    const of = (role: 'provider' | 'engine') => {
      const found = [...ours.values()].filter((known) => known.role === role);
      if (found.length === 0) throw new Error(`no ${role === 'engine' ? 'engine (pulumi)' : 'dynamic provider host'} process was seen during the step`);
      return found;
    };
    const cpuMs = (role: 'provider' | 'engine') => (of(role).reduce((sum, known) => sum + known.cpuTicks, 0) * 1000) / CLOCK_TICKS_PER_S;
    return {
      result,
      cost: {
        providerPeakRss: Math.max(...of('provider').map((known) => known.rss)),
        providerCpuMs: cpuMs('provider'),
        engineCpuMs: cpuMs('engine'),
        engineWrittenBytes: of('engine').reduce((sum, known) => sum + known.written, 0),
      },
    };
  } finally {
    clearInterval(timer);
  }
}

/** Least-squares slope of log(y) against log(x). */
function growthExponent(points: ReadonlyArray<readonly [number, number]>): number {
  const logs = points.filter(([, y]) => y > 0).map(([x, y]) => [Math.log(x), Math.log(y)] as const);
  const mx = logs.reduce((sum, [x]) => sum + x, 0) / logs.length;
  const my = logs.reduce((sum, [, y]) => sum + y, 0) / logs.length;
  const num = logs.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const den = logs.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return num / den;
}

/** The steps measured: the three of the issue on each stack as shipped, and `up` again with the engine's checkpoints skipped. */
type Step = 'up' | 'no-op preview' | 'refresh' | 'up, checkpoints skipped';
const STEPS: readonly Step[] = ['up', 'no-op preview', 'refresh', 'up, checkpoints skipped'];
/**
 * The engine's setting that saves the state once at the end of an update instead of after every step (Pulumi CLI
 * 3.259 to 3.276: `SKIP_CHECKPOINTS` in sdk/go/common/env/env.go, which swaps the snapshot manager's service loop in
 * pkg/backend/snapshot.go). The file backend has no journaling up to 3.276 (that is the Pulumi Cloud backend's), so as
 * shipped it serialises and rewrites the whole state file on each step: O(n) a step, O(n²) an `up` of n resources.
 */
const SKIP_CHECKPOINTS = { PULUMI_SKIP_CHECKPOINTS: 'true' };
const PROJECT = 'zoneguard-bench-growth';

interface Row extends ProcessCost {
  build: string;
  size: number;
  zones: number;
  step: Step;
  ms: number;
  calls: number;
  /** CPU time of this process: the inline program (the engine's language host) and the emulator, both served here. */
  benchCpuMs: number;
  /** The stack's state file after the step. */
  stateBytes: number;
  /** When and at which commit the row was measured. */
  run: string;
  /** The load average (1, 5, 15 min) after its size's steps. */
  loadAfter: string;
}
const measuredRows: Row[] = [];
/** Which build a row measured: this checkout's, or the previous commit's (ZONEGUARD_GROWTH_PREVIOUS). */
const THIS_BUILD = 'this build';
/** Set in the run of the previous build: where it writes its rows for the run that started it, instead of a report. */
const ROWS_OUT = process.env.ZONEGUARD_GROWTH_ROWS_OUT;
const PREVIOUS = ROWS_OUT ? undefined : process.env.ZONEGUARD_GROWTH_PREVIOUS || undefined;

/** The bytes of a kind's entry in the state file (compact JSON, as the engine writes it), at each size after `up`. */
interface EntryRow {
  build: string;
  size: number;
  kind: string;
  count: number;
  meanBytes: number;
  maxBytes: number;
  /** Mean bytes of each part of the entry ({@link entryParts}), by part. */
  parts?: Record<string, number>;
}
const entryRows: EntryRow[] = [];

/** The bytes of `"key":value,` in compact JSON: what one key of an object costs in the state file. */
const keyBytes = (key: string, value: unknown) => Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(value)) + 2;
const OWNER_KEYS = ['__zoneguardOwner', '__zoneguardOwnerId'];

/**
 * What each part of a state entry costs, in bytes of compact JSON: the engine's own fields one by one; the inputs'
 * and outputs' keys that zoneguard adds (`__provider` and the `__zoneguard…` ones) one by one, the kind's own fields
 * together; the property dependencies of the owner inputs (on `zoneguard-owner`) one by one, those the SDK sends for
 * every other input together (empty lists here); and the JSON's braces and keys of the nested objects. They add up to
 * the entry.
 */
function entryParts(entry: Record<string, unknown>): Record<string, number> {
  const parts: Record<string, number> = {};
  const add = (part: string, bytes: number) => (parts[part] = (parts[part] ?? 0) + bytes);
  for (const [key, value] of Object.entries(entry)) {
    if (key !== 'inputs' && key !== 'outputs' && key !== 'propertyDependencies') {
      add(key, keyBytes(key, value));
      continue;
    }
    const fields = Object.entries(value as Record<string, unknown>);
    // `"key":{` and `},`, less the comma after its last field.
    add('JSON of the nested objects', Buffer.byteLength(JSON.stringify(key)) + 4 - (fields.length > 0 ? 1 : 0));
    for (const [field, inner] of fields) {
      const own = key === 'propertyDependencies' ? OWNER_KEYS.includes(field) : field.startsWith('__');
      add(own ? `${key}.${field}` : `${key}: ${key === 'propertyDependencies' ? "the other inputs'" : "the kind's fields"}`, keyBytes(field, inner));
    }
  }
  // The entry's own braces, less the comma after its last key.
  add('JSON of the nested objects', 1);
  const [sum, whole] = [Object.values(parts).reduce((total, bytes) => total + bytes, 0), Buffer.byteLength(JSON.stringify(entry))];
  if (sum !== whole) throw new Error(`the parts of a state entry add up to ${sum} B, not its ${whole} B`);
  return parts;
}
/** The goal of issue 27: a resource's state entry at most 2 KB. */
const ENTRY_GOAL = 2048;

/** Each zoneguard kind's entries in a state file: their count, mean and largest size in bytes of compact JSON. */
function entriesByKind(stateFile: string, size: number): EntryRow[] {
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { checkpoint: { latest: { resources: Array<{ type: string }> } } };
  const byKind = new Map<string, Array<{ bytes: number; parts: Record<string, number> }>>();
  for (const entry of state.checkpoint.latest.resources) {
    const kind = /^pulumi-nodejs:dynamic\/zoneguard:(.+)$/.exec(entry.type)?.[1];
    const measured = { bytes: Buffer.byteLength(JSON.stringify(entry)), parts: entryParts(entry) };
    if (kind) byKind.set(kind, [...(byKind.get(kind) ?? []), measured]);
  }
  return [...byKind].map(([kind, entries]) => {
    const parts: Record<string, number> = {};
    for (const entry of entries) for (const [part, bytes] of Object.entries(entry.parts)) parts[part] = (parts[part] ?? 0) + bytes / entries.length;
    return {
      build: THIS_BUILD,
      size,
      kind,
      count: entries.length,
      meanBytes: entries.reduce((sum, entry) => sum + entry.bytes, 0) / entries.length,
      maxBytes: Math.max(...entries.map((entry) => entry.bytes)),
      parts,
    };
  });
}

/**
 * The same bench run on the build of `commit`: a git worktree of it in a temporary directory, this checkout's
 * node_modules copied into it as hard links (its own `pulumi-zoneguard` link then resolves to the worktree, for the
 * program and for the dynamic provider host the engine starts from the stack's directory), this bench and lib.mts
 * copied over its own so both builds are measured alike, its package built, then `node bench/growth.bench.mts SIZES`
 * in it with ZONEGUARD_GROWTH_ROWS_OUT. Its rows come back labelled with the commit; the worktree is removed after.
 */
function previousBuildRows(commit: string, sizes: readonly number[]): { rows: Row[]; entries: EntryRow[] } {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-growth-'));
  const tree = path.join(temp, 'tree');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: lib.root, stdio: ['ignore', 'ignore', 'inherit'] });
  git('worktree', 'add', '--detach', tree, commit);
  try {
    execFileSync('cp', ['-al', path.join(lib.root, 'node_modules'), path.join(tree, 'node_modules')]);
    for (const file of ['growth.bench.mts', 'lib.mts']) fs.copyFileSync(path.join(lib.root, 'bench', file), path.join(tree, 'bench', file));
    const quiet = { cwd: tree, stdio: ['ignore', 2, 2] as ['ignore', number, number] };
    execFileSync(process.execPath, [path.join(tree, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], quiet);
    const out = path.join(temp, 'rows.json');
    execFileSync(process.execPath, [path.join(tree, 'bench', 'growth.bench.mts'), sizes.join(',')], {
      ...quiet,
      env: { ...process.env, ZONEGUARD_GROWTH_ROWS_OUT: out },
    });
    const label = `previous build (${execFileSync('git', ['rev-parse', '--short', commit], { cwd: lib.root, encoding: 'utf8' }).trim()})`;
    const measured = JSON.parse(fs.readFileSync(out, 'utf8')) as { rows: Row[]; entries: EntryRow[] };
    return { rows: measured.rows.map((row) => ({ ...row, build: label })), entries: measured.entries.map((entry) => ({ ...entry, build: label })) };
  } finally {
    git('worktree', 'remove', '--force', tree);
    fs.rmSync(temp, { recursive: true, force: true });
  }
}
const previous = PREVIOUS ? previousBuildRows(PREVIOUS, measuredSizes) : { rows: [], entries: [] };

const emulator = await startEmulator({ port: 0 });
try {
  for (const size of measuredSizes) {
    const zoneCount = Math.ceil(size / PER_ZONE);
    // One stack as shipped, one with checkpoints skipped: each its own zones (a zone holds PER_ZONE rules at most).
    const stackOf = async (name: string, env: Record<string, string>) => {
      const zones: Array<{ id: string }> = [];
      // How many of the size's resources the program declares: all but for the skipped stack's first up (below).
      let declared = size;
      for (let z = 0; z < zoneCount; z++) {
        zones.push(await emulator.admin.seedZone({ name: `${name}-${z}.example`, plan: 'enterprise', ruleQuota: PER_ZONE }));
      }
      const program = async () => {
        for (let i = 0; i < declared; i++) {
          const zone = zones[Math.floor(i / PER_ZONE)]!;
          if (i % 2 === 0) {
            new CspPolicy(`policy-${i}`, { zoneId: zone.id, action: 'log', expression: `http.host eq "p${i}.example.com"`, value: "script-src 'self'" });
          } else {
            new FirewallRuleWithFilter(`rule-${i}`, { zoneId: zone.id, action: 'block', expression: `http.request.uri.path eq "/growth/${i}"` });
          }
        }
        return {};
      };
      const dir = lib.workDir(name);
      const skipping = env.PULUMI_SKIP_CHECKPOINTS !== undefined;
      const stack = await lib.engineStack(dir, {
        project: PROJECT,
        stack: name,
        program,
        emulator,
        env: skipping ? {} : env,
        config: { 'zoneguard:rateBudget': { value: 'off' } },
      });
      if (skipping) {
        // A stack's first up records its owner id with checkpoints (docs/ownership.md#owner-id): one resource, then
        // the measured up, with checkpoints skipped, of the others.
        declared = 1;
        await stack.up({ color: 'never' });
        declared = size;
        Object.assign((stack.workspace as LocalWorkspace).envVars, env);
      }
      // The file backend's layout: <backend>/.pulumi/stacks/<project>/<stack>.json.
      return { stack, stateFile: path.join(dir, 'state', '.pulumi', 'stacks', PROJECT, `${name}.json`) };
    };
    const shipped = await stackOf(`growth-${size}`, {});
    const skipped = await stackOf(`growth-${size}-skip`, SKIP_CHECKPOINTS);
    const run: Record<Step, [typeof shipped, () => Promise<unknown>]> = {
      up: [shipped, () => shipped.stack.up({ color: 'never' })],
      'no-op preview': [shipped, () => shipped.stack.preview({ color: 'never', expectNoChanges: true })],
      refresh: [shipped, () => shipped.stack.refresh({ color: 'never' })],
      'up, checkpoints skipped': [skipped, () => skipped.stack.up({ color: 'never' })],
    };
    for (const step of STEPS) {
      const [target, operation] = run[step];
      const cpuBefore = process.cpuUsage();
      const { result: measured, cost } = await withProcessCost(() => lib.measureRequests(emulator, operation));
      const cpu = process.cpuUsage(cpuBefore);
      const row: Row = {
        build: THIS_BUILD,
        size,
        zones: zoneCount,
        step,
        ms: measured.ms,
        calls: measured.requests.length,
        ...cost,
        benchCpuMs: (cpu.user + cpu.system) / 1000,
        stateBytes: fs.statSync(target.stateFile).size,
        run: RUN,
        loadAfter: '',
      };
      measuredRows.push(row);
      if (step === 'up') entryRows.push(...entriesByKind(target.stateFile, size));
      console.log(
        `${size} resources, ${step}: ${fmt.ms(row.ms)}, ${row.calls} calls, provider host peak RSS ${fmt.bytes(row.providerPeakRss)}, ` +
          `CPU provider host ${fmt.ms(row.providerCpuMs)} / engine ${fmt.ms(row.engineCpuMs)} / program and emulator ${fmt.ms(row.benchCpuMs)}, engine wrote ${fmt.bytes(row.engineWrittenBytes)}, state ${fmt.bytes(row.stateBytes)}`,
      );
    }
    const load = os.loadavg().map((value) => value.toFixed(2)).join(', ');
    for (const row of measuredRows) if (row.size === size) row.loadAfter = load;
  }
} finally {
  await emulator.close();
}

if (ROWS_OUT) {
  fs.writeFileSync(ROWS_OUT, JSON.stringify({ rows: measuredRows, entries: entryRows }));
  process.exit(0);
}
entryRows.unshift(...previous.entries);

// Without ZONEGUARD_GROWTH_KEEP a run starts the saved rows afresh, so a later piece adds to this run's rows only.
const saved: Row[] = process.env.ZONEGUARD_GROWTH_KEEP === '1' && fs.existsSync(SAVED_ROWS) ? (JSON.parse(fs.readFileSync(SAVED_ROWS, 'utf8')) as Row[]) : [];
// Rows saved before the previous build was measured have no build: they are this checkout's.
const allRows = [
  ...saved.map((row) => ({ ...row, build: row.build ?? THIS_BUILD })).filter((row) => !measuredSizes.includes(row.size)),
  ...previous.rows,
  ...measuredRows,
].sort((a, b) => a.size - b.size || STEPS.indexOf(a.step) - STEPS.indexOf(b.step));
fs.writeFileSync(SAVED_ROWS, JSON.stringify(allRows, null, 2));
/** This build's rows: the exponents and findings are of this build; the previous build's `up` is set beside it. */
const rows = allRows.filter((row) => row.build === THIS_BUILD);
const previousUps = allRows.filter((row) => row.build !== THIS_BUILD && row.step === 'up');
const sizes = [...new Set(rows.map((row) => row.size))];
const runs = [...new Set(rows.map((row) => row.run))];

type Measure = 'ms' | 'calls' | 'providerPeakRss' | 'providerCpuMs' | 'engineCpuMs' | 'benchCpuMs' | 'engineWrittenBytes' | 'stateBytes';
const MEASURES = ['ms', 'calls', 'providerPeakRss', 'providerCpuMs', 'engineCpuMs', 'benchCpuMs', 'engineWrittenBytes'] as const;
const rowsOf = (step: Step) => rows.filter((row) => row.step === step);

/**
 * The cost of each resource added between consecutive sizes, at the middle of each interval: the start of the
 * processes (the same at every size, and most of a small stack's cost) drops out, which the exponent of the totals
 * keeps in. A linear cost adds the same per resource at every size; a cost that grows as n² adds in proportion to n.
 */
function marginals(step: Step, measure: Measure): Array<{ from: number; to: number; middle: number; perResource: number }> {
  const of = rowsOf(step);
  return of.slice(1).map((row, i) => {
    const before = of[i]!;
    return { from: before.size, to: row.size, middle: (before.size + row.size) / 2, perResource: (row[measure] - before[measure]) / (row.size - before.size) };
  });
}

const exponents = STEPS.map((step) => ({
  step,
  ...(Object.fromEntries(MEASURES.map((measure) => [measure, growthExponent(rowsOf(step).map((row) => [row.size, row[measure]] as const))])) as Record<
    (typeof MEASURES)[number],
    number
  >),
  /** Growth exponent of the cost per added resource (0: the total is linear; 1: it grows as n²). */
  marginal: Object.fromEntries(
    // A cost per added resource at or below zero (the load changed between sizes) leaves the exponent undefined.
    MEASURES.map((measure) => {
      const points = marginals(step, measure).map((m) => [m.middle, m.perResource] as const);
      return [measure, points.every(([, perResource]) => perResource > 0) ? growthExponent(points) : Number.NaN];
    }),
  ) as Record<(typeof MEASURES)[number], number>,
}));
const exp = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '-');
const perResource = (value: number, row: Row) => fmt.ms(value / row.size);
const byStep = (step: Step) => exponents.find((e) => e.step === step)!;
const LINEAR = 1.15;
/** A cost per added resource that grows at most this fast with the stack counts as flat (the total as linear). */
const FLAT = 0.25;

/** Where the slope of `up` comes from, read from the figures above (each sentence states the figures it rests on). */
function findings(): string[] {
  const up = byStep('up');
  const skip = byStep('up, checkpoints skipped');
  const last = rowsOf('up').at(-1)!;
  const lastSkip = rowsOf('up, checkpoints skipped').at(-1)!;
  // What the engine wrote beyond the same up without checkpoints, in whole state files of the final size (a state
  // that grows evenly from 0 to S and is written m times makes about m·S/2 bytes). Each save writes the file twice:
  // the previous one copied to <stack>.json.bak, then the new one (saveCheckpoint in pkg/backend/diy/state.go).
  const checkpointBytes = last.engineWrittenBytes - lastSkip.engineWrittenBytes;
  const saves = checkpointBytes / last.stateBytes;
  const list = (of: (row: Row) => string, step: Step) => rowsOf(step).map(of).join(' / ');
  const added = (step: Step, measure: Measure) =>
    `${marginals(step, measure)
      .map((m) => `${fmt.ms(m.perResource)} (${m.from}→${m.to})`)
      .join(', ')}, exponent ${exp(byStep(step).marginal[measure as (typeof MEASURES)[number]])}`;
  const flat = (value: number) => value <= FLAT;
  const share = (shipped: number, skipped: number) => `${Math.round((100 * (shipped - skipped)) / shipped)}%`;
  // Whether the checkpoints are most of the engine's CPU at the largest size; whether the engine's and the provider's
  // CPU per added resource grow (undefined: a cost per added resource came out at or below zero, too noisy to tell).
  const checkpointsMatter = last.engineCpuMs - lastSkip.engineCpuMs > last.engineCpuMs / 2;
  const grows = (exponent: number) => (Number.isFinite(exponent) ? !flat(exponent) : undefined);
  const engineGrows = grows(up.marginal.engineCpuMs);
  const providerGrows = grows(up.marginal.providerCpuMs);
  const verdict = !checkpointsMatter
    ? "The engine's checkpoints are not most of the cost at these sizes."
    : engineGrows !== true
      ? "The engine's checkpoints are most of its CPU time, but its cost per added resource does not grow measurably here."
      : providerGrows === false
        ? "The slope is the engine's: it serialises and rewrites the whole state file after every step, so its cost per added resource grows with the stack, and the provider's does not."
        : providerGrows === true
          ? "The engine's checkpoints set most of the slope, but the provider's cost per added resource grows too (see its line above)."
          : "The engine's checkpoints set most of the slope; the provider's cost per added resource is too noisy here to tell.";
  return [
    'Read the cost of each resource added between two sizes ("per added resource", with the growth exponent of that cost: 0 when the total is linear, 1 when it grows as n²): ' +
      "the totals' exponents also carry the processes' start, the same at every size, which makes small stacks look sublinear.",
    '',
    `- **Wall time of \`up\`** per added resource: ${added('up', 'ms')} as shipped; ${added('up, checkpoints skipped', 'ms')} with the engine's per-step checkpoints skipped ` +
      '(`PULUMI_SKIP_CHECKPOINTS=true`, the same program on fresh zones, in the same run).',
    `- **The engine's CPU time in \`up\`** (the \`pulumi\` process) per added resource: ${added('up', 'engineCpuMs')} as shipped; ${added('up, checkpoints skipped', 'engineCpuMs')} without checkpoints.`,
    `- **The state file** holds ${fmt.int(last.stateBytes / last.size)} bytes a resource at ${last.size} (${list((row) => fmt.bytes(row.stateBytes), 'up')}); the engine wrote ${list((row) => fmt.bytes(row.engineWrittenBytes), 'up')} in \`up\` as shipped ` +
      `(exponent ${exp(up.engineWrittenBytes)}) against ${list((row) => fmt.bytes(row.engineWrittenBytes), 'up, checkpoints skipped')} without checkpoints (exponent ${exp(skip.engineWrittenBytes)}). ` +
      `At ${last.size} resources the difference, ${fmt.bytes(checkpointBytes)}, is about ${fmt.int(saves)} saves of a state growing to ${fmt.bytes(last.stateBytes)}, ${(saves / last.size).toFixed(1)} a resource ` +
      '(each save serialises the whole state and writes the file twice: the previous one copied to `.bak`, then the new one).',
    `- **The provider host's CPU time in \`up\`** (its start, then every create: check, the client's request and validation): ${list((row) => fmt.ms(row.providerCpuMs), 'up')}; ` +
      `per added resource ${added('up', 'providerCpuMs')} (${added('up, checkpoints skipped', 'providerCpuMs')} in the series without checkpoints). ` +
      `Its start is most of it in a small stack: a no-op preview, which creates nothing, took ${fmt.ms(rowsOf('no-op preview')[0]!.providerCpuMs)} of host CPU at ${rowsOf('no-op preview')[0]!.size} resources.`,
    `- **The program and the emulator** (this process's CPU time, which serves both) in \`up\`, per added resource: ${added('up', 'benchCpuMs')}.`,
    // CPU time, unlike wall time, hardly moves with the machine's load: the verdict rests on it, the wall time beside it.
    `- **So**: at ${last.size} resources the engine's per-step checkpoints are ${share(last.engineCpuMs, lastSkip.engineCpuMs)} of its CPU time in \`up\` ` +
      `(${fmt.ms(last.engineCpuMs)} as shipped, ${fmt.ms(lastSkip.engineCpuMs)} without) and ${share(last.ms, lastSkip.ms)} of the wall time (${fmt.ms(last.ms)} against ${fmt.ms(lastSkip.ms)}); ` +
      `the provider host used ${fmt.ms(last.providerCpuMs)} of CPU in that \`up\`, ${perResource(last.providerCpuMs, last)} a create with its start. ${verdict} ` +
      'Skipping checkpoints loses the record of an interrupted `up`; since a create takes the object its own interrupted run made (docs/ownership.md#leftovers), the next `up` heals it, and docs/many-stacks.md#skip-checkpoints makes it the mode for large stacks.',
  ];
}

/**
 * Where the bytes of a state entry go, at the largest size this build measured: each part's mean (entryParts), a
 * column a kind, then for each kind the sums that say whose they are.
 */
function entryPartsSection(): string[] {
  const largest = Math.max(...entryRows.filter((entry) => entry.build === THIS_BUILD).map((entry) => entry.size));
  const measured = entryRows.filter((entry) => entry.build === THIS_BUILD && entry.size === largest && entry.parts);
  if (measured.length === 0) return [];
  const names = [...new Set(measured.flatMap((entry) => Object.keys(entry.parts!)))];
  // The engine's fields in their order, then the inputs, outputs and property dependencies, each with zoneguard's keys first.
  const GROUPS = ['inputs', 'outputs', 'propertyDependencies', 'JSON'];
  const order = (part: string) => 2 * GROUPS.findIndex((prefix) => part.startsWith(prefix)) + (part.includes(':') ? 1 : 0);
  names.sort((a, b) => order(a) - order(b));
  const sum = (entry: EntryRow, test: (part: string) => boolean) =>
    Object.entries(entry.parts!).reduce((total, [part, bytes]) => (test(part) ? total + bytes : total), 0);
  const ownerRecords = (part: string) => part === 'dependencies' || OWNER_KEYS.some((key) => part === `propertyDependencies.${key}`);
  return [
    `Where the bytes of an entry go, at ${largest} resources (mean bytes of compact JSON, \`"key":value,\`; the parts add up to the entry):`,
    '',
    table(
      ['part', ...measured.map((entry) => entry.kind)],
      [
        ...names.map((part) => [part, ...measured.map((entry) => (entry.parts![part] === undefined ? '-' : `${fmt.int(entry.parts![part]!)} B`))]),
        ['whole entry', ...measured.map((entry) => `${fmt.int(entry.meanBytes)} B`)],
      ],
    ),
    '',
    ...measured.map(
      (entry) =>
        `- ${entry.kind}: ${fmt.int(entry.meanBytes)} B, of which zoneguard's inputs and outputs ${fmt.int(sum(entry, (part) => /^(inputs|outputs)[.:]/.test(part)))} B ` +
        `(\`__provider\` twice ${fmt.int(sum(entry, (part) => part.endsWith('.__provider')))} B); ` +
        `the engine's records of its dependency on \`zoneguard-owner\` (dependencies and the owner inputs' property dependencies) ${fmt.int(sum(entry, ownerRecords))} B; ` +
        `the property dependencies of the other inputs (empty lists) ${fmt.int(sum(entry, (part) => part.startsWith('propertyDependencies:')))} B; ` +
        `the source position and stack trace the SDK records ${fmt.int(sum(entry, (part) => part === 'sourcePosition' || part === 'stackTrace'))} B.`,
    ),
    '',
  ];
}

lib.emitResult({
  bench: 'How cost grows with the size of a stack',
  command: `${PREVIOUS ? `ZONEGUARD_GROWTH_PREVIOUS=${PREVIOUS} ` : ''}${COMMAND} ${measuredSizes.join(',')}`,
  figures: [
    ...previousUps.map((before) => {
      const now = rows.find((row) => row.step === 'up' && row.size === before.size)!;
      return {
        what: `up of ${before.size} resources, ${THIS_BUILD} against the ${before.build}, in the same run: wall time, engine CPU, state file`,
        value: `${fmt.ms(now.ms)} against ${fmt.ms(before.ms)}; engine CPU ${fmt.ms(now.engineCpuMs)} against ${fmt.ms(before.engineCpuMs)}; state ${fmt.bytes(now.stateBytes)} against ${fmt.bytes(before.stateBytes)}`,
        goal: 'faster than the previous build',
        met: now.ms < before.ms,
      };
    }),
    ...entryRows.map((entry) => ({
      what: `State entry of a ${entry.kind} after up of ${entry.size} resources, ${entry.build} (compact JSON, as in the state file): mean and largest`,
      value: `${fmt.int(entry.meanBytes)} B, largest ${fmt.int(entry.maxBytes)} B (${entry.count} entries)`,
      goal: `at most ${fmt.int(ENTRY_GOAL)} B`,
      met: entry.maxBytes <= ENTRY_GOAL,
    })),
    ...exponents.map((e) => ({
      what: `${e.step} of ${sizes.join(' / ')} resources: growth exponents (1 = linear) of wall time, API calls, provider host peak RSS`,
      value: `wall ${exp(e.ms)}, calls ${exp(e.calls)}, peak RSS ${exp(e.providerPeakRss)}`,
      ...(e.step === 'up, checkpoints skipped'
        ? {}
        : { goal: `wall and calls at most linear (≤ ${LINEAR})`, met: e.ms <= LINEAR && (!Number.isFinite(e.calls) || e.calls <= LINEAR) }),
    })),
    {
      what: `up of ${sizes.join(' / ')} resources: growth exponents of the cost per added resource (0 = linear total, 1 = n²), as shipped and with the engine's checkpoints skipped`,
      value: [
        `wall ${exp(byStep('up').marginal.ms)} / ${exp(byStep('up, checkpoints skipped').marginal.ms)}`,
        `engine CPU ${exp(byStep('up').marginal.engineCpuMs)} / ${exp(byStep('up, checkpoints skipped').marginal.engineCpuMs)}`,
        `provider host CPU ${exp(byStep('up').marginal.providerCpuMs)} / ${exp(byStep('up, checkpoints skipped').marginal.providerCpuMs)}`,
      ].join(', '),
    },
  ],
  section: [
    `Stacks of ${sizes.join(', ')} resources, about ${PER_ZONE} per enterprise zone, half CspPolicy and half FirewallRuleWithFilter, each its own stack on one emulator; ` +
      'for each: `up` (creates everything), `preview --expect-no-changes`, `refresh`; then the same program as a second stack on fresh zones, `up` with `PULUMI_SKIP_CHECKPOINTS=true` ' +
      "(the engine saves the state once at the end instead of after each step), to tell the engine's share of the slope from the provider's. " +
      "The client's rate budget is off so the wall time is the engine's and the provider's. " +
      "From /proc, sampled every 100 ms while each step runs: the dynamic provider host's peak RSS and CPU time (user + system; the node process the engine starts for `pulumi-nodejs`), " +
      "the engine's (the `pulumi` process's) CPU time and bytes written (`wchar`: the state file and its backup, gRPC, output); the CPU time of the bench's own process, " +
      "which serves the inline program and the emulator. The state file's size is read after each step. " +
      "A no-op preview makes no API call: its time is the engine's (state load, the program's registrations, one check and one diff per resource).",
    '',
    ...(runs.length > 1
      ? [
          `Measured in ${runs.length} runs (ZONEGUARD_GROWTH_KEEP=1), each size's rows in one: ` +
            sizes
              .map((size) => rows.find((row) => row.size === size)!)
              .map((row) => `${row.size} resources ${row.run}, load average after it ${row.loadAfter}`)
              .join('; ') +
            ". Compare the two series of one size; the exponents across sizes carry the difference of the runs' load.",
          '',
        ]
      : []),
    ...findings(),
    '',
    table(
      ['resources', 'build', 'kind', 'entries', 'state entry after up: mean', 'largest'],
      entryRows.map((entry) => [entry.size, entry.build, entry.kind, entry.count, `${fmt.int(entry.meanBytes)} B`, `${fmt.int(entry.maxBytes)} B`]),
    ),
    '',
    ...entryPartsSection(),
    ...(previousUps.length > 0
      ? [
          `\`up\` of the previous build and of this build, in the same run (ZONEGUARD_GROWTH_PREVIOUS, the previous build first; ${previousUps[0]!.run.replace(/ at .*/, '')} onward):`,
          '',
          table(
            ['resources', 'build', 'wall time', 'engine CPU', 'provider host CPU', 'engine wrote', 'state file', 'per resource'],
            [...previousUps, ...rows.filter((row) => row.step === 'up' && previousUps.some((before) => before.size === row.size))]
              .sort((a, b) => a.size - b.size)
              .map((row) => [
                row.size,
                row.build === THIS_BUILD ? `${THIS_BUILD} (${row.run.replace(/.* at /, '')})` : row.build,
                fmt.ms(row.ms),
                fmt.ms(row.engineCpuMs),
                fmt.ms(row.providerCpuMs),
                fmt.bytes(row.engineWrittenBytes),
                fmt.bytes(row.stateBytes),
                `${fmt.int(row.stateBytes / row.size)} B`,
              ]),
          ),
          '',
        ]
      : []),
    table(
      ['resources', 'zones', 'step', 'wall time', 'per resource', 'API calls', 'provider host peak RSS', 'provider host CPU', 'engine CPU',
        'program + emulator CPU', 'engine wrote', 'state file'],
      rows.map((row) => [
        row.size,
        row.zones,
        row.step,
        fmt.ms(row.ms),
        perResource(row.ms, row),
        row.calls,
        fmt.bytes(row.providerPeakRss),
        fmt.ms(row.providerCpuMs),
        fmt.ms(row.engineCpuMs),
        fmt.ms(row.benchCpuMs),
        fmt.bytes(row.engineWrittenBytes),
        fmt.bytes(row.stateBytes),
      ]),
    ),
    '',
    table(
      ['step', 'exponent: wall time', 'API calls', 'provider host peak RSS', 'provider host CPU', 'engine CPU', 'program + emulator CPU', 'engine wrote',
        'per added resource: wall time', 'engine CPU', 'provider host CPU'],
      exponents.map((e) => [
        e.step,
        exp(e.ms),
        exp(e.calls),
        exp(e.providerPeakRss),
        exp(e.providerCpuMs),
        exp(e.engineCpuMs),
        exp(e.benchCpuMs),
        exp(e.engineWrittenBytes),
        exp(e.marginal.ms),
        exp(e.marginal.engineCpuMs),
        exp(e.marginal.providerCpuMs),
      ]),
    ),
  ].join('\n'),
});
