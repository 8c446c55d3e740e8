// The firewall upgrade's equivalence check of 300 legacy firewall rules against their conversion into custom rules:
// requests built from the rules' own values, both rule lists evaluated over every one. Pure work, no network: the
// compiled modules of dist/, timed 5 times after one warm-up run.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && node bench/firewall-upgrade.bench.mts
import * as path from 'node:path';
import type * as Lib from './lib.mjs';
import type * as Equivalence from '../src/firewall-upgrade/equivalence.js';
import type * as Rulesets from '../src/rulesets/index.js';
import type { FirewallRuleWire } from '../src/schemas/index.js';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const dist = (module: string) => import(path.join(lib.root, 'dist', module));
const { checkEquivalence }: typeof Equivalence = await dist('firewall-upgrade/equivalence.js');
const { convertFirewallRules, legacyOrder }: typeof Rulesets = await dist('rulesets/index.js');

const COMMAND = 'node bench/firewall-upgrade.bench.mts';
const RULES = 300;
const ACTIONS = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'allow', 'log', 'bypass'] as const;

/**
 * 300 rules of the shapes a zone holds: addresses and ranges, paths, hosts, headers, agents, countries; every 10th
 * shares its neighbour's filter, every 25th a paused filter, every 30th paused.
 */
function zoneRules(): FirewallRuleWire[] {
  const shapes = [
    (i: number) => `ip.src eq 198.51.${i % 256}.${(i * 7) % 256}`,
    (i: number) => `ip.src in {203.0.${i % 256}.0/24 2001:db8:${i.toString(16)}::/48}`,
    (i: number) => `http.request.uri.path eq "/path/${i}" and http.request.method eq "POST"`,
    (i: number) => `http.host eq "h${i}.example.com" or http.host wildcard "*.s${i}.example.com"`,
    (i: number) => `any(http.request.headers["x-key-${i}"][*] eq "v${i}")`,
    (i: number) => `http.user_agent contains "agent-${i}" and not ip.src in {192.0.2.0/24}`,
    (i: number) => `ip.src.country in {"C${i % 26}" "D${i % 13}"} and cf.threat_score gt ${i % 50}`,
    (i: number) => `starts_with(http.request.uri.path, "/api/v${i}") and ssl`,
  ];
  const rules: FirewallRuleWire[] = [];
  for (let i = 0; i < RULES; i += 1) {
    const shared = i % 10 === 9 ? rules[i - 1]?.filter : undefined;
    const action = ACTIONS[i % ACTIONS.length] ?? 'block';
    rules.push({
      id: i.toString(16).padStart(32, '0'),
      action,
      paused: i % 30 === 29,
      priority: i % 3 === 0 ? null : (i * 37) % 100,
      ...(action === 'bypass' ? { products: ['waf', 'rateLimit'] } : {}),
      filter: shared ?? { id: `f${i}`.padStart(32, '0'), expression: (shapes[i % shapes.length] ?? shapes[0]!)(i), paused: i % 25 === 24 },
    });
  }
  return rules;
}

const rules = zoneRules();
const order = legacyOrder(rules);
const custom = convertFirewallRules(rules).map((rule, i) => ({ key: order[i]?.id ?? '', rule }));
checkEquivalence(rules, custom);
const times: number[] = [];
let result = checkEquivalence(rules, custom);
for (let run = 0; run < 5; run += 1) {
  const started = performance.now();
  result = checkEquivalence(rules, custom);
  times.push(performance.now() - started);
}
const median = lib.median(times);
console.log(
  `${RULES} rules: ${result.tried} requests tried, ${result.differences.length} differ, ${result.unreached.length} rules no request reached, median ${(median / 1000).toFixed(2)} s (runs: ${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s)`,
);
lib.emitResult({
  bench: 'Firewall upgrade equivalence check',
  command: COMMAND,
  figures: [
    {
      what: `Equivalence check of ${RULES} legacy rules against their conversion (${result.tried} requests)`,
      value: `${(median / 1000).toFixed(2)} s (median of 5)`,
      goal: 'seconds',
      met: median < 10_000,
    },
  ],
  section: [
    `${RULES} legacy rules of eight shapes (addresses and ranges, paths, hosts, headers, agents, countries, prefixes), every action, priorities set on two thirds, every 10th sharing a filter, every 25th on a paused filter, every 30th paused; converted as the service did, then checked (docs/firewall-and-migration.md#equivalence).`,
    '',
    lib.table(
      ['requests tried', 'requests that differ', 'rules no request reached', 'median', 'runs'],
      [
        [
          result.tried,
          result.differences.length,
          result.unreached.length,
          `${(median / 1000).toFixed(2)} s`,
          times.map((t) => `${(t / 1000).toFixed(2)} s`).join(', '),
        ],
      ],
    ),
  ].join('\n'),
});
