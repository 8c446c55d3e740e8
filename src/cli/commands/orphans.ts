import { Option, type Command } from 'commander';
import { NotFoundError } from '../../client';
import { CUSTOM_PHASE, RATELIMIT_PHASE } from '../../schemas';
import {
  OBJECT_NOUN,
  StackExportSchema,
  adoptInputOf,
  deletable,
  findOrphans,
  ownershipOf,
  pendingDeletions,
  standingText,
  type ListedObject,
  type Orphan,
  type PhaseRuleObject,
  type StackExport,
  type ZoneObjects,
} from '../../insights/orphans';
import type { ZoneGuardClient } from '../../client';
import { UsageError, checkedInput, processIo, readInput, tryJson, type CliIo, type RunIo } from './io';
import { stackExportOption, zoneCommand, type ZoneCommandSpec, type ZoneOptions } from './options';
import { clientFrom } from './client';
import { runCommand, wireCommand } from './run';

interface OrphansOptions extends ZoneOptions {
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

/**
 * The exports, each holding something of the zone: an export that holds nothing there (another zone's stack, or a
 * stack whose first `up` recorded nothing) would make every object of the zone look unheld.
 */
export function readExports(files: readonly string[], zoneId: string): StackExport[] {
  const exports = files.map((file) => ({ file, export: readExport(file) }));
  const empty = exports.filter((e) => ownershipOf([e.export], zoneId).resources === 0).map((e) => e.file);
  if (empty.length > 0) {
    throw new UsageError(
      `${empty.join(', ')}: holds no zoneguard resource of zone ${zoneId}, pending creates included; pass the export of each stack that manages ` +
        'this zone (pulumi stack export --stack <name>), and after a first pulumi up that recorded nothing, run pulumi up again first',
    );
  }
  return exports.map((e) => e.export);
}

const noun = (orphan: Orphan) => OBJECT_NOUN[orphan.object];

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

/** Every object of the zone of a type orphans lists. */
async function zoneObjects(client: ZoneGuardClient, zoneId: string): Promise<ZoneObjects> {
  const [cspPolicy, firewallRule, filter, rulesetRule] = await Promise.all([
    client.cspPolicies.list({ zoneId }).toArray(),
    client.firewallRules.list({ zoneId }).toArray(),
    client.filters.list({ zoneId }).toArray(),
    phaseRules(client, zoneId),
  ]);
  return { cspPolicy, firewallRule, filter, rulesetRule };
}

/**
 * How an orphan of each listed type is deleted. A rule's filter goes with it only when `filterId` is set (no resource
 * holds it, no other owner marked it). A type orphans lists without its entry here is a compile error.
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

/** The ids of `--delete` that are not orphans it may delete, as the one line that refuses them all before any delete. */
function namedProblem(named: readonly string[], orphans: readonly Orphan[], zoneId: string): string | undefined {
  const unknown = named.filter((id) => !orphans.some((o) => o.id === id));
  if (unknown.length > 0) return `--delete ${unknown.join(', ')}: not an object of zone ${zoneId} that the given stacks leave unheld; nothing deleted`;
  const others = orphans.filter((o) => named.includes(o.id) && !deletable(o));
  if (others.length === 0) return undefined;
  return (
    `--delete ${others.map((o) => `${o.id} (marked ${o.marker})`).join(', ')}: marked by another owner, which no given export records; nothing deleted. ` +
    "zoneguard orphans never deletes another owner's object: pass the export of the stack that holds it (pulumi stack export shows the marker as __zoneguardMarker)"
  );
}

/** The listing: one line per orphan with what its marker says, and how a pending create could adopt it instead. */
function printOrphans(io: CliIo, zoneId: string, orphans: readonly Orphan[]): void {
  const nouns = Object.values(OBJECT_NOUN);
  if (orphans.length === 0) {
    io.stdout.write(`zone ${zoneId}: every ${nouns.slice(0, -1).join(', ')} and ${nouns.at(-1)} is held by a resource of the given stacks\n`);
  }
  for (const orphan of orphans) {
    io.stdout.write(`${noun(orphan)} ${orphan.id}  ${orphan.summary}  ${standingText(orphan)}\n`);
    for (const { urn, kind } of orphan.pendingOf) io.stdout.write(`  to adopt it instead: ${adoptInputOf(kind)}: '${orphan.id}' on ${urn}\n`);
  }
  if (orphans.some((o) => !deletable(o))) {
    io.stdout.write(
      'an object marked by another owner is never deleted: pulumi stack export --stack <name> shows its marker (__zoneguardMarker) in the stack that holds it; pass that export too\n',
    );
  }
}

const ORPHANS: ZoneCommandSpec = {
  name: 'orphans',
  description:
    'list the objects of a zone that no resource of the given stacks holds (what an interrupted pulumi up left), with their owner marker; delete them only when asked',
  options: () => [
    stackExportOption().makeOptionMandatory(),
    new Option('--delete-pending', 'delete each object that is the one match of a pending create of these stacks'),
    new Option('--delete <id...>', 'delete these listed objects (ids the listing shows); never one another owner marked'),
  ],
  help: `
Without --delete-pending or --delete it only reads. Pass the export of every stack that manages this zone: an object
another stack marked is listed as marked by another owner and never deleted. After a pulumi up whose CLI was killed:

  $ pulumi cancel
  $ pulumi stack export | zoneguard orphans --zone 023e105f4ecef8ad9ca31a8372d0c353 --stack-export - --delete-pending
  $ pulumi refresh --clear-pending-creates
  $ pulumi up`,
};

/**
 * `zoneguard orphans`: the zone's objects of every kind of many objects per zone (policies, firewall rules, filters,
 * custom and rate limiting rules) that no resource of the given stack exports holds, with what their owner marker
 * says. Reads only, unless --delete-pending or --delete says what to delete; never deletes what another owner marked.
 */
export function orphansCommand(io: CliIo = processIo()): Command {
  const command = zoneCommand(io, ORPHANS, async (options: OrphansOptions) => {
    const zoneId = options.zone;
    const { held, pending, markers } = ownershipOf(readExports(options.stackExport, zoneId), zoneId);
    const named = options.delete ?? [];
    const heldNamed = named.filter((id) => held.has(id));
    if (heldNamed.length > 0) throw new UsageError(`--delete ${heldNamed.join(', ')}: held by a resource of the given stacks; nothing deleted`);
    const { client } = clientFrom(options, io.env);
    const orphans = findOrphans(await zoneObjects(client, zoneId), { held, pending, markers });
    const problem = namedProblem(named, orphans, zoneId);
    if (problem) throw new UsageError(problem);
    printOrphans(io, zoneId, orphans);

    const plan = options.deletePending ? pendingDeletions(orphans, pending) : { delete: [], refused: [] };
    const doomed = [...plan.delete, ...orphans.filter((o) => named.includes(o.id) && !plan.delete.includes(o))];
    for (const orphan of doomed) {
      await deleteOrphan(client, zoneId, orphan);
      io.stdout.write(`deleted ${noun(orphan)} ${orphan.id}${orphan.filterStays ? ` (${orphan.filterStays})` : ''}\n`);
    }
    for (const line of plan.refused) io.stderr.write(`zoneguard orphans: ${line}\n`);
    if (plan.refused.length > 0) throw new UsageError(`${plan.refused.length} pending create(s) matched more than one object; see above`);
    if (!options.deletePending && named.length === 0 && orphans.length > 0) {
      io.stdout.write('nothing deleted (read only): --delete-pending deletes what matches a pending create, --delete <id> what you name\n');
    }
  });
  return wireCommand(command, io);
}

/** Runs `zoneguard orphans <argv…>` in-process; answers the exit code. */
export function run(argv: readonly string[], io: RunIo): Promise<number> {
  return runCommand(orphansCommand, argv, io);
}
