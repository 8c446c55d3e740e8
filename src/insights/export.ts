// `zoneguard export`: a zone as the Pulumi program that declares what it holds, each object adopted. Every kind of the
// registry is declared (export-kinds.ts): from its field table, or by a program of its own.
import type { ZoneGuardClient } from '../client';
import { compareText } from './classification';
import { splitMarked } from '../schemas/owner-marker';
import { RESOURCE_KINDS, declarationOf, wireValue, type KindDeclaration, type ObjectType, type ResourceKind } from '../kinds';
import { block, nameObjects, tsLiteral, tsString } from './program-text';
import { objectsOf, readZoneSnapshot, type ZoneSnapshot } from './zone-snapshot';
import { EXPORTS, isFieldTable, type Block, type FieldTableExport, type VariableOf, type WireObject } from './export-kinds';

export { block, slug, tsLiteral, tsString } from './program-text';
export { migrationModeOf, readZoneSnapshot, standaloneFilterIds, type ZoneSnapshot } from './zone-snapshot';
export type { Block } from './export-kinds';

/** Options of the program text. */
export interface RenderOptions {
  /** The module the resources are imported from; default `pulumi-zoneguard`. */
  packageName?: string;
}

/** `FirewallRule` as a resource name (`firewall-rule`) and a variable (`firewallRule`). */
const kindNames = (kind: string) => ({
  name: kind.replace(/(?<=.)[A-Z]/g, (letter) => `-${letter}`).toLowerCase(),
  variable: kind.charAt(0).toLowerCase() + kind.slice(1),
});

/**
 * A kind declared from its field table alone, in the words of the registry: after the sections of EXPORTS, in registry
 * order, named after the kind, the inputs its field table sends in its order, a comment of its noun and id.
 */
function plainExport(kind: ResourceKind): FieldTableExport {
  const { identity, fields } = declarationOf(kind) as KindDeclaration;
  const noun = identity.noun.charAt(0).toUpperCase() + identity.noun.slice(1);
  return {
    section: RESOURCE_KINDS.length + RESOURCE_KINDS.indexOf(kind),
    names: kindNames(kind),
    order: fields
      .filter((field) => field.wire !== '' && field.wire !== 'zone_id' && (field.change === 'update' || field.change === 'replace'))
      .map((field) => field.input),
    comment: (object, snapshot) => [`${noun} ${identity.scope === 'zone' ? snapshot.zoneId : object.id}.`],
  };
}

/** The resource name and variable of each object, by its id. */
type Names = ReadonlyMap<string, { name: string; variable: string }>;

const byId = <T extends { id: string }>(objects: readonly T[]) => [...objects].sort((a, b) => compareText(a.id, b.id));

/** Names for objects, unique and stable (nameObjects), in id order. */
function namesOf(objects: readonly WireObject[], names: FieldTableExport['names']): Names {
  return new Map(nameObjects(byId(objects), names.name, names.variable).map(({ object, name, variable }) => [object.id, { name, variable }]));
}

/** A value read from the wire as a literal; absent, null, or empty for a quiet input: left out (undefined). */
function literal(value: unknown, quiet: boolean): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (quiet && (value === '' || (Array.isArray(value) && value.length === 0))) return undefined;
  return tsLiteral(value, 2);
}

/**
 * The blocks of a kind declared from its field table: each object of the snapshot the kind holds (objectsOf), with
 * its adopt input for a kind of many objects and the inputs `how` declares, read at their wire names. `how` defaults to
 * the registry's own words (plainExport); `named`, the names of every declared object by type, to the kind's objects
 * named alone. Pure.
 */
export function fieldTableBlocks(
  kind: ResourceKind,
  snapshot: ZoneSnapshot,
  how: FieldTableExport = plainExport(kind),
  named?: ReadonlyMap<ObjectType, Names>,
): Block[] {
  const { identity, fields } = declarationOf(kind) as KindDeclaration;
  const objects = objectsOf(kind, snapshot) as WireObject[];
  const wireOf = new Map(fields.map((field) => [field.input, field.wire]));
  const variableOf: VariableOf = (type, id) => named?.get(type)?.get(id)?.variable;
  const inputs = (object: WireObject): [string, string | undefined][] =>
    how.order.map((input) => {
      const value = how.values?.[input];
      return [input, value ? value(object, variableOf) : literal(wireValue(object, wireOf.get(input) ?? ''), how.quiet?.includes(input) === true)];
    });
  const blockOf = (id: string, variable: string, name: string, adopt: [string, string][], object: WireObject): Block => ({
    kind,
    section: how.section,
    id,
    text: block(kind, variable, name, [['zoneId', 'zoneId'], ...adopt, ...inputs(object)], how.comment(object, snapshot)),
  });
  if (identity.scope === 'zone') return objects.map((object) => blockOf('', how.names.variable, how.names.name, [], object));
  const names = named?.get(identity.object) ?? namesOf(objects, how.names);
  return byId(objects).map((object) => {
    const { name, variable } = names.get(object.id)!;
    return blockOf(object.id, variable, name, [[identity.adoptInput ?? 'id', tsString(object.id)]], object);
  });
}

/**
 * The names of the objects the kinds of many objects declare from their field tables, per object type: two kinds of
 * one type (both firewall rule kinds) are named together, so no two declarations share a name or a variable.
 */
