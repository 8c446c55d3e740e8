import { Option, type Command } from 'commander';
import { readFirewallUpgradePlan, renderMoveProgram, type FirewallRulesUpgradePlan } from '../../firewall-upgrade';
import { ownershipOf } from '../../insights/orphans';
import { UsageError, jsonText, processIo, type CliIo, type RunIo } from './io';
import { jsonOption, stackExportOption, zoneCommand, type ZoneCommandSpec, type ZoneOptions } from './options';
import { clientFrom } from './client';
import { readExports } from './orphans';
import { runCommand, wireCommand } from './run';
import { renderPairs, renderTable } from './table';

interface PlanOptions extends ZoneOptions {
  stackExport?: string[];
  json?: boolean;
  program?: boolean;
}

/** What a custom rule does, in one cell: its action and what a skip skips. */
function actionCell(rule: FirewallRulesUpgradePlan['rules'][number]['customRule']): string {
  const parameters = rule.action_parameters;
  if (rule.action !== 'skip' || !parameters) return rule.action;
  const parts = [
    parameters.ruleset ? `ruleset ${parameters.ruleset}` : '',
    parameters.products ? `products ${parameters.products.join(', ')}` : '',
    parameters.phases ? `phases ${parameters.phases.join(', ')}` : '',
  ];
  return `skip (${parts.filter(Boolean).join('; ')})`;
}

/** The plan as text: the zone, each legacy rule with its custom rule, holder and differences, the other custom rules, the verdict, the problems. */
export function renderFirewallUpgradePlan(plan: FirewallRulesUpgradePlan): string {
  const out: string[] = [
    renderPairs([
      ['Zone', plan.zoneId],
      ['Legacy firewall API', plan.legacyApi === 'readable' ? 'readable' : 'retired: its rules cannot be read'],
      [
        'Converted',
        plan.legacyApi === 'retired'
          ? 'yes (the API is retired)'
          : plan.rules.length === 0
            ? 'nothing to convert: the zone has no firewall rules'
            : plan.converted
              ? 'yes: every legacy rule has its custom rule'
              : 'no: the conversion is still to come',
      ],
      ['Verdict', plan.equivalence?.verdict ?? '-'],
    ]),
  ];
  if (plan.problems.length > 0) out.push(`Problems\n${plan.problems.map((p) => `- ${p}\n`).join('')}`);
  if (plan.rules.length > 0) {
    const rows = plan.rules.map((rule) => [
      rule.legacyRuleId,
      `${rule.action}${rule.priority === null ? '' : ` @${rule.priority}`}`,
      String(rule.position),
      rule.customRuleId ?? '(to come)',
      actionCell(rule.customRule),
      rule.customRule.enabled === false ? 'no' : 'yes',
      rule.holder,
      rule.expression,
    ]);
    out.push(
      `Legacy rules, in the order they ran (${plan.rules.length})\n` +
        renderTable(
          [
            { header: 'LEGACY RULE' },
            { header: 'ACTION' },
            { header: '#', align: 'right' },
            { header: 'CUSTOM RULE' },
            { header: 'BECOMES' },
            { header: 'ENABLED' },
            { header: 'HELD BY' },
            { header: 'EXPRESSION' },
          ],
          rows,
        ),
    );
    const differences = plan.rules.flatMap((rule) => rule.differences.map((difference) => [rule.legacyRuleId, difference]));
    out.push(
      `Differences in behaviour\n${differences.length > 0 ? renderTable([{ header: 'LEGACY RULE' }, { header: 'DIFFERENCE' }], differences) : 'none found\n'}`,
    );
  }
  if (plan.otherCustomRules.length > 0) {
    out.push(
      `Other custom rules of the phase (left alone)\n${renderTable(
        [{ header: 'CUSTOM RULE' }, { header: 'DESCRIPTION' }, { header: 'HELD BY' }],
        plan.otherCustomRules.map((rule) => [rule.id, rule.description || '-', rule.holder]),
      )}`,
    );
  }
  if (plan.move) {
    out.push(
      `The move (${plan.move.rules.length} rule${plan.move.rules.length === 1 ? '' : 's'} of the given stacks): ${plan.move.note}; --program prints its CustomRules\n` +
        (plan.move.rules.length > 0
          ? renderTable(
              [{ header: 'CUSTOM RULE RESOURCE' }, { header: 'ADOPTS' }, { header: 'REPLACES' }],
              plan.move.rules.map((rule) => [rule.name, rule.customRuleId ?? '(created)', rule.replaces ?? '-']),
            )
          : ''),
    );
  }
  if (plan.equivalence && plan.equivalence.unreached.length > 0) {
    out.push(`Legacy rules no request tried reached (shadowed, or met by no value tried): ${plan.equivalence.unreached.join(', ')}\n`);
  }
  return out.join('\n');
}

const FIREWALL_UPGRADE_PLAN: ZoneCommandSpec = {
  name: 'firewall-upgrade-plan',
  description:
    "show what moving a zone's legacy firewall rules to custom rules does: each rule's custom rule, who holds it, every difference in behaviour; changes nothing",
  options: () => [
    stackExportOption(': who holds each rule'),
    jsonOption('the plan planFirewallRulesUpgrade answers'),
    new Option(
      '--program',
      'print the Pulumi program of the move instead: a CustomRule for each rule the --stack-export stacks hold (docs/firewall-and-migration.md#move)',
    ),
  ],
  help: `
Reads only: the legacy firewall rules (while the API answers reads), the zone's custom rules, and a dry run of the
custom phase after the conversion (which saves nothing). docs/firewall-and-migration.md#upgrade-plan.

Examples:
  $ zoneguard firewall-upgrade-plan --zone 023e105f4ecef8ad9ca31a8372d0c353
  $ pulumi stack export | zoneguard firewall-upgrade-plan --zone 023e105f4ecef8ad9ca31a8372d0c353 --stack-export -
  $ pulumi stack export | zoneguard firewall-upgrade-plan --zone 023e105f4ecef8ad9ca31a8372d0c353 --stack-export - --program > move.ts`,
};

/** `zoneguard firewall-upgrade-plan`. */
export function firewallUpgradePlanCommand(io: CliIo = processIo()): Command {
  const command = zoneCommand(io, FIREWALL_UPGRADE_PLAN, async (options: PlanOptions) => {
    if (options.program && !options.stackExport) {
      throw new UsageError('--program needs --stack-export: the program declares the rules your stack holds, which its export tells');
    }
    const holders = options.stackExport ? ownershipOf(readExports(options.stackExport, options.zone), options.zone) : undefined;
    const { client } = clientFrom(options, io.env);
    const plan = await readFirewallUpgradePlan(client, options.zone, holders);
    if (options.program && plan.move) io.stdout.write(renderMoveProgram(plan.zoneId, plan.move));
    else io.stdout.write(options.json ? jsonText(plan) : renderFirewallUpgradePlan(plan));
  });
  return wireCommand(command, io);
}

/** Runs `zoneguard firewall-upgrade-plan <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(firewallUpgradePlanCommand, argv, io);
}
