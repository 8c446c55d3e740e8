// API calls of CustomRule and RateLimitRule through a stack's lifecycle, counted by the emulator: 100 custom rules and
// 2 rate limiting rules previewed, then created, in one zone that has no entry point of either phase, a preview of the unchanged
// stack, an update of one rule, a preview and an up of one rule moved, a refresh, and a destroy. The real Pulumi CLI
// and engine; the program served inline (Automation API).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/custom-rules.bench.mts
import { CustomRule, RateLimitRule } from 'pulumi-zoneguard';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);

const COMMAND = 'node bench/custom-rules.bench.mts';
const RULES = 100;
const LIMITS = 2;

await lib.emulatorBench('custom-rules', {}, async ({ emulator, stack: stackOf, steps }) => {
  // The enterprise zone: its plan allows 1000 custom rules and 100 rate limiting rules (docs/service.md#ruleset-quotas).
  const zoneId = emulator.zones.find((zone) => zone.plan === 'enterprise')!.id;
  let firstAction: 'block' | 'managed_challenge' = 'block';
  let lastFirst = false;
  const stack = await stackOf('zoneguard-bench-custom-rules', async () => {
    for (let i = 0; i < RULES; i += 1) {
      const last = i === RULES - 1;
      new CustomRule(`rule-${i}`, {
        zoneId,
        action: i === 0 ? firstAction : 'log',
        expression: `(http.request.uri.path eq "/path-${i}")`,
        ref: `rule-${i}`,
        ...(last && lastFirst ? { position: { first: true } } : {}),
      });
    }
    for (let i = 0; i < LIMITS; i += 1) {
      new RateLimitRule(`limit-${i}`, {
        zoneId,
        action: 'block',
        expression: `(http.request.uri.path eq "/login-${i}")`,
        ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
      });
    }
    return {};
  });

  const { run, count, callText, stepsTable } = steps;

  await run(`preview (create ${RULES} custom rules and ${LIMITS} rate limiting rules)`, () => stack.preview({ color: 'never' }));
  await run(`up (create ${RULES} custom rules and ${LIMITS} rate limiting rules)`, () => stack.up({ color: 'never' }));
  await run('preview (unchanged)', () => stack.preview({ color: 'never', expectNoChanges: true }));
  firstAction = 'managed_challenge';
  await run('preview (one rule changed)', () => stack.preview({ color: 'never' }));
  await run('up (update: one rule changed)', () => stack.up({ color: 'never' }));
  lastFirst = true;
  await run('up (update: one rule moved first)', () => stack.up({ color: 'never' }));
  await run('refresh', () => stack.refresh({ color: 'never' }));
  await run('destroy', () => stack.destroy({ color: 'never' }));

  const previewCreate = count('preview (create');
  const create = count('up (create');
  const unchanged = count('preview (unchanged');
  const changed = count('preview (one rule');
  const update = count('up (update: one rule changed');
  const move = count('up (update: one rule moved');
  const refresh = count('refresh');
  const destroy = count('destroy');
  const rules = RULES + LIMITS;
  const figures: Lib.Figure[] = [
    {
      what: `CustomRule and RateLimitRule, create of ${RULES} + ${LIMITS} rules in a zone without entry points: API calls`,
      value: callText(create),
      goal: `1 write a rule, at most 1 read a phase (${rules} writes, ≤ 2 reads)`,
      met: create.writes === rules && create.reads <= 2,
    },
    {
      what: `CustomRule and RateLimitRule, preview of the create of ${RULES} + ${LIMITS} rules: API calls`,
      value: callText(previewCreate),
      goal: `1 dry run a rule, at most 1 read a phase, no write (${rules} dry runs, ≤ 2 reads)`,
      met: previewCreate.dryRuns === rules && previewCreate.reads <= 2 && previewCreate.writes === 0,
    },
    { what: 'CustomRule and RateLimitRule, preview of the unchanged stack: API calls', value: String(unchanged.calls), goal: '0', met: unchanged.calls === 0 },
    {
      what: 'CustomRule, preview of one rule changed: API calls',
      value: callText(changed),
      goal: '1 dry run, no write',
      met: changed.dryRuns === 1 && changed.writes === 0,
    },
    { what: 'CustomRule, update of one rule: API calls', value: callText(update), goal: '1 write', met: update.writes === 1 },
    { what: 'CustomRule, one rule moved first: API calls', value: callText(move), goal: '1 write', met: move.writes === 1 },
    {
      what: `CustomRule and RateLimitRule, refresh of ${RULES} + ${LIMITS} rules: API calls`,
      value: callText(refresh),
      goal: 'at most 2 reads a phase (≤ 4)',
      met: refresh.calls <= 4 && refresh.writes === 0,
    },
    {
      what: `CustomRule and RateLimitRule, destroy of ${RULES} + ${LIMITS} rules: API calls`,
      value: callText(destroy),
      goal: `${rules} writes`,
      met: destroy.writes === rules,
    },
  ];

  const section = [
    `${RULES} CustomRules and ${LIMITS} RateLimitRules in the emulator's demo Enterprise zone, which has no entry point of either phase at ` +
      'the start, driven through the real Pulumi CLI and engine (Automation API, inline program). Each step empties the request log first.',
    '',
    stepsTable(),
    '',
    "A create is one write: the zone's first rule of a phase makes the entry point with the create-only write " +
      "(POST /zones/:zone_id/rulesets), every other one POSTs itself, after one read of the zone's entry point a phase for " +
      "the run. A preview sends each write the up would make with dry_run=true (a create's POST; in a zone's phase without " +
      "an entry point, the create-only write of the entry point as the preview's creates would leave it, so the quota " +
      "counts them together; a change's PATCH); the up sends none, and " +
      "the marker's live read (kit/marker.ts) reads the entry point before the write. " +
      'A refresh reads a zone\'s entry point once for the rules whose reads arrive together (coalesced reads), and again for ' +
      'those that arrive after that read answered. A delete reads ' +
      "the rule's owner marker (coalesced, but every delete ends the walk it would share) and deletes the rule. " +
      "How many reads a refresh and a destroy make depends on when the engine's calls reach the provider, so those counts " +
      'vary between runs (2 or 3 in the runs recorded here and in docs/custom-rules.md); the goals bound them.',
  ].join('\n');

  return { bench: 'CustomRule and RateLimitRule: API calls per lifecycle', command: COMMAND, figures, section };
});