function namesByType(snapshot: ZoneSnapshot): Map<ObjectType, Names> {
  const byType = new Map<ObjectType, { names: FieldTableExport['names']; objects: WireObject[] }>();
  for (const kind of RESOURCE_KINDS) {
    const how = EXPORTS[kind] as (typeof EXPORTS)[ResourceKind];
    const { identity } = declarationOf(kind) as KindDeclaration;
    if (!isFieldTable(how) || identity.scope === 'zone') continue;
    const entry = byType.get(identity.object) ?? { names: how.names, objects: [] };
    entry.objects.push(...(objectsOf(kind, snapshot) as WireObject[]));
    byType.set(identity.object, entry);
  }
  return new Map([...byType].map(([type, { names, objects }]) => [type, namesOf(objects, names)]));
}

/** The blocks a kind declares: from its field table in the words EXPORTS gives, or by its own program. */
function blocksOf(kind: ResourceKind, snapshot: ZoneSnapshot, named: ReadonlyMap<ObjectType, Names>): Block[] {
  const how = EXPORTS[kind] as (typeof EXPORTS)[ResourceKind];
  if (isFieldTable(how)) return fieldTableBlocks(kind, snapshot, how, named);
  return how.program(snapshot).map((declared) => ({ kind, section: how.section, ...declared }));
}

/** An object's free texts without the owner marker at the end of one (docs/ownership.md). */
function unmarked<T extends { id: string; ref?: string | undefined; description?: string | undefined }>(object: T, markers: Map<string, string>): T {
  const texts: Partial<Record<'ref' | 'description', string>> = {};
  for (const field of ['ref', 'description'] as const) {
    const { own, marker } = splitMarked(object[field]);
    if (marker === undefined) continue;
    texts[field] = own;
    markers.set(object.id, marker);
  }
  return { ...object, ...texts };
}

/**
 * The snapshot with the owner markers taken out of the refs and descriptions they end, so the program declares the
 * user's own texts, and the marker each marked object carried, by its id. Pure.
 */
export function withoutMarkers(snapshot: ZoneSnapshot): { snapshot: ZoneSnapshot; markers: Map<string, string> } {
  const markers = new Map<string, string>();
  return {
    snapshot: {
      ...snapshot,
      cspPolicies: snapshot.cspPolicies.map((policy) => unmarked(policy, markers)),
      firewallRules: snapshot.firewallRules.map((rule) => ({ ...unmarked(rule, markers), filter: unmarked(rule.filter, markers) })),
      filters: snapshot.filters.map((filter) => unmarked(filter, markers)),
    },
    markers,
  };
}

/** A block of an object another owner marked, with a comment saying that its adoption needs `takeOver`. */
function noteMarker(block: Block, markers: ReadonlyMap<string, string>): Block {
  const marker = markers.get(block.id);
  if (marker === undefined) return block;
  const note = `// Marked ${marker} by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).\n`;
  const at = block.text.indexOf('export const ');
  return { ...block, text: block.text.slice(0, at) + note + block.text.slice(at) };
}

/**
 * The Pulumi program (TypeScript) declaring a zone's page security settings, CSP policies, firewall rules and
 * filters, and its WAF migration and managed rules once it migrated, exactly as the snapshot holds them, each with
 * its adoption input (`adoptPolicyId`, `adoptFilterId`, `adoptRuleId`), so that the first `pulumi up` takes them
 * over instead of creating new ones. A filter shared by several rules, or by none, is a FirewallFilter its rules
 * reference (standaloneFilterIds). Every kind of the registry is declared, each object by one kind (EXPORTS,
 * objectsOf). Pure and deterministic: objects are sorted by id, and nothing varies from run to run (no date).
 */
export function renderPulumiProgram(zone: ZoneSnapshot, options: RenderOptions = {}): string {
  const { snapshot, markers } = withoutMarkers(zone);
  const packageName = options.packageName ?? 'pulumi-zoneguard';
  const named = namesByType(snapshot);
  const blocks = RESOURCE_KINDS.flatMap((kind) => blocksOf(kind, snapshot, named))
    .map((block) => noteMarker(block, markers))
    .sort((a, b) => a.section - b.section || compareText(a.id, b.id));
  const imports = [...new Set(blocks.map((b) => b.kind))].sort(compareText);
  const header = [
    `// Page security of zone ${snapshot.zoneId}, generated by \`zoneguard export\`.`,
    '// Every resource declares what the zone holds now and adopts the existing object (the settings, and each',
    '// policy and rule by id), so the first `pulumi up` takes them over without creating anything. Review the',
    '// declarations, then edit them like any other code: later runs update the zone to match.',
    `import { ${imports.join(', ')} } from ${tsString(packageName)};`,
    '',
    `const zoneId = ${tsString(snapshot.zoneId)};`,
  ].join('\n');
  return `${[header, ...blocks.map((b) => b.text)].join('\n\n')}\n`;
}

/** Reads the zone and renders its program. */
export async function exportZoneProgram(
  args: { client: ZoneGuardClient; zoneId: string } & RenderOptions,
): Promise<{ program: string; snapshot: ZoneSnapshot }> {
  const snapshot = await readZoneSnapshot(args);
  return { program: renderPulumiProgram(snapshot, args), snapshot };
}
