// Listing 10,000 detected scripts with the client (`for await (const script of client.scripts.list(...))`): requests
// made, peak memory, and time against a plain fetch loop over the same pages in the same run.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && node --expose-gc bench/detected-scripts.bench.mts
//
// The zone and the emulator process: bench/detected-scripts-fixture.mts. bench/list-walk-parts.mts splits the
// client's walk into its parts (got alone, page by page, reading ahead) for profiling.
import * as path from 'node:path';
import { ZoneGuardClient } from 'pulumi-zoneguard/client';
import type * as Fixture from './detected-scripts-fixture.mjs';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;
const fixture: typeof Fixture = await import(new URL('./detected-scripts-fixture.mts', import.meta.url).href);

const COMMAND = 'node --expose-gc bench/detected-scripts.bench.mts';
const SCRIPTS = 10_000;
const PER_PAGE = 100;
/**
 * Rounds of each walk, alternating client and plain loop: the machine is shared and one walk is short, so each
 * round's client walk is compared with the plain walk right after it, and the figure is the median of those ratios.
 * A client keeps the default rate budget (1200 requests per 5 minutes per token), and its warm-up, its rounds and a
 * toArray walk at 100 requests each must stay within it, or a round waits minutes for the budget: so 9 rounds a
 * client, and clients of several account tokens, one after the other, for enough rounds that the median holds still
 * (nine moved it by about 0.1 from run to run). The process's cap of 200 requests a second per address
 * (docs/client.md#per-second) is off (`rateBudgetPerSecond: false`), as the plain loop has none: a walk here is 100
 * pages in about 0.2 s, and back to back the walks would wait for the cap, so the figure would be the cap's, not the
 * walk's cost (test/client/budget.test.ts holds the cap).
 */
const ROUNDS_PER_CLIENT = 9;
const CLIENTS = 3;
const ROUNDS = ROUNDS_PER_CLIENT * CLIENTS;
/** The aims of issue 17: the client's walk within these multiples of the plain loop's time and peak heap. */
const TIME_GOAL = 1.2;
const HEAP_GOAL = 1.5;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc: the memory figures need a collection before each walk');

const dir = lib.workDir('detected-scripts');
const zoneId = fixture.ZONE_ID;
const seedFile = path.join(dir, 'seed.json');
const seedBytes = fixture.writeSeed(seedFile, SCRIPTS);

// The emulator in its own process: only the lister is in this one.
const { child, baseUrl, admin } = await lib.startEmulatorProcess(seedFile);

