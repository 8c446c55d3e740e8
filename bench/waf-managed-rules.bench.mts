// API calls of WafManagedRules through its lifecycle, counted by the emulator: create adopting a migrated entry point,
// a preview of the unchanged stack, an update of one rule, a refresh and a destroy. The real Pulumi CLI and engine;
// the program served inline (Automation API).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/waf-managed-rules.bench.mts
import { WafManagedRules, planWafMigration, rulesFromRuleset } from 'pulumi-zoneguard';
import { ZoneGuardClient } from 'pulumi-zoneguard/client';
import type { WafManagedRuleArgs } from 'pulumi-zoneguard';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);

const COMMAND = 'node bench/waf-managed-rules.bench.mts';
const OFFICE: WafManagedRuleArgs = { ref: 'office', expression: 'ip.src in {192.0.2.0/24}', skip: { ruleset: 'current' } };

await lib.emulatorBench('waf-managed-rules', {}, async ({ emulator, stack: stackOf, steps }) => {
  const zoneId = emulator.zones.find((zone) => zone.plan === 'pro')!.id;
  const client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  // The zone migrated directly, as WafMigration does it: the converted configuration submitted as final.
  const plan = await planWafMigration({ zoneId, client });
  await client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
  const migrated = rulesFromRuleset(plan.ruleset!);

  let rules = migrated;
  const stack = await stackOf('zoneguard-bench-waf-rules', async () => {
    const managed = new WafManagedRules('waf-rules', { zoneId, rules });
    return { order: managed.order };
  });

  const { run, count, callText, stepsTable } = steps;

  await run('up (create, adopting the migrated entry point)', () => stack.up({ color: 'never' }));
  await run('preview (unchanged)', () => stack.preview({ color: 'never', expectNoChanges: true }));
  rules = [OFFICE, ...migrated];
  await run('preview (one exception added)', () => stack.preview({ color: 'never' }));
  await run('up (update: one exception added)', () => stack.up({ color: 'never' }));
  await run('refresh', () => stack.refresh({ color: 'never' }));
  await run('destroy (puts back what create found)', () => stack.destroy({ color: 'never' }));

  const create = count('up (create');
  const preview = count('preview (unchanged');
  const previewChange = count('preview (one');
  const update = count('up (update');
  const refresh = count('refresh');
  const figures: Lib.Figure[] = [
    {
      what: 'WafManagedRules, create adopting the migrated entry point: API calls',
      value: callText(create),
      goal: '1 write, its owner marker (docs/ownership.md)',
      met: create.writes === 1,
    },
    { what: 'WafManagedRules, preview of the unchanged stack: API calls', value: String(preview.calls), goal: '0', met: preview.calls === 0 },
    {
      what: 'WafManagedRules, preview of one rule added: API calls',
      value: callText(previewChange),
      goal: '1 dry run, no write',
      met: previewChange.dryRuns === 1 && previewChange.writes === 0,
    },
    { what: 'WafManagedRules, update of one rule: API calls', value: callText(update), goal: '1 write', met: update.writes === 1 },
    { what: 'WafManagedRules, refresh: API calls', value: callText(refresh), goal: '1 read', met: refresh.calls === 1 && refresh.writes === 0 },
  ];

  const section = [
    "One WafManagedRules on the emulator's demo Pro zone, migrated directly first (the converted configuration submitted as " +
      'WafMigration submits it), declaring the rules the migration submitted (`rulesFromRuleset(plan.ruleset)`), driven through ' +
      'the real Pulumi CLI and engine (Automation API, inline program). Each step empties the request log first.',
    '',
    stepsTable(),
    '',
    'Create reads the migration status (it refuses a zone not migrated, or in validation) and the entry point, and writes once ' +
      'when the entry point already holds the declared rules: its owner marker in the description (docs/ownership.md). The preview ' +
      'of a change reads the entry point and sends the write with dry_run=true (checked by the service); the up reads it for the ids ' +
      'of the rules it keeps (and another writer in between), then writes it once, with no dry run. Destroy reads it and puts back what create recorded: one write, since the exception added since differs.',
  ].join('\n');

  return { bench: 'WafManagedRules: API calls per lifecycle', command: COMMAND, figures, section };
});
