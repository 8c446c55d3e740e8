// How cost grows with the size of a stack: `up`, a no-op `preview` and `refresh` of 100, 400 and 1,600 resources
// (about 400 per zone: 1, 1 and 4 enterprise zones; half CspPolicy, half FirewallRuleWithFilter), by the real engine
// against the emulator. For each step: wall time, API calls (the emulator's request log) and the peak RSS of the
// dynamic provider host (the `pulumi-nodejs` provider's node process, sampled from /proc every 100 ms while the step
// runs). The growth exponent of each is the least-squares slope of log(figure) against log(resources): 1 is linear.
// The client's rate budget is off (`zoneguard:rateBudget off`) so that the wall time is the engine's and the
// provider's, not the budget's (1,600 creates would otherwise wait for the 1200-per-5-minutes window).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/growth.bench.mts [SIZES]
//
// SIZES: comma-separated resource counts (default 100,400,1600).
import * as fs from 'node:fs';
import { CspPolicy, FirewallRuleWithFilter } from 'pulumi-zoneguard';
import { startEmulator } from 'pulumi-zoneguard/emulator';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/growth.bench.mts';
const PER_ZONE = 400;
const sizes = (process.argv[2] ?? '100,400,1600').split(',').map(Number);

/** Peak RSS, in bytes, of the dynamic provider host processes alive while `step` runs. */
async function withProviderRss<T>(step: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peakRss = 0;
  const sample = () => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        // This checkout's provider host only: another checkout's engine runs on the same machine are not ours.
        if (!cmdline.includes('dynamic-provider') || !cmdline.includes(lib.root)) continue;
        const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (rss) peakRss = Math.max(peakRss, Number(rss[1]) * 1024);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await step();
    return { result, peakRss };
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

type Step = 'up' | 'no-op preview' | 'refresh';
const STEPS: readonly Step[] = ['up', 'no-op preview', 'refresh'];
const rows: Array<{ size: number; zones: number; step: Step; ms: number; calls: number; peakRss: number }> = [];

const emulator = await startEmulator({ port: 0 });
try {
  for (const size of sizes) {
    const zoneCount = Math.ceil(size / PER_ZONE);
    const zones: Array<{ id: string }> = [];
    for (let z = 0; z < zoneCount; z++) {
      zones.push(await emulator.admin.seedZone({ name: `growth-${size}-${z}.example`, plan: 'enterprise', ruleQuota: PER_ZONE }));
    }
    const program = async () => {
      for (let i = 0; i < size; i++) {
        const zone = zones[Math.floor(i / PER_ZONE)]!;
        if (i % 2 === 0) {
          new CspPolicy(`policy-${i}`, { zoneId: zone.id, action: 'log', expression: `http.host eq "p${i}.example.com"`, value: "script-src 'self'" });
        } else {
          new FirewallRuleWithFilter(`rule-${i}`, { zoneId: zone.id, action: 'block', expression: `http.request.uri.path eq "/growth/${i}"` });
        }
      }
      return {};
    };
    const dir = lib.workDir(`growth-${size}`);
    const stack = await lib.engineStack(dir, {
      project: 'zoneguard-bench-growth',
      stack: `growth-${size}`,
      program,
      emulator,
      config: { 'zoneguard:rateBudget': { value: 'off' } },
    });
    const run: Record<Step, () => Promise<unknown>> = {
      up: () => stack.up({ color: 'never' }),
      'no-op preview': () => stack.preview({ color: 'never', expectNoChanges: true }),
      refresh: () => stack.refresh({ color: 'never' }),
    };
    for (const step of STEPS) {
      const { result: measured, peakRss } = await withProviderRss(() => lib.measureRequests(emulator, run[step]));
      rows.push({ size, zones: zoneCount, step, ms: measured.ms, calls: measured.requests.length, peakRss });
      console.log(`${size} resources, ${step}: ${fmt.ms(measured.ms)}, ${measured.requests.length} calls, provider host peak RSS ${fmt.bytes(peakRss)}`);
    }
  }
} finally {
  await emulator.close();
}

const exponents = STEPS.map((step) => {
  const of = (figure: 'ms' | 'calls' | 'peakRss') => growthExponent(rows.filter((row) => row.step === step).map((row) => [row.size, row[figure]] as const));
  return { step, ms: of('ms'), calls: of('calls'), peakRss: of('peakRss') };
});
const exp = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '-');
const perResource = (row: (typeof rows)[0]) => fmt.ms(row.ms / row.size);

lib.emitResult({
  bench: 'How cost grows with the size of a stack',
  command: `${COMMAND} ${sizes.join(',')}`,
  figures: exponents.map((e) => ({
    what: `${e.step} of ${sizes.join(' / ')} resources: growth exponents (1 = linear) of wall time, API calls, provider host peak RSS`,
    value: `wall ${exp(e.ms)}, calls ${exp(e.calls)}, peak RSS ${exp(e.peakRss)}`,
    goal: 'wall and calls at most linear (≤ 1.15)',
    met: e.ms <= 1.15 && (!Number.isFinite(e.calls) || e.calls <= 1.15),
  })),
  section: [
    `Stacks of ${sizes.join(', ')} resources, about ${PER_ZONE} per enterprise zone, half CspPolicy and half FirewallRuleWithFilter, each its own stack on one emulator; ` +
      'for each: `up` (creates everything), `preview --expect-no-changes`, `refresh`. The client\'s rate budget is off so the wall time is the engine\'s and the provider\'s. ' +
      'Peak RSS is the dynamic provider host\'s (the node process the engine starts for `pulumi-nodejs`), sampled every 100 ms. ' +
      'A no-op preview makes no API call: its time is the engine\'s (state load, the program\'s registrations, one check and one diff per resource), so its slope is where the engine, not the provider\'s calls, sets the growth.',
    '',
    table(
      ['resources', 'zones', 'step', 'wall time', 'per resource', 'API calls', 'provider host peak RSS'],
      rows.map((row) => [row.size, row.zones, row.step, fmt.ms(row.ms), perResource(row), row.calls, fmt.bytes(row.peakRss)]),
    ),
    '',
    table(
      ['step', 'exponent: wall time', 'exponent: API calls', 'exponent: peak RSS'],
      exponents.map((e) => [e.step, exp(e.ms), exp(e.calls), exp(e.peakRss)]),
    ),
  ].join('\n'),
});