try {
  const { credentials } = await admin.info();
  // The first with the emulator's own token, the others with account tokens added for the bench: each its own budget.
  const tokens = [credentials.apiToken];
  while (tokens.length < CLIENTS) tokens.push((await admin.addToken()).token);
  const clients = tokens.map((apiToken) => new ZoneGuardClient({ baseUrl, credentials: { apiToken }, rateBudgetPerSecond: false }));
  let client = clients[0]!;

  /** The client's walk: every script, one at a time, nothing kept. */
  const walkClient = async (sample: () => void) => {
    let count = 0;
    for await (const script of client.scripts.list({ zoneId, perPage: PER_PAGE })) {
      if (script.url.length > 0) count++;
      if (count % PER_PAGE === 0) sample();
    }
    return count;
  };
  /** The same pages with fetch and JSON.parse: no validation, no retry, no budget. */
  const walkFetch = async (sample: () => void) => {
    let count = 0;
    for (let page = 1; ; page++) {
      const response = await fetch(`${baseUrl}/zones/${zoneId}/page_guard/scripts?page=${page}&per_page=${PER_PAGE}`, {
        headers: { authorization: `Bearer ${credentials.apiToken}` },
      });
      if (!response.ok) throw new Error(`page ${page}: HTTP ${response.status}`);
      const body = (await response.json()) as { result: Array<{ url: string }>; result_info: { total_pages: number } };
      for (const script of body.result) if (script.url.length > 0) count++;
      sample();
      if (page >= body.result_info.total_pages) break;
    }
    return count;
  };

  const measure = async (walk: (sample: () => void) => Promise<number>) => {
    gc();
    gc();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakRss = base.rss;
    const sample = () => {
      const now = process.memoryUsage();
      peakHeap = Math.max(peakHeap, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
    };
    await admin.clearRequests();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const count = await walk(sample);
    const ms = performance.now() - started;
    // This process's CPU time (user + system): what the lister itself spends, less moved by the other processes
    // competing for the cores than the wall time.
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const counters = await admin.counters();
    if (count !== SCRIPTS) throw new Error(`walked ${count} scripts, expected ${SCRIPTS}`);
    return { ms, cpuMs, requests: counters.total, heapPeak: peakHeap - base.heapUsed, rssPeak: peakRss - base.rss, heapBase: base.heapUsed };
  };

  // Warm-up of both paths (JIT, connections), then rounds alternating the two; each client warmed up before its rounds.
  await measure(walkFetch);
  const results = { client: [] as Awaited<ReturnType<typeof measure>>[], fetch: [] as Awaited<ReturnType<typeof measure>>[] };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % ROUNDS_PER_CLIENT === 0) {
      client = clients[round / ROUNDS_PER_CLIENT]!;
      await measure(walkClient);
    }
    results.client.push(await measure(walkClient));
    results.fetch.push(await measure(walkFetch));
  }
  // Everything kept (toArray), once: what a caller that collects the list holds.
  gc();
  gc();
  const beforeArray = process.memoryUsage().heapUsed;
  const all = await client.scripts.list({ zoneId, perPage: PER_PAGE }).toArray();
  gc();
  const arrayHeap = process.memoryUsage().heapUsed - beforeArray;
  if (all.length !== SCRIPTS) throw new Error(`toArray gave ${all.length}`);

  const clientMs = lib.median(results.client.map((r) => r.ms));
  const fetchMs = lib.median(results.fetch.map((r) => r.ms));
  const clientHeap = lib.median(results.client.map((r) => r.heapPeak));
  const fetchHeap = lib.median(results.fetch.map((r) => r.heapPeak));
  const clientHeapMax = Math.max(...results.client.map((r) => r.heapPeak));
  const fetchHeapMax = Math.max(...results.fetch.map((r) => r.heapPeak));
  const clientRequests = results.client[0]!.requests;
  /** Each round's client walk against the plain walk that followed it. */
  const ratios = results.client.map((r, i) => ({
    ms: r.ms / results.fetch[i]!.ms,
    cpu: r.cpuMs / results.fetch[i]!.cpuMs,
    heap: r.heapPeak / results.fetch[i]!.heapPeak,
  }));
  const ratio = lib.median(ratios.map((r) => r.ms));
  const quartiles = [25, 75].map((p) => lib.percentile(ratios.map((r) => r.ms), p).toFixed(2)).join(' to ');
  const heapRatio = lib.median(ratios.map((r) => r.heap));
  const cpuRatio = lib.median(ratios.map((r) => r.cpu));
  const fastest = { client: Math.min(...results.client.map((r) => r.ms)), fetch: Math.min(...results.fetch.map((r) => r.ms)) };
  console.log(
    `client: ${fmt.ms(clientMs)} median, ${clientRequests} requests, heap peak +${fmt.bytes(clientHeap)}; ` +
      `fetch: ${fmt.ms(fetchMs)} median, heap peak +${fmt.bytes(fetchHeap)}; median ratios: time ${ratio.toFixed(2)}, CPU ${cpuRatio.toFixed(2)}, heap ${heapRatio.toFixed(2)}`,
  );

  const figures: Lib.Figure[] = [
    {
      what: `Listing ${fmt.int(SCRIPTS)} detected scripts with the client: requests`,
      value: `${clientRequests} (${PER_PAGE} a page)`,
      goal: `${Math.ceil(SCRIPTS / PER_PAGE)} (one per page)`,
      met: clientRequests === Math.ceil(SCRIPTS / PER_PAGE),
    },
    {
      what: `Listing ${fmt.int(SCRIPTS)} detected scripts: peak heap above the baseline while walking, client vs plain fetch loop (median of ${ROUNDS} per-round ratios)`,
      value:
        `ratio ${heapRatio.toFixed(2)}; medians client +${fmt.bytes(clientHeap)}, plain fetch +${fmt.bytes(fetchHeap)}; ` +
        `largest client +${fmt.bytes(clientHeapMax)}, plain fetch +${fmt.bytes(fetchHeapMax)} (the whole list kept by toArray: ${fmt.bytes(arrayHeap)})`,
      goal: `ratio ≤ ${HEAP_GOAL}`,
      met: heapRatio <= HEAP_GOAL,
    },
    {
      what: `Listing ${fmt.int(SCRIPTS)} detected scripts: time, client vs plain fetch loop (median of ${ROUNDS} per-round ratios)`,
      value: `ratio ${ratio.toFixed(2)} (per-round ratios' quartiles ${quartiles}); medians ${fmt.ms(clientMs)} vs ${fmt.ms(fetchMs)}; fastest rounds ${fmt.ms(fastest.client)} vs ${fmt.ms(fastest.fetch)}: ${(fastest.client / fastest.fetch).toFixed(2)}`,
      goal: `ratio ≤ ${TIME_GOAL}`,
      met: ratio <= TIME_GOAL,
    },
    {
      what: `Listing ${fmt.int(SCRIPTS)} detected scripts: this process's CPU time, client vs plain fetch loop (median of ${ROUNDS} per-round ratios)`,
      value: `ratio ${cpuRatio.toFixed(2)}; medians ${fmt.ms(lib.median(results.client.map((r) => r.cpuMs)))} vs ${fmt.ms(lib.median(results.fetch.map((r) => r.cpuMs)))}`,
    },
  ];
  const section = [
    `One enterprise zone with ${fmt.int(SCRIPTS)} detected scripts with every analysis field (seed file of ${fmt.bytes(seedBytes)}), served by ` +
      '`zoneguard emulator --seed FILE` in a child process. This process walks the list two ways, alternating (client, plain, client, plain...), ' +
      `${ROUNDS} rounds, ${PER_PAGE} scripts a page, by ${CLIENTS} clients in turn, ${ROUNDS_PER_CLIENT} rounds each, after one warm-up walk each (and one of the plain loop):`,
    '',
    `- **client**: \`for await (const script of client.scripts.list({ zoneId, perPage: ${PER_PAGE} }))\`, the default retry policy and rate budget, every item validated against \`ScriptSchema\`; each client has an account token of its own, so its own budget of 1200 requests per 5 minutes, which its ${ROUNDS_PER_CLIENT} rounds, its warm-up and a \`toArray()\` stay within; the process's cap of 200 requests a second (docs/client.md#per-second) is off (\`rateBudgetPerSecond: false\`), as the plain loop has none: walks of 100 pages in about 0.2 s, one after the other, would wait for it, and the figure would be the cap's rather than the walk's (bench/list-walk-parts.mts, which splits this walk by layer with a budget of 1200 per 1000 ms, turns it off for the same reason);`,
    '- **plain fetch**: `fetch` of the same pages with the same token, `response.json()`, no validation, stopping at `result_info.total_pages`.',
    '',
    'Memory: `process.memoryUsage()` sampled after every page, minus the value after two forced collections (`--expose-gc`) before the walk. ' +
      "Requests: the emulator's counters over one walk.",
    '',
    'The machine these figures come from is shared (other processes compete for its cores), so absolute times move from run to run and ' +
      'within one. Each round compares the client walk with the plain walk that follows it, and the figures are the medians of those ' +
      'per-round ratios, not ratios of medians or of single runs.',
    '',
    table(
      [
        'round',
        'client time',
        'plain time',
        'time ratio',
        'client CPU',
        'plain CPU',
        'CPU ratio',
        'client peak heap',
        'plain peak heap',
        'heap ratio',
        'client peak RSS',
        'plain peak RSS',
      ],
      results.client.map((r, i) => {
        const plain = results.fetch[i]!;
        return [
          i + 1,
          fmt.ms(r.ms),
          fmt.ms(plain.ms),
          ratios[i]!.ms.toFixed(2),
          fmt.ms(r.cpuMs),
          fmt.ms(plain.cpuMs),
          ratios[i]!.cpu.toFixed(2),
          fmt.bytes(r.heapPeak),
          fmt.bytes(plain.heapPeak),
          ratios[i]!.heap.toFixed(2),
          fmt.bytes(Math.max(0, r.rssPeak)),
          fmt.bytes(Math.max(0, plain.rssPeak)),
        ];
      }),
    ),
    '',
    `Medians of the per-round ratios: time **${ratio.toFixed(2)}** (quartiles ${quartiles}), this process's CPU time ${cpuRatio.toFixed(2)}, peak heap **${heapRatio.toFixed(2)}**. Medians of the rounds: client ${fmt.ms(clientMs)}, ` +
      `plain fetch ${fmt.ms(fetchMs)}; fastest rounds ${fmt.ms(fastest.client)} and ${fmt.ms(fastest.fetch)}. Each walk made ${clientRequests} requests. ` +
      `The whole list collected with \`toArray()\` holds ${fmt.bytes(arrayHeap)} of heap after a collection.`,
  ].join('\n');
  lib.emitResult({ bench: `Listing ${fmt.int(SCRIPTS)} detected scripts`, command: COMMAND, figures, section });
} finally {
  child.kill('SIGTERM');
}
