// API calls of the move of 300 legacy firewall rules in two zones to CustomRules, in one `pulumi up`
// (docs/firewall-and-migration.md#move): once with both zones converted (one in maintenance, one retired), once with
// both available. Each time a stack of 300 legacy rules (250 single-call, 50 on 5 shared filters) is made, the plan's
// program (`zoneguard firewall-upgrade-plan --program`, renderMoveProgram) replaces it, and the up is counted by the
// emulator. The real Pulumi CLI and engine; the programs served inline (Automation API).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/firewall-move.bench.mts
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FirewallFilter, FirewallRule, FirewallRuleWithFilter, planFirewallRulesUpgrade } from 'pulumi-zoneguard';
import { ZoneGuardClient } from 'pulumi-zoneguard/client';
import type { PulumiFn } from '@pulumi/pulumi/automation/index.js';
import type * as Lib from './lib.mjs';
import type * as Move from '../src/firewall-upgrade/move.js';
import type { StackExport } from '../src/insights/orphans.js';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { renderMoveProgram }: typeof Move = await import(path.join(lib.root, 'dist', 'firewall-upgrade', 'move.js'));

const COMMAND = 'node bench/firewall-move.bench.mts';
const PER_ZONE = 150;
const SHARED = 5;
const ACTIONS = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'allow', 'log', 'bypass'] as const;

/** One zone's 150 legacy rules: 125 in one call, 25 on shared filters (5, 10 and 10 rules on 3 filters in one zone, 2 in the other: 5 in all). */
function legacyRules(prefix: string, zoneId: string, filters: number): void {
  const onFilters = 25;
  for (let i = 0; i < PER_ZONE - onFilters; i += 1) {
    const action = ACTIONS[i % ACTIONS.length]!;
    new FirewallRuleWithFilter(`${prefix}-${i}`, {
      zoneId,
      expression: `(http.request.uri.path contains "/p${i}/" and ip.src in {203.0.113.${i % 256}})`,
      action,
      ...(action === 'bypass' ? { products: ['waf'] } : {}),
      priority: i % 3 === 0 ? null : i,
      paused: i % 40 === 39,
    });
  }
  const sizes = filters === 3 ? [5, 10, 10] : [10, 15];
  sizes.forEach((size, f) => {
    const filter = new FirewallFilter(`${prefix}-filter-${f}`, { zoneId, expression: `(http.host eq "h${f}.example")` });
    for (let r = 0; r < size; r += 1) {
      new FirewallRule(`${prefix}-filter-${f}-${r}`, { zoneId, filterId: filter.id, action: r === 0 ? 'block' : 'log', priority: r });
    }
  });
}

const RULES = 2 * PER_ZONE;
const isLegacy = (entry: { path: string }) => /\/(firewall\/rules|filters)(\/|$)/.test(entry.path);

