// Where the client's list walk spends its time, part by part, against a plain fetch loop: not a figure of
// BENCHMARKS.md (not in `npm run bench`), a tool to find the cost of each layer. Each variant walks the same
// 10,000 detected scripts, 100 a page, from the emulator in a child process (bench/detected-scripts-fixture.mts):
//
//   - fetch: `fetch` + `response.json()`, no validation (the plain loop of bench/detected-scripts.bench.mts);
//   - fetchSame: the same with the client's query (`exclude_cdn_cgi=false`) and headers: the same answers, the same cost;
//   - got: got with the transport's options (src/client/transport.ts): the body as bytes decoded once, the query in
//     the address, `JSON.parse`, no validation, no budget;
//   - pages: the client page by page (`client.scripts.listPage`), one request at a time: transport, budget, checks;
//   - list: `for await (const script of client.scripts.list(...))`, which reads one page ahead (docs/client.md#list-walk-cost);
//   - listBase: the same walk with the client of another build, to compare two versions of the client in one process:
//     LIST_WALK_BASE=DIR names its built package (the `dist` of another checkout, inside this one so that it finds
//     node_modules), e.g. `git worktree add .zoneguard/base COMMIT && (cd .zoneguard/base && ln -s ../../node_modules &&
//     tsc -p tsconfig.build.json)`, then `LIST_WALK_BASE=.zoneguard/base/dist node ... 30 listBase,list`.
//
// Rounds run the variants one after the other, in an order rotating from round to round, after two warm-up walks
// each; the figures are the medians of the per-round ratios to the first variant named (wall time, and this
// process's CPU time: the emulator's is in its own process). Compare two variants at a time: with more, the
// order effects of a shared machine blur differences of 20-30%.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && node --expose-gc bench/list-walk-parts.mts [ROUNDS] [VARIANTS] [--profile]
//
// With --profile, after the timed rounds, each variant walks as many times again under the CPU profiler, and a second
// table splits the CPU of a walk by layer (bench/cpu-profile.mts): got and node:http, fetch, JSON.parse, the item
// check, the client's own code, GC.
import got from 'got';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ZoneGuardClient } from 'pulumi-zoneguard/client';
import type * as CpuProfile from './cpu-profile.mjs';
import type * as Fixture from './detected-scripts-fixture.mjs';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const fixture: typeof Fixture = await import(new URL('./detected-scripts-fixture.mts', import.meta.url).href);
const cpuProfile: typeof CpuProfile = await import(new URL('./cpu-profile.mts', import.meta.url).href);

const SCRIPTS = 10_000;
const PER_PAGE = 100;
const PAGES = SCRIPTS / PER_PAGE;
const args = process.argv.slice(2).filter((arg) => arg !== '--profile');
const profiling = process.argv.includes('--profile');
const rounds = Number(args[0] ?? 15);
const dir = lib.workDir('list-walk-parts');
const seedFile = path.join(dir, 'seed.json');
fixture.writeSeed(seedFile, SCRIPTS);
const { child, baseUrl, admin } = await lib.startEmulatorProcess(seedFile);
const zoneId = fixture.ZONE_ID;
const gc = (globalThis as { gc?: () => void }).gc;

