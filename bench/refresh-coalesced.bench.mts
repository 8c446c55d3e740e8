// A refresh of 150 resources over two zones (per zone 38 CspPolicy and 37 FirewallRuleWithFilter), by the real engine
// against the emulator: the API calls and the wall time with every read alone (`--parallel 1`: each read is alone in
// its window, so it is one GET, as every read was before reads were coalesced) against the engine's default
// parallelism, where the reads of one zone and kind are answered from one walk of its list (src/providers/kit/coalesce.ts).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/refresh-coalesced.bench.mts
import { execFileSync } from 'node:child_process';
import { CspPolicy, FirewallRuleWithFilter } from 'pulumi-zoneguard';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/refresh-coalesced.bench.mts';
const PER_ZONE = 75;
const GOAL = 10;

await lib.emulatorBench('refresh-coalesced', {}, async ({ emulator, stack: stackOf }) => {
  const zones: Array<{ id: string }> = [];
  for (const name of ['refresh-a', 'refresh-b']) {
    zones.push(await emulator.admin.seedZone({ name: `${name}.example`, plan: 'enterprise', ruleQuota: 1000 }));
  }
  const program = async () => {
    for (const [z, zone] of zones.entries()) {
      for (let i = 0; i < PER_ZONE; i++) {
        const name = `z${z}-${i}`;
        if (i % 2 === 0) {
          new CspPolicy(`policy-${name}`, { zoneId: zone.id, action: 'log', expression: `http.host eq "p${i}.example.com"`, value: "script-src 'self'" });
        } else {
          new FirewallRuleWithFilter(`rule-${name}`, { zoneId: zone.id, action: 'block', expression: `http.request.uri.path eq "/bench/${i}"` });
        }
      }
    }
    return {};
  };
  const stack = await stackOf('zoneguard-bench-refresh', program);
  const up = await lib.measureRequests(emulator, () => stack.up({ color: 'never' }));
  console.log(`up: ${up.requests.length} calls in ${fmt.ms(up.ms)}`);

  const rows: Array<{ how: string; calls: number; byRoute: string; ms: number; same: number }> = [];
  for (const [how, parallel] of [
    ['every read alone (--parallel 1)', 1],
    ['coalesced (the engine\'s default parallelism)', undefined],
  ] as const) {
    const measured = await lib.measureRequests(emulator, () => stack.refresh({ color: 'never', ...(parallel ? { parallel } : {}) }));
    const same = measured.result.summary.resourceChanges?.same ?? 0;
    const byRoute = new Map<string, number>();
    for (const entry of measured.requests) byRoute.set(lib.routeOf(entry), (byRoute.get(lib.routeOf(entry)) ?? 0) + 1);
    rows.push({ how, calls: measured.requests.length, byRoute: [...byRoute].map(([route, n]) => `${route} × ${n}`).join(', '), ms: measured.ms, same });
    console.log(`refresh, ${how}: ${measured.requests.length} calls in ${fmt.ms(measured.ms)}`);
  }
  const [single, coalesced] = rows as [(typeof rows)[0], (typeof rows)[0]];
  const help = execFileSync('pulumi', ['refresh', '--help'], { encoding: 'utf8' });
  const parallel = /--parallel int32\s.*\(default (\d+)\)/.exec(help)?.[1] ?? '?';
  return {
    bench: 'Refresh of 150 resources over two zones',
    command: COMMAND,
    figures: [
      {
        what: 'Refresh of 150 resources over two zones: API calls, every read alone against coalesced',
        value: `${single.calls} against ${coalesced.calls}; wall ${fmt.ms(single.ms)} against ${fmt.ms(coalesced.ms)}`,
        goal: `coalesced ≤ ${GOAL}`,
        met: coalesced.calls <= GOAL,
      },
    ],
    section: [
      `Two enterprise zones seeded empty; a stack of ${2 * PER_ZONE} resources, per zone ${Math.ceil(PER_ZONE / 2)} CspPolicy and ${Math.floor(PER_ZONE / 2)} FirewallRuleWithFilter, made by one \`up\` ` +
        `(${up.requests.length} calls, ${fmt.ms(up.ms)}); nothing changed out of band. Then two refreshes of the same stack: the first with \`--parallel 1\`, ` +
        `so each read is alone in its 5 ms window and is one GET, as every read was before coalescing; the second at the CLI's default (\`--parallel\` ${parallel} on this machine). ` +
        'The wall times are not like for like: `--parallel 1` also makes the engine run one step at a time.',
      '',
      table(
        ['refresh', 'API calls', 'by route', 'wall time', 'resources unchanged'],
        rows.map((row) => [row.how, row.calls, row.byRoute, fmt.ms(row.ms), row.same]),
      ),
    ].join('\n'),
  };
});
