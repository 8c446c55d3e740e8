import { Command } from 'commander';
import { NotFoundError } from '../../client';
import { OBJECT_NOUN, StackExportSchema, type ListedObject, type PhaseRuleObject, adoptInputOf, findOrphans, isOfAnotherZone, ownershipOf, pendingDeletions, type Orphan, type StackExport } from '../../insights/orphans';
import type { ZoneGuardClient } from '../../client';
import { CUSTOM_PHASE, RATELIMIT_PHASE } from '../../schemas';
import { UsageError, checkedInput, processIo, readInput, tryJson, type CliIo, type RunIo } from './io';
import { addConnectionOptions, zoneOption, type ConnectionOptions } from './options';
import { clientFrom } from './client';
import { actionOf, runCommand, wireCommand } from './run';

interface OrphansOptions extends ConnectionOptions {
  zone: string;
  stackExport: string[];
  deletePending?: boolean;
  delete?: string[];
}

/** Reads one `pulumi stack export` file (`-`: standard input) and checks its shape. */
function readExport(file: string): StackExport {
  const parsed = tryJson(readInput(file));
  if (!parsed) throw new UsageError(`${file} is not JSON: pass what pulumi stack export writes`);
  return checkedInput(StackExportSchema, parsed.json, `${file} is not a pulumi stack export`);
}

const noun = (orphan: Orphan) => OBJECT_NOUN[orphan.object];

/**
 * How an orphan of each listed type is deleted. A rule's filter goes with it only when no resource holds it
 * (`filterId` set): a filter a FirewallFilter of the stacks holds stays. A type orphans lists without its entry here is
 * a compile error.
 */
const DELETERS: Record<ListedObject, (client: ZoneGuardClient, zoneId: string, orphan: Orphan) => Promise<unknown>> = {
  cspPolicy: (client, zoneId, orphan) => client.cspPolicies.delete({ zoneId, policyId: orphan.id }),
  filter: (client, zoneId, orphan) => client.filters.delete({ zoneId, filterId: orphan.id }),
  firewallRule: (client, zoneId, orphan) => client.firewallRules.delete({ zoneId, ruleId: orphan.id, deleteFilterIfUnused: orphan.filterId !== undefined }),
  rulesetRule: (client, zoneId, orphan) => client.rulesets.deleteRule({ zoneId, rulesetId: orphan.rulesetId ?? '', ruleId: orphan.id }),
};