try {
  const { credentials } = await admin.info();
  const authorization = `Bearer ${credentials.apiToken}`;
  // A budget as large as the service's, over a window short enough that the rounds never wait for it; and no cap per
  // second (docs/client.md#per-second), which would hold these walks (about 570 pages a second) to 200 requests in
  // any second: the bench measures what each layer costs a walk, not the service's limits.
  const clientOptions = {
    baseUrl,
    credentials: { apiToken: credentials.apiToken },
    rateBudget: { requests: 1200, windowMs: 1000 },
    rateBudgetPerSecond: false as const,
  };
  const client = new ZoneGuardClient(clientOptions);
  const baseBuild = process.env['LIST_WALK_BASE'];
  const baseClient: ZoneGuardClient | undefined = baseBuild
    ? new ((await import(pathToFileURL(path.resolve(baseBuild, 'index.js')).href)) as { ZoneGuardClient: typeof ZoneGuardClient }).ZoneGuardClient(
        clientOptions,
      )
    : undefined;
  // The options createTransport gives got (src/client/transport.ts), without the client around them.
  const http = got.extend({
    prefixUrl: `${baseUrl}/`,
    headers: { accept: 'application/json', 'user-agent': 'pulumi-zoneguard', authorization },
    responseType: 'buffer',
    throwHttpErrors: false,
    retry: { limit: 0 },
    timeout: { request: 30_000 },
    followRedirect: false,
    allowAbsoluteUrls: false,
  });
  const listPath = `zones/${zoneId}/page_guard/scripts`;
  const utf8 = new TextDecoder();
  type Body = { result: Array<{ url: string }> };
  const count = (items: ReadonlyArray<{ url: string }>) => items.reduce((n, item) => n + (item.url.length > 0 ? 1 : 0), 0);

  const variants: Record<string, () => Promise<number>> = {
    fetch: async () => {
      let n = 0;
      for (let page = 1; page <= PAGES; page++) {
        const response = await fetch(`${baseUrl}/${listPath}?page=${page}&per_page=${PER_PAGE}`, { headers: { authorization } });
        n += count(((await response.json()) as Body).result);
      }
      return n;
    },
    fetchSame: async () => {
      let n = 0;
      for (let page = 1; page <= PAGES; page++) {
        const response = await fetch(`${baseUrl}/${listPath}?page=${page}&per_page=${PER_PAGE}&exclude_cdn_cgi=false`, {
          headers: { authorization, accept: 'application/json', 'user-agent': 'pulumi-zoneguard' },
        });
        n += count(((await response.json()) as Body).result);
      }
      return n;
    },
    got: async () => {
      let n = 0;
      for (let page = 1; page <= PAGES; page++) {
        const response = await http(`${listPath}?page=${page}&per_page=${PER_PAGE}&exclude_cdn_cgi=false`);
        n += count((JSON.parse(utf8.decode(response.rawBody)) as Body).result);
      }
      return n;
    },
    pages: async () => {
      let n = 0;
      for (let page = 1; page <= PAGES; page++) n += count((await client.scripts.listPage({ zoneId, page, perPage: PER_PAGE })).items);
      return n;
    },
    list: async () => {
      let n = 0;
      for await (const script of client.scripts.list({ zoneId, perPage: PER_PAGE })) if (script.url.length > 0) n++;
      return n;
    },
    listBase: async () => {
      if (!baseClient) throw new Error('listBase needs LIST_WALK_BASE, the directory of another build of the package');
      let n = 0;
      for await (const script of baseClient.scripts.list({ zoneId, perPage: PER_PAGE })) if (script.url.length > 0) n++;
      return n;
    },
  };
  const names = (args[1] ?? Object.keys(variants).filter((name) => name !== 'listBase' || baseClient).join(',')).split(',');
  for (const name of names) if (!variants[name]) throw new Error(`no variant ${name}; the variants: ${Object.keys(variants).join(', ')}`);

  const walk = async (name: string, collectFirst = true) => {
    if (collectFirst) gc?.();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const n = await variants[name]!();
    const cpu = process.cpuUsage(cpuBefore);
    if (n !== SCRIPTS) throw new Error(`${name} walked ${n} scripts, expected ${SCRIPTS}`);
    return { ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  for (const name of names) for (let i = 0; i < 2; i++) await walk(name);
  const results = new Map(names.map((name) => [name, [] as Array<{ ms: number; cpuMs: number }>]));
  // The order rotates from round to round: the walk that follows another pays for some of its garbage.
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      results.get(name)!.push(await walk(name));
    }
  }

  const base = results.get(names[0]!)!;
  const ratio = (runs: Array<{ ms: number; cpuMs: number }>, key: 'ms' | 'cpuMs') => lib.median(runs.map((run, i) => run[key] / base[i]![key]));
  console.log(`${rounds} rounds, ${PAGES} pages of ${PER_PAGE} a walk; medians, and medians of the per-round ratios to ${names[0]}`);
  console.log(
    lib.table(
      ['variant', 'wall', 'wall ratio', 'CPU', 'CPU ratio'],
      names.map((name) => {
        const runs = results.get(name)!;
        return [
          name,
          lib.fmt.ms(lib.median(runs.map((r) => r.ms))),
          ratio(runs, 'ms').toFixed(2),
          lib.fmt.ms(lib.median(runs.map((r) => r.cpuMs))),
          ratio(runs, 'cpuMs').toFixed(2),
        ];
      }),
    ),
  );
  if (profiling) {
    // After the timed rounds, so the profiler slows none of them: each variant's walks in one profile of their own,
    // without the forced collection before each (the profile would count it), so each pays for its own garbage.
    const layerMs = new Map<string, Map<CpuProfile.Layer, number>>();
    for (const name of names) {
      gc?.();
      const { profile } = await cpuProfile.profile(async () => {
        for (let round = 0; round < rounds; round++) await walk(name, false);
      });
      layerMs.set(name, cpuProfile.layers(profile, import.meta.url));
    }
    const perWalk = (name: string, layer: CpuProfile.Layer) => (layerMs.get(name)!.get(layer) ?? 0) / rounds;
    const busy = (name: string) => cpuProfile.LAYERS.reduce((sum, layer) => sum + perWalk(name, layer), 0);
    console.log(`\nCPU profile samples per walk (ms, share of the busy samples), ${rounds} more walks of each variant; idle and the profiler's own left out`);
    console.log(
      lib.table(
        ['layer', ...names],
        [...cpuProfile.LAYERS, 'busy' as const].map((layer) => [
          layer,
          ...names.map((name) =>
            layer === 'busy' ? lib.fmt.ms(busy(name)) : `${lib.fmt.ms(perWalk(name, layer))} (${((100 * perWalk(name, layer)) / busy(name)).toFixed(0)}%)`,
          ),
        ]),
      ),
    );
  }
} finally {
  child.kill('SIGTERM');
}
