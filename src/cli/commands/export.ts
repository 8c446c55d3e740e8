import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { exportZoneProgram } from '../../insights';
import { UsageError, processIo, type CliIo, type RunIo } from './io';
import { zoneCommand, type ZoneCommandSpec, type ZoneOptions } from './options';
import { clientFrom } from './client';
import { runCommand, wireCommand } from './run';

interface ExportOptions extends ZoneOptions {
  output?: string;
  package: string;
}

const EXPORT: ZoneCommandSpec = {
  name: 'export',
  description:
    "print a TypeScript Pulumi program that declares a zone's page security settings, CSP policies, firewall rules and (once migrated) WAF managed rules, adopting them as they are",
  options: () => [
    new Option('-o, --output <file>', 'write the program to this file instead of stdout'),
    new Option('--package <name>', 'module the resources are imported from').default('pulumi-zoneguard'),
  ],
  help: `
The program only reads the zone to be written. Each CspPolicy carries adoptPolicyId and each
FirewallRuleWithFilter adoptRuleId, so the first \`pulumi up\` takes the existing objects over instead of creating
copies; the declared values are the zone's current ones. A zone that migrated to the new WAF gets a
WafManagedRules with the rules its entry point holds, under their refs, which it takes over with one write, its
owner marker.

Examples:
  $ zoneguard export --zone 023e105f4ecef8ad9ca31a8372d0c353 > index.ts
  $ zoneguard export --zone 023e105f4ecef8ad9ca31a8372d0c353 -o infra/zone.ts`,
};

/**
 * `zoneguard export`: a TypeScript Pulumi program declaring the zone's page security settings, CSP policies and
 * firewall rules, each adopting the existing object, and on a migrated zone its WAF managed rules, so that the first
 * `pulumi up` takes them over.
 */
export function exportCommand(io: CliIo = processIo()): Command {
  const command = zoneCommand(io, EXPORT, async (options: ExportOptions) => {
    const { client } = clientFrom(options, io.env);
    const { program, snapshot } = await exportZoneProgram({ client, zoneId: options.zone, packageName: options.package });
    if (options.output === undefined) {
      io.stdout.write(program);
      return;
    }
    try {
      writeFileSync(options.output, program);
    } catch (error) {
      throw new UsageError(`cannot write ${options.output}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    const waf = snapshot.wafRules ? `, ${snapshot.wafRules.rules.length} WAF managed rules` : '';
    io.stdout.write(
      `wrote ${options.output}: page security settings, ${snapshot.cspPolicies.length} CSP policies, ${snapshot.firewallRules.length} firewall rules${waf}\n`,
    );
  });
  return wireCommand(command, io);
}

/** Runs `zoneguard export <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(exportCommand, argv, io);
}