await lib.emulatorBench('firewall-move', { seed: 'empty' }, async ({ emulator, dir, stack: stackOf, steps: { steps, run, count, callText, stepsTable } }) => {
  const client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  const runs = { converted: ['maintenance', 'retired'], available: ['available', 'available'] } as const;
  for (const [label, states] of Object.entries(runs)) {
    const zones: string[] = [];
    for (const i of states.keys()) zones.push((await emulator.admin.seedZone({ name: `${label}-${i}.example`, plan: 'enterprise', ruleQuota: 500 })).id);
    let programs: PulumiFn[] = [];
    const stack = await stackOf(
      'zoneguard-bench-firewall-move',
      async () => {
        if (programs.length === 0) {
          zones.forEach((zoneId, i) => legacyRules(`z${i}`, zoneId, i === 0 ? 3 : 2));
          return {};
        }
        const outputs: Record<string, unknown> = {};
        for (const program of programs) Object.assign(outputs, await program());
        return outputs;
      },
      label,
    );
    await stack.up({ color: 'never' });
    for (const [i, state] of states.entries()) if (state !== 'available') await emulator.admin.setLegacyFirewall(zones[i]!, state);
    const exported = (await stack.exportStack()) as unknown as StackExport;
    const files: string[] = [];
    for (const [i, zoneId] of zones.entries()) {
      const plan = await planFirewallRulesUpgrade({ zoneId, client, stackExports: [exported] });
      // Inside the repository, so that 'pulumi-zoneguard' resolves to this build (scripts/engine.sh links it).
      const file = path.join(dir, `${label}-${i}.mts`);
      fs.writeFileSync(file, renderMoveProgram(zoneId, plan.move!));
      files.push(file);
    }
    // One program a file, made once: each run imports its module afresh (lib.moduleProgram counts the runs).
    programs = files.map((file) => lib.moduleProgram(file));
    await run(`up (the move of ${RULES} rules in two zones, ${states.join(' and ')})`, () => stack.up({ color: 'never' }));
    await run(`preview (after the move, ${label})`, () => stack.preview({ color: 'never', expectNoChanges: true }));
  }

  const step = (name: string) => steps.find((s) => s.name.startsWith(name))!.requests;
  const converted = count('up (the move of 300 rules in two zones, maintenance');
  const convertedLegacy = step('up (the move of 300 rules in two zones, maintenance').filter(isLegacy).length;
  const available = step('up (the move of 300 rules in two zones, available');
  const creates = available.filter((entry) => entry.method === 'POST' && !isLegacy(entry)).length;
  const deletes = available.filter((entry) => entry.method === 'DELETE').length;
  const availableCalls = count('up (the move of 300 rules in two zones, available');
  // A rule's own filter goes with it; a shared filter is deleted by its FirewallFilter (its marker is known only then).
  const legacyDeletes = RULES + SHARED;
  // The adoptions' confirming reads (docs/ownership.md#take-over): one a zone per half second at most, shared by the adoptions confirming meanwhile.
  const confirmingReads = Math.ceil(RULES / 4);
  const figures: Lib.Figure[] = [
    {
      what: `The move of ${RULES} legacy firewall rules in two converted zones (maintenance, retired) to CustomRules: API calls`,
      value: `${callText(converted)}; ${convertedLegacy} to the legacy API`,
      goal:
        `at most 1 write a rule (its marker), 1 read a zone and phase before, and the confirming reads, shared by the adoptions confirming within half a second, ` +
        `none to the legacy API (${RULES} writes, ≤ 2 + ${confirmingReads} reads: one per 4 adoptions, 0)`,
      met: converted.writes <= RULES && converted.reads <= 2 + confirmingReads && convertedLegacy === 0,
    },
    {
      what: `The move of ${RULES} legacy firewall rules in two available zones to CustomRules: writes`,
      value: `${creates} creates, ${deletes} deletes (${callText(availableCalls)})`,
      goal: `1 create a rule, 1 delete a legacy rule (its own filter with it) and a shared filter (${RULES} creates, ${legacyDeletes} deletes)`,
      met: creates === RULES && deletes === legacyDeletes,
    },
    {
      what: 'Preview after the move: API calls',
      value: String(count('preview (after the move, converted').calls + count('preview (after the move, available').calls),
      goal: '0',
      met: count('preview (after the move, converted').calls + count('preview (after the move, available').calls === 0,
    },
  ];

  const section = [
    `A stack of ${RULES} legacy firewall rules in two zones of the emulator (${PER_ZONE} each: 125 single-call, 25 on shared filters, ${SHARED} filters in all), ` +
      'moved in one `pulumi up` to the CustomRules that `zoneguard firewall-upgrade-plan --program` writes (renderMoveProgram): once with the two ' +
      'zones converted (one in maintenance, one retired), once with both available. The real Pulumi CLI and engine. Each step empties the request log first.',
    '',
    stepsTable(),
    '',
    'Converted: each CustomRule adopts its converted rule with one write (its owner marker) after the zone\'s entry point is read once ' +
      '(an adoption with takeOver uses the entry point as the run last read or wrote it, however the engine spaces its calls), then confirms ' +
      'its marker from a read issued at most half a second after the first confirmation waiting, which those confirming meanwhile share (docs/ownership.md#take-over); ' +
      "the firewall resources leave the state without a call (src/providers/kit/conversion.ts). Available: each CustomRule is created after the one " +
      'before it (position); then the first legacy delete of each zone reads its custom phase and its legacy rules once and deletes the rules the run ' +
      'moved (their markers this stack\'s), the last to run first, each with its own filter, so that the legacy rules left always run as before ' +
      "(src/providers/kit/move-deletes.ts); the firewall resources' own deletes then make no call, but the shared filters' (a read and a delete each).",
  ].join('\n');

  return { bench: 'Firewall rules to custom rules: the move of 300 rules', command: COMMAND, figures, section };
});
