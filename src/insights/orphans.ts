import { z } from 'zod';
import { KINDS, declarationOf, kindOfType, wireValue, type KindDeclaration, type ObjectType, type ResourceKind } from '../kinds';
import { MARKER_KEY, OWNER_KEY } from '../kinds/marker';
import { type CspPolicyWire, type Filter, type FirewallRuleWire, type RulesetRule } from '../schemas';
import { splitMarked } from '../schemas/owner-marker';
import { printable } from '../schemas/text';

// Objects of a zone that no resource of the given stacks holds, with what their owner marker says: what an
// interrupted `pulumi up` can leave behind (docs/ownership.md). Pure: the stack exports and the zone's objects are
// passed in. Every per-kind part comes from the kind registry (src/kinds): which objects a kind holds, by which
// outputs, where their marker is written, and how a pending create of it is recognised.

const ResourceStateSchema = z.object({
  urn: z.string(),
  type: z.string(),
  id: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
type ResourceState = z.infer<typeof ResourceStateSchema>;

/** What `pulumi stack export` writes, as far as ownership needs it: the resources and the pending operations. */
export const StackExportSchema = z.object({
  deployment: z.object({
    resources: z.array(ResourceStateSchema).nullish(),
    pending_operations: z.array(z.object({ resource: ResourceStateSchema, type: z.string() })).nullish(),
  }),
});
export type StackExport = z.infer<typeof StackExportSchema>;

/** The objects of a zone `orphans` reads: those a zone holds many of, each with the id the service assigned. */
export type ListedObject = Extract<ObjectType, 'cspPolicy' | 'firewallRule' | 'filter' | 'rulesetRule'>;

/** A rule of a custom or rate limiting entry point, with the phase and the ruleset that hold it (a delete names the ruleset). */
export type PhaseRuleObject = RulesetRule & { id: string; phase: string; rulesetId: string };

/** What a zone holds of each listed object type, keyed by the type. */
export interface ZoneObjects {
  cspPolicy: readonly CspPolicyWire[];
  firewallRule: readonly FirewallRuleWire[];
  filter: readonly Filter[];
  /** The rules of the zone's custom and rate limiting entry points. */
  rulesetRule: readonly PhaseRuleObject[];
}
type Listed = ZoneObjects[ListedObject][number];

const manyPerZone = KINDS.filter((declaration) => declaration.identity.scope === 'object') as readonly KindDeclaration[];
/** The first kind of the registry that holds objects of `object`: nouns and marker places are the object's, whichever kind holds it. */
const firstHolding = (object: ListedObject) => manyPerZone.find((declaration) => declaration.identity.object === object)!.identity;

/** What the messages call each listed object (a ruleset rule is a CustomRule's or a RateLimitRule's: its phase says which). */
export const OBJECT_NOUN: Record<ListedObject, string> = { cspPolicy: 'policy', firewallRule: 'firewall rule', filter: 'filter', rulesetRule: 'ruleset rule' };
const LISTED = Object.keys(OBJECT_NOUN) as ListedObject[];

/** The field of each listed object that carries its owner marker, from the registry (src/kinds/marker.ts). */
const MARKED_FIELD = Object.fromEntries(LISTED.map((object) => [object, firstHolding(object).marker])) as Record<ListedObject, string>;

/** A create the engine started and never recorded the end of (the CLI was killed): its URN, kind, declared inputs and the marker it writes. */
export interface PendingCreate {
  urn: string;
  kind: ResourceKind;
  inputs: Record<string, unknown>;
  /** The owner marker the create writes on its object (the resource's `__zoneguardOwner` input), when the export records it. */
  marker?: string;
}

/** An object of the zone no resource of the stacks holds, and what its owner marker says. */
export interface Orphan {
  object: ListedObject;
  id: string;
  /** One line that says what the object is, printable (src/schemas/text.ts): a policy's description and expression, a rule's action and expression. */
  summary: string;
  /** Its owner marker (docs/ownership.md), or undefined for an unmarked object (made by hand, by another tool, or before markers). */
  marker?: string;
  /**
   * The URN of the resource of the given stacks that recorded the marker (it holds another object: this one's create
   * lost its answer), or undefined: unmarked, or marked by another owner, which is never deleted.
   */
  markedBy?: string;
  /** The pending creates it matches: by marker where the export records the create's, else by the inputs it sent. */
  pendingOf: PendingCreate[];
  /** A rule's filter, deleted with it: set only when no resource holds that filter and no other owner marked it. */
  filterId?: string;
  /** Why a rule's filter stays when the rule is deleted: held by a resource of the stacks, or marked by another owner. */
  filterStays?: string;
  /** A ruleset rule's entry point: where deleting it deletes it from. */
  rulesetId?: string;
}

/** Whether `orphans` may delete the object: never one marked by an owner no given export records. Pure. */
export const deletable = (orphan: Pick<Orphan, 'marker' | 'markedBy'>): boolean => orphan.marker === undefined || orphan.markedBy !== undefined;

/**
 * A secret value as `pulumi stack export` writes it without `--show-secrets`: the engine's signature key beside the
 * ciphertext. Its plain value cannot be known here.
 */
const isSecret = (value: unknown) => typeof value === 'object' && value !== null && '4dabf18193072939515e22adb298388d' in value;

/** Whether a resource belongs to `zoneId`; a secret zone id might be any zone, so it counts as this one. */
function inZone(resource: ResourceState, zoneId: string): boolean {
  const values = [resource.outputs?.zoneId, resource.inputs?.zoneId];
  return values.includes(zoneId) || values.some(isSecret);
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** What stack exports hold in `zoneId`: the ids their resources hold, the owner markers they record, and their pending creates. */
export interface Ownership {
  held: Set<string>;
  /** The URN of the resource that holds each id of `held` (a pending create's adoption has none). */
  holders: Map<string, string>;
  /** Each owner marker a resource records (written, or to write: the owner input) or a pending operation writes, with the resource's URN. */
  markers: Map<string, string>;
  pending: PendingCreate[];
  /** How many resources of zoneguard in the zone the exports hold (pending operations included). */
  resources: number;
}

/** Adds what one resource of the zone records to `ownership`: its id, the id of what it owns, its markers. */
function record(ownership: Ownership, resource: ResourceState, kind: ResourceKind): void {
  ownership.resources += 1;
  for (const marker of [text(resource.outputs?.[MARKER_KEY]), text(resource.inputs?.[OWNER_KEY])]) if (marker) ownership.markers.set(marker, resource.urn);
  const owned = declarationOf(kind).identity.owns;
  const ownedId = owned ? text(resource.outputs?.[owned.output]) : undefined;
  for (const id of [text(resource.id), ownedId]) {
    if (id === undefined) continue;
    ownership.held.add(id);
    ownership.holders.set(id, resource.urn);
  }
}

/**
 * A pending create: an adoption holds the object it names (it made nothing that could be left behind), a create of
 * many objects per zone is one to match; a per-zone kind's create takes the zone's object over and makes nothing.
 */
function recordPending(ownership: Ownership, resource: ResourceState & { inputs: Record<string, unknown> }, kind: ResourceKind): void {
  const { identity } = declarationOf(kind) as KindDeclaration;
  if (identity.scope !== 'object') return;
  const adopted = identity.adoptInput ? text(resource.inputs[identity.adoptInput]) : undefined;
  if (adopted) ownership.held.add(adopted);
  else {
    ownership.pending.push({
      urn: resource.urn,
      kind,
      inputs: resource.inputs,
      ...(text(resource.inputs[OWNER_KEY]) ? { marker: text(resource.inputs[OWNER_KEY]) } : {}),
    });
  }
}

/** The ids the stacks' resources hold in `zoneId`, the markers they record there, and their pending creates. Pure. */
export function ownershipOf(exports: readonly StackExport[], zoneId: string): Ownership {
  const ownership: Ownership = { held: new Set(), holders: new Map(), markers: new Map(), pending: [], resources: 0 };
  for (const { deployment } of exports) {
    for (const resource of deployment.resources ?? []) {
      const kind = kindOfType(resource.type);
      if (kind !== undefined && inZone(resource, zoneId)) record(ownership, resource, kind);
    }
    for (const operation of deployment.pending_operations ?? []) {
      const { resource } = operation;
      const kind = kindOfType(resource.type);
      if (kind === undefined || !resource.inputs || !inZone(resource, zoneId)) continue;
      record(ownership, { ...resource, id: undefined }, kind);
      if (operation.type === 'creating') recordPending(ownership, { ...resource, inputs: resource.inputs }, kind);
    }
  }
  return ownership;
}

/**
 * How a pending create of `kind` is recognised in what the service holds, from its declaration: the object type it
 * makes (in its phase, for a ruleset rule), and whether an object holds the inputs its create sent (`createdWith`, under their wire names). Null for the
 * per-zone kinds, whose create makes nothing. Pure.
 */
function pendingMatch(kind: ResourceKind): { object: ListedObject; matches(object: Listed, inputs: Record<string, unknown>): boolean } | null {
  const { identity, fields, createdWith } = declarationOf(kind) as KindDeclaration;
  if (identity.scope !== 'object' || !createdWith) return null;
  const compared = createdWith.map((input) => ({ input, wire: fields.find((field) => field.input === input)?.wire ?? input }));
  return {
    object: identity.object as ListedObject,
    // Two kinds make ruleset rules: a rule of the other kind's phase is never what this create made.
    matches: (object, inputs) =>
      (identity.phase === undefined || (object as { phase?: string }).phase === identity.phase) &&
      compared.every(({ input, wire }) => wireValue(object, wire) === inputs[input]),
  };
}

const PENDING_MATCH = Object.fromEntries(KINDS.map((declaration) => [declaration.kind, pendingMatch(declaration.kind)])) as Record<
  ResourceKind,
  ReturnType<typeof pendingMatch>
>;

/** Whether `object` (of the type the kind makes) is what a pending create of `kind` declared, by the inputs its create sent. */
export function matchesPending(kind: ResourceKind, object: Listed, inputs: Record<string, unknown>): boolean {
  return PENDING_MATCH[kind]?.matches(object, inputs) ?? false;
}

/**
 * Whether `found`, of type `object` and marked `marker`, is what `create` made: by its marker when the export records
 * the create's (the create wrote it), else, for an unmarked object only, by the inputs the create sent. Pure.
 */
function madeBy(create: PendingCreate, object: ListedObject, found: Listed, marker: string | undefined): boolean {
  if (PENDING_MATCH[create.kind]?.object !== object) return false;
  if (create.marker !== undefined) return marker === create.marker;
  return marker === undefined && matchesPending(create.kind, found, create.inputs);
}

/** The kinds that make objects of `object`, from the registry: the adopt inputs a listed orphan can be taken over with. */
export function kindsMaking(object: ListedObject): ResourceKind[] {
  return KINDS.filter((declaration) => PENDING_MATCH[declaration.kind]?.object === object).map((declaration) => declaration.kind);
}

/** The owner marker of `found`, an object of type `object`, from the field the registry says carries it. */
export const markerOf = (object: ListedObject, found: Listed): string | undefined => splitMarked(text(wireValue(found, MARKED_FIELD[object])) ?? '').marker;

const own = (value: string | undefined) => splitMarked(value).own;
const summaries: { [O in ListedObject]: (object: ZoneObjects[O][number]) => string } = {
  cspPolicy: (p) => `${JSON.stringify(own(p.description))} ${p.action} when ${p.expression}`,
  firewallRule: (r) => `${r.action} when ${r.filter.expression}`,
  filter: (f) => `${JSON.stringify(f.description ?? '')} ${f.expression}`,
  rulesetRule: (r) => `${r.phase}: ${r.action} when ${r.expression}`,
};

/** What a rule's filter is to its deletion: deleted with the rule, or why it stays. */
function filterFate(filterId: string, held: boolean, zone: ZoneObjects, markers: Ownership['markers']): Pick<Orphan, 'filterId' | 'filterStays'> {
  if (held) return { filterStays: `its filter ${filterId} stays: a resource of the given stacks holds it` };
  const filter = zone.filter.find((f) => f.id === filterId);
  const marker = filter ? markerOf('filter', filter) : undefined;
  if (marker !== undefined && !markers.has(marker)) return { filterStays: `its filter ${filterId} stays: marked ${marker} by another owner` };
  return { filterId };
}

/**
 * The zone's objects of every listed type that `held` does not name, each with its owner marker, the resource of the
 * stacks that recorded it, and the pending creates it matches. A filter whose rule is listed goes with that rule
 * (made with it in one call, or left by it); a filter a held rule uses is held through that rule. Pure.
 */
export function findOrphans(zone: ZoneObjects, ownership: Pick<Ownership, 'held' | 'pending' | 'markers'>): Orphan[] {
  const { held, pending, markers } = ownership;
  const orphan = <O extends ListedObject>(object: O, found: ZoneObjects[O][number], extra: Partial<Orphan> = {}): Orphan => {
    const marker = markerOf(object, found);
    const markedBy = marker === undefined ? undefined : markers.get(marker);
    return {
      object,
      id: found.id,
      summary: printable((summaries[object] as (o: Listed) => string)(found)),
      ...(marker === undefined ? {} : { marker }),
      ...(markedBy === undefined ? {} : { markedBy }),
      pendingOf: pending.filter((create) => madeBy(create, object, found, marker)),
      ...extra,
    };
  };
  const usedByHeld = new Set(zone.firewallRule.filter((r) => held.has(r.id)).map((r) => r.filter.id));
  const rules = zone.firewallRule.filter((r) => !held.has(r.id));
  const withRule = new Set(rules.map((r) => r.filter.id));
  return [
    ...zone.cspPolicy.filter((p) => !held.has(p.id)).map((p) => orphan('cspPolicy', p)),
    ...rules.map((r) => orphan('firewallRule', r, filterFate(r.filter.id, held.has(r.filter.id) || usedByHeld.has(r.filter.id), zone, markers))),
    ...zone.filter.filter((f) => !held.has(f.id) && !usedByHeld.has(f.id) && !withRule.has(f.id)).map((f) => orphan('filter', f)),
    ...zone.rulesetRule.filter((r) => !held.has(r.id)).map((r) => orphan('rulesetRule', r, { rulesetId: r.rulesetId })),
  ];
}

/**
 * The orphans `--delete-pending` may delete: for each pending create, its one match. A pending create matched by
 * several orphans (identical policies of another stack not passed in, made before markers, say) deletes none:
 * `refused` names them.
 */
export function pendingDeletions(orphans: readonly Orphan[], pending: readonly PendingCreate[]): { delete: Orphan[]; refused: string[] } {
  const chosen: Orphan[] = [];
  const refused: string[] = [];
  for (const create of pending) {
    const matches = orphans.filter((o) => o.pendingOf.includes(create));
    if (matches.length === 1) chosen.push(matches[0]!);
    else if (matches.length > 1) {
      refused.push(
        `${create.urn}: ${matches.length} objects match its pending create (${matches.map((m) => m.id).join(', ')}); none deleted. ` +
          'Pass the export of every stack on this zone, or delete the right one with --delete <id>',
      );
    }
  }
  return { delete: chosen, refused };
}

/** What the listing says of an orphan's marker: pending create, marked by a resource of the stacks, by another owner, or unmarked. Pure. */
export function standingText(orphan: Orphan): string {
  if (orphan.pendingOf.length > 0) return `pending create of ${orphan.pendingOf.map((p) => p.urn).join(', ')}`;
  if (orphan.marker === undefined) return 'unmarked';
  if (orphan.markedBy !== undefined) return `marked ${orphan.marker} by ${orphan.markedBy}, which does not hold it`;
  return `marked ${orphan.marker} by another owner: never deleted`;
}

/** The adopt input of a kind, from its declaration, for the printed adoption line. */
export const adoptInputOf = (kind: ResourceKind): string | undefined => declarationOf(kind).identity.adoptInput;