/** Deletes one orphan; gone meanwhile is what was asked. */
async function deleteOrphan(client: ZoneGuardClient, zoneId: string, orphan: Orphan): Promise<void> {
  try {
    await DELETERS[orphan.object](client, zoneId, orphan);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

/** The rules of the zone's custom and rate limiting entry points; a phase without an entry point has none. */
async function phaseRules(client: ZoneGuardClient, zoneId: string): Promise<PhaseRuleObject[]> {
  const rules: PhaseRuleObject[] = [];
  for (const phase of [CUSTOM_PHASE, RATELIMIT_PHASE] as const) {
    try {
      const entrypoint = await client.rulesets.getEntrypoint({ zoneId, phase });
      for (const rule of entrypoint.rules) if (rule.id) rules.push({ ...rule, id: rule.id, phase, rulesetId: entrypoint.id });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return rules;
}

/**
 * `zoneguard orphans`: the zone's CSP policies, firewall rules, filters and custom and rate limiting rules that no resource of the given stack exports holds,
 * marking those that match a pending create (a `pulumi up` killed between a create's request and the state write).
 * Reads only, unless --delete-pending or --delete says what to delete.
 */
export function orphansCommand(io: CliIo = processIo()): Command {
  const command = new Command('orphans')
    .description('list the objects of a zone that no resource of the given stacks holds (what an interrupted pulumi up left); delete them only when asked')
    .addOption(zoneOption())
    .requiredOption('--stack-export <file...>', 'what pulumi stack export wrote, one file per stack on this zone (- for standard input)')
    .option('--delete-pending', 'delete each object that is the one match of a pending create of these stacks')
    .option('--delete <id...>', 'delete these listed objects (ids the listing shows)');
  addConnectionOptions(
    command,
    `
Without --delete-pending or --delete it only reads. Pass the export of every stack that manages this zone: an object
held by a stack not passed in would be listed as an orphan. After a pulumi up whose CLI was killed:

  $ pulumi cancel
  $ pulumi stack export | zoneguard orphans --zone 023e105f4ecef8ad9ca31a8372d0c353 --stack-export - --delete-pending
  $ pulumi refresh --clear-pending-creates
  $ pulumi up`,
  );
  command.action(
    actionOf<OrphansOptions>(io, async (options) => {
      const exports = options.stackExport.map((file) => ({ file, export: readExport(file) }));
      const elsewhere = exports.filter((e) => isOfAnotherZone(ownershipOf([e.export], options.zone))).map((e) => e.file);
      if (elsewhere.length > 0) {
        throw new UsageError(
          `${elsewhere.join(', ')}: holds zoneguard resources, but none of zone ${options.zone}; pass the export of each stack that manages this zone (pulumi stack export --stack <name>)`,
        );
      }
      const { held, pending } = ownershipOf(exports.map((e) => e.export), options.zone);
      const named = options.delete ?? [];
      const heldNamed = named.filter((id) => held.has(id));
      if (heldNamed.length > 0) throw new UsageError(`--delete ${heldNamed.join(', ')}: held by a resource of the given stacks; nothing deleted`);
      const { client } = clientFrom(options, io.env);
      const zoneId = options.zone;
      const [cspPolicies, firewallRules, filters, rulesetRules] = await Promise.all([
        client.cspPolicies.list({ zoneId }).toArray(),
        client.firewallRules.list({ zoneId }).toArray(),
        client.filters.list({ zoneId }).toArray(),
        phaseRules(client, zoneId),
      ]);
      const orphans = findOrphans({ cspPolicies, firewallRules, filters, rulesetRules }, { held, pending });
      const unknown = named.filter((id) => !orphans.some((o) => o.id === id));
      if (unknown.length > 0) throw new UsageError(`--delete ${unknown.join(', ')}: not an object of zone ${zoneId} that the given stacks leave unheld; nothing deleted`);

      if (orphans.length === 0) io.stdout.write(`zone ${zoneId}: every CSP policy, firewall rule, filter and custom and rate limiting rule is held by a resource of the given stacks\n`);
      for (const orphan of orphans) {
        const pendingNote = orphan.pendingOf.length > 0 ? `  pending create of ${orphan.pendingOf.map((p) => p.urn).join(', ')}` : '';
        io.stdout.write(`${noun(orphan)} ${orphan.id}  ${orphan.summary}${pendingNote}\n`);
        for (const { urn, kind } of orphan.pendingOf) io.stdout.write(`  to adopt it instead: ${adoptInputOf(kind)}: '${orphan.id}' on ${urn}\n`);
      }

      const plan = options.deletePending ? pendingDeletions(orphans, pending) : { delete: [], refused: [] };
      const doomed = [...plan.delete, ...orphans.filter((o) => named.includes(o.id) && !plan.delete.includes(o))];
      for (const orphan of doomed) {
        await deleteOrphan(client, zoneId, orphan);
        io.stdout.write(`deleted ${noun(orphan)} ${orphan.id}\n`);
      }
      for (const line of plan.refused) io.stderr.write(`zoneguard orphans: ${line}\n`);
      if (plan.refused.length > 0) throw new UsageError(`${plan.refused.length} pending create(s) matched more than one object; see above`);
      if (!options.deletePending && named.length === 0 && orphans.length > 0) {
        io.stdout.write('nothing deleted (read only): --delete-pending deletes what matches a pending create, --delete <id> what you name\n');
      }
    }),
  );
  return wireCommand(command, io);
}

/** Runs `zoneguard orphans <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(orphansCommand, argv, io);
}
