// Four stacks in four engine processes at once, with the same credentials, against one emulator that enforces the
// rate-limit bench's scaled limit (20 requests per 2 s), each provider's budget set to that limit: with the shared
// store (`zoneguard:rateBudgetStore`, a redis-server this bench starts) and without it. 429 answers and wall time
// against the floor, the least time the calls can take under the limit.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/fleet.bench.mts
import { CspPolicy } from 'pulumi-zoneguard';
import type { Stack } from '@pulumi/pulumi/automation/index.js';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/fleet.bench.mts';
const STACKS = 4;
const PER_STACK = 60;
/** The scaled limit of bench/rate-limit.bench.mts. */
const LIMIT = { requests: 20, windowMs: 2000 };
const floorMs = (calls: number) => lib.floorMs(calls, LIMIT);


// The emulator in a process of its own, as the service is: in this process its event loop would be shared with the
// four stacks' programs, whose stalls (up to 1.5 s seen) hold requests back and hand them to the emulator together,
// so the arrivals it stamps and counts would bunch up however the fleet paced them.
const emulatorProcess = await lib.startEmulatorProcess();
const emulator = { ...emulatorProcess, credentials: (await emulatorProcess.admin.info()).credentials };
const redis = await lib.startRedis();
const dir = lib.workDir('fleet');
try {
  const rows: Array<{
    how: string;
    ok: number;
    limited: number;
    ms: number;
    spanMs: number;
    floor: number;
    maxInWindow: number;
    shortestOver: number;
    failedUps: number;
  }> = [];
  // The same four ups with no limit anywhere (neither the emulator's nor a budget that paces 240 calls): the time the
  // engines need around their calls, which no rate handling can take away. Run last, after the engines' first runs.
  for (const { how, label, shared, limited } of [
    { how: 'with the shared store', label: 'shared', shared: true, limited: true },
    { how: 'each process its own budget', label: 'own', shared: false, limited: true },
    { how: 'no limit (the engines alone)', label: 'free', shared: false, limited: false },
  ]) {
    const stacks: Stack[] = [];
    for (let s = 0; s < STACKS; s++) {
      const zone = await emulator.admin.seedZone({ name: `fleet-${label}-${s}.example`, plan: 'enterprise' });
      const program = async () => {
        for (let i = 0; i < PER_STACK; i++) {
          new CspPolicy(`policy-${i}`, { zoneId: zone.id, action: 'log', expression: `http.host eq "p${i}.example.com"`, value: "script-src 'self'" });
        }
        return {};
      };
      stacks.push(
        await lib.engineStack(dir, {
          project: 'zoneguard-bench-fleet',
          stack: `${label}-${s}`,
          program,
          emulator,
          config: {
            ...(limited ? { 'zoneguard:rateBudget': { value: `${LIMIT.requests}/${LIMIT.windowMs}` } } : {}),
            ...(shared ? { 'zoneguard:rateBudgetStore': { value: redis.url } } : {}),
          },
        }),
      );
    }
    if (limited) await emulator.admin.setFaults({ rateLimit: LIMIT });
    await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs));
    // Without the store an up could fail (a 429 is retried until the client's deadline): counted, not thrown.
    const measured = await lib.measureRequests(emulator, () => Promise.allSettled(stacks.map((stack) => stack.up({ color: 'never' }))));
    const failedUps = measured.result.filter((up) => up.status === 'rejected').length;
    await emulator.admin.clearFaults();
    const ok = measured.requests.filter((entry) => entry.status >= 200 && entry.status < 300).length;
    const refused = measured.requests.filter((entry) => entry.status === 429).length;
    const arrivals = measured.requests.map((entry) => Date.parse(entry.at)).sort((a, b) => a - b);
    const maxInWindow = lib.mostInAnyWindow(arrivals, LIMIT.windowMs);
    // The calls' span: from the first request the emulator received to the last (its log keeps arrival times, to the
    // ms), the span the floor bounds; the wall time adds the engines' start-up and the last answer.
    const spanMs = arrivals.length > 0 ? arrivals.at(-1)! - arrivals[0]! : 0;
    // The shortest span that holds one request more than the limit: under the window, the limit was exceeded in it.
    let shortestOver = Number.POSITIVE_INFINITY;
    for (let i = 0; i + LIMIT.requests < arrivals.length; i++) shortestOver = Math.min(shortestOver, arrivals[i + LIMIT.requests]! - arrivals[i]!);
    rows.push({ how, ok, limited: refused, ms: measured.ms, spanMs, floor: limited ? floorMs(ok) : 0, maxInWindow, shortestOver, failedUps });
    console.log(
      `${how}: ${failedUps} of ${STACKS} ups failed, ${ok} calls + ${refused} × 429 in ${fmt.ms(measured.ms)}, calls' span ${fmt.ms(spanMs)} (floor ${fmt.ms(floorMs(ok))})`,
    );
  }
  const [withStore, without, free] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
  /**
   * The least wall time of the four ups under the limit: the engines' time around their calls (start-up, program,
   * plan, the last answer to the end), measured with no limit as the whole ups less their calls' span, plus the
   * least span of the calls under the limit. The calls' floor alone bounds the span, not the ups.
   */
  const aroundMs = free.ms - free.spanMs;
  const wallFloor = aroundMs + withStore.floor;
  // The store's interval for this budget, as storeIntervalMs (src/client/rate-budget-store.ts) computes it: not exported by the package.
  const { storeIntervalMs } = (await import(new URL('../dist/client/rate-budget-store.js', import.meta.url).href)) as {
    storeIntervalMs(limits: typeof LIMIT): number;
  };
  const intervalMs = storeIntervalMs(LIMIT);
  lib.emitResult({
    bench: 'Four stacks in four engine processes under one rate limit',
    command: COMMAND,
    figures: [
      {
        what: `${STACKS} stacks × ${PER_STACK} creates at once, budget = limit (${LIMIT.requests} per ${LIMIT.windowMs / 1000} s), with the shared store: wall time against the least wall time under the limit (the engines' time around their calls, measured with no limit, + the calls' floor)`,
        value:
          `${withStore.failedUps} of ${STACKS} ups failed, ${withStore.limited} × 429, ${fmt.ms(withStore.ms)} = ${(withStore.ms / wallFloor).toFixed(2)} × ${fmt.ms(wallFloor)} ` +
          `(${fmt.ms(aroundMs)} + ${fmt.ms(withStore.floor)}); against the calls' floor alone ${(withStore.ms / withStore.floor).toFixed(2)} ×`,
        goal: '0 × 429 and ≤ 1.15 × floor',
        met: withStore.failedUps === 0 && withStore.limited === 0 && withStore.ms <= 1.15 * wallFloor,
      },
      {
        what: `The same, the calls' span (first to last request the emulator received) against the floor, with the shared store`,
        value: `${fmt.ms(withStore.spanMs)} = ${(withStore.spanMs / withStore.floor).toFixed(2)} × the floor`,
        goal: '≤ 1.15 × floor',
        met: withStore.limited === 0 && withStore.spanMs <= 1.15 * withStore.floor,
      },
      {
        what: `The same without the store (each process its own budget)`,
        value: `${without.failedUps} of ${STACKS} ups failed, ${without.limited} × 429, ${fmt.ms(without.ms)} = ${(without.ms / without.floor).toFixed(2)} × the floor (${fmt.ms(without.floor)})`,
      },
    ],
    section: [
      `${STACKS} stacks of ${PER_STACK} CspPolicy each, one zone each, same credentials; their \`up\`s started together through the Automation API, so ${STACKS} \`pulumi\` processes each run their own provider process. ` +
        `The emulator enforces \`rateLimit: { requests: ${LIMIT.requests}, windowMs: ${LIMIT.windowMs} }\` (the scale of the rate-limit bench; a request over it blocks the caller for a window, as the service blocks one for its 5 minutes) and every provider's budget is set to it (\`zoneguard:rateBudget\`). ` +
        `**Floor**: (⌈calls / ${LIMIT.requests}⌉ − 1) × ${LIMIT.windowMs} ms, the least time from the first call to the last under the limit. ` +
        `The store counts a sliding window of ${intervalMs} ms on the Redis server's clock (the window plus a margin for the time between reservation and arrival: \`storeIntervalMs\`, src/client/rate-budget-store.ts), ` +
        `so the fleet's pace is at most ${(LIMIT.windowMs / intervalMs).toFixed(2)} of the limit at this scale; at the real limit (1200 per 300 s) ${(300_000 / storeIntervalMs({ requests: 1200, windowMs: 300_000 })).toFixed(3)} of it. ` +
        `**Wall time** is the whole of the four \`up\`s, the engines' start-up and the program's registrations included; **calls' span** is from the first request the emulator received to the last, the span the calls' floor bounds. ` +
        `**Least wall time**: the wall time can go no lower than the engines' time around their calls (start-up, program, plan, and from the last answer to the end: ${fmt.ms(aroundMs)} here, the same four ups run with no limit anywhere, last, less their calls' span) plus the calls' floor; the goal's floor for the wall time is that. ` +
        `Arrivals are as the emulator stamps them, to the ms; it runs in a process of its own, as the service does (in the programs' process their stalls bunched its arrivals up). ` +
        `The store lets no more than ${LIMIT.requests} reservations into any ${intervalMs} ms (test/client/rate-budget-store.test.ts); a span under ${LIMIT.windowMs} ms holding ${LIMIT.requests + 1} arrivals means some requests reached the emulator later than the ${intervalMs - LIMIT.windowMs} ms margin after their reservation (both sides' event loops and CPU time on a loaded machine), and the emulator, which counts any window as the service does, answers 429 to the one that finds ${LIMIT.requests} admitted in the last ${LIMIT.windowMs} ms.`,
      '',
      table(
        [
          'budgets',
          'ups failed',
          'calls 2xx',
          '429 answers',
          'wall time (all four ups)',
          "calls' span",
          "calls' floor",
          "calls' span / calls' floor",
          "least wall time (around + calls' floor)",
          'wall / least wall',
          "wall / calls' floor",
          `most requests in any ${LIMIT.windowMs / 1000} s`,
          `shortest span holding ${LIMIT.requests + 1}`,
        ],
        rows.map((row) => {
          const limitedRow = row.floor > 0;
          const least = aroundMs + row.floor;
          return [
            row.how,
            `${row.failedUps} of ${STACKS}`,
            row.ok,
            row.limited,
            fmt.ms(row.ms),
            fmt.ms(row.spanMs),
            limitedRow ? fmt.ms(row.floor) : '-',
            limitedRow ? (row.spanMs / row.floor).toFixed(2) : '-',
            limitedRow ? fmt.ms(least) : '-',
            limitedRow ? (row.ms / least).toFixed(2) : '-',
            limitedRow ? (row.ms / row.floor).toFixed(2) : '-',
            row.maxInWindow,
            Number.isFinite(row.shortestOver) ? fmt.ms(row.shortestOver) : '-',
          ];
        }),
      ),
    ].join('\n'),
  });
} finally {
  redis.stop();
  emulatorProcess.child.kill('SIGTERM');
}
