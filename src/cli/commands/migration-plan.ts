import { Command } from 'commander';
import { readMigrationPlan, type WafMigrationPlan } from '../../migration';
import type { RulesetRule } from '../../schemas';
import { jsonText, processIo, type CliIo, type RunIo } from './io';
import { jsonOption, zoneCommand, type ZoneCommandSpec, type ZoneOptions } from './options';
import { clientFrom } from './client';
import { runCommand, wireCommand } from './run';
import { renderPairs, renderTable } from './table';

interface PlanOptions extends ZoneOptions {
  json?: boolean;
}

/** The overrides of an execute rule in one cell. */
export function overridesCell(rule: RulesetRule): string {
  const overrides = rule.action_parameters?.overrides;
  if (!overrides) return '-';
  const parts: string[] = [];
  if (overrides.action !== undefined) parts.push(`action ${overrides.action}`);
  if (overrides.enabled !== undefined) parts.push(overrides.enabled ? 'enabled' : 'disabled');
  const categories = (overrides.categories ?? []).map(
    (c) => `${c.category}${c.enabled === false ? ' off' : c.enabled === true ? ' on' : ''}${c.action ? ` ${c.action}` : ''}`,
  );
  if (categories.length > 0) parts.push(`categories: ${categories.join(', ')}`);
  const rules = (overrides.rules ?? []).map((r) =>
    [
      r.id,
      r.action,
      r.enabled === false ? 'off' : r.enabled === true ? 'on' : undefined,
      r.score_threshold !== undefined ? `threshold ${r.score_threshold}` : undefined,
    ]
      .filter((p) => p !== undefined)
      .join(' '),
  );
  if (rules.length > 0) parts.push(`rules: ${rules.join(', ')}`);
  return parts.join('; ') || '-';
}

/** Where the zone stands: its WAFs, the migration's state, and while it can still start, its rules against the limits. */
function standingPairs(plan: WafMigrationPlan, migrating: boolean): [string, string][] {
  const { limits } = plan;
  const pairs: [string, string][] = [
    ['Zone', plan.zoneId],
    ['Compatible', plan.compatible ? 'yes' : migrating ? 'no' : `no (the migration is ${plan.migrationState})`],
    ['Migration state', plan.migrationState],
    ['Previous WAF', plan.previousWafStatus],
    ['New WAF', plan.newWafStatus],
  ];
  if (migrating) {
    pairs.push(
      ['Firewall rules', `${limits.firewallRules} (at most ${limits.maxFirewallRules} migrate without support)`],
      [
        'Longest expression',
        `${limits.longestExpressionBytes} bytes${limits.longestExpressionRuleId ? ` (rule ${limits.longestExpressionRuleId})` : ''}, at most ${limits.maxExpressionBytes}`,
      ],
    );
  }
  return pairs;
}

/** The converted configuration's rules in a table, or why there is none. */
function convertedSection(plan: WafMigrationPlan, migrating: boolean): string {
  const { ruleset } = plan;
  if (!ruleset) {
    return `Converted configuration: none (${migrating ? 'the zone is not compatible' : `the migration is ${plan.migrationState}: nothing left to convert`})\n`;
  }
  const rows = ruleset.rules.map((rule, i) => [
    String(i + 1),
    rule.action,
    rule.expression,
    rule.enabled === undefined ? '-' : rule.enabled ? 'yes' : 'no',
    rule.action_parameters?.id ?? '-',
    rule.description || '-',
    overridesCell(rule),
  ]);
  const columns = [
    { header: '#', align: 'right' as const },
    { header: 'ACTION' },
    { header: 'EXPRESSION' },
    { header: 'ENABLED' },
    { header: 'EXECUTES' },
    { header: 'DESCRIPTION' },
    { header: 'OVERRIDES' },
  ];
  return (
    `Converted configuration: ruleset ${JSON.stringify(ruleset.name)}, ${ruleset.rules.length} rule${ruleset.rules.length === 1 ? '' : 's'}\n` +
    (rows.length > 0 ? renderTable(columns, rows) : '')
  );
}

/** What the conversion changes, drops and adjusts, in a table, or why it changes nothing. */
function effectsSection({ conversion }: WafMigrationPlan, migrating: boolean): string {
  const effects: string[][] = [
    ...conversion.changed.map((line) => ['changed', line]),
    ...conversion.dropped.map((line) => ['dropped', line]),
    ...conversion.adjusted.map((line) => ['adjusted', line]),
    ...(conversion.note ? [['note', conversion.note]] : []),
  ];
  return (
    'What the conversion changes or drops\n' +
    (effects.length > 0
      ? renderTable([{ header: 'EFFECT' }, { header: 'DETAIL' }], effects)
      : migrating
        ? 'nothing: the zone has no previous WAF settings to convert\n'
        : 'nothing: the previous WAF is gone\n')
  );
}

/** The plan as text: where the zone stands, what blocks it, the converted ruleset, and what the conversion changes. */
export function renderPlan(plan: WafMigrationPlan): string {
  // Once the migration is pending or complete the service answers compatible: false and nothing is left to read.
  const migrating = plan.migrationState === 'start' || plan.migrationState === 'validation';
  const out: string[] = [renderPairs(standingPairs(plan, migrating))];
  if (plan.problems.length > 0) out.push(`Problems\n${plan.problems.map((p) => `- ${p}\n`).join('')}`);
  out.push(convertedSection(plan, migrating));
  const core = plan.conversion.coreRuleSet;
  if (core) {
    out.push(
      'Core rule set\n' +
        renderTable(
          [{ header: 'SETTING' }, { header: 'BEFORE' }, { header: 'AFTER' }],
          [
            [
              'sensitivity',
              core.sensitivity,
              `paranoia level ${core.paranoiaLevel}, score threshold ${core.thresholdLevel} (${core.scoreThreshold} or higher)`,
            ],
            ['action', core.previousAction, core.action],
            ['enabled', 'yes', core.enabled ? 'yes' : 'no'],
          ],
        ),
    );
  }
  out.push(effectsSection(plan, migrating));
  return out.join('\n');
}

const MIGRATION_PLAN: ZoneCommandSpec = {
  name: 'plan',
  description:
    'show whether a zone can move to the new WAF managed rules, the converted configuration and what the conversion changes or drops; changes nothing',
  options: () => [jsonOption('the plan planWafMigration answers')],
  help: `
Reads only: the compatibility check, the WAF status, the previous WAF's packages and URI-based overrides, the
firewall rules and the converted configuration. It is the plan planWafMigration answers, and what a WafMigration
resource without adjustments would submit.

Examples:
  $ zoneguard migration plan --zone 023e105f4ecef8ad9ca31a8372d0c353
  $ zoneguard migration plan --zone 023e105f4ecef8ad9ca31a8372d0c353 --json | jq .compatible`,
};

/** `zoneguard migration`, with its `plan` sub-command. */
export function migrationCommand(io: CliIo = processIo()): Command {
  const plan = zoneCommand(io, MIGRATION_PLAN, async (options: PlanOptions) => {
    const { client } = clientFrom(options, io.env);
    const result = await readMigrationPlan(client, options.zone);
    io.stdout.write(options.json ? jsonText(result) : renderPlan(result));
  });
  const command = new Command('migration')
    .description('the WAF managed rules migration (plan)')
    .addCommand(plan)
    .addHelpText('after', `\nExit codes: 0 ok; 1 service or API error; 2 usage error.`);
  return wireCommand(command, io);
}

/** Runs `zoneguard migration <argv…>` in-process (e.g. `['plan', '--zone', id]`); answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(migrationCommand, argv, io);
}
