import { z } from 'zod';
import { KINDS, declarationOf, kindOfType, wireValue, type KindDeclaration, type ObjectType, type ResourceKind } from '../kinds';
import { type CspPolicyWire, type Filter, type FirewallRuleWire, type RulesetRule } from '../schemas';
import { printable } from '../schemas/text';

// Objects of a zone that no resource of the given stacks holds: what an interrupted `pulumi up` can leave behind
// (README, "Who owns what"). Pure: the stack exports and the zone's objects are passed in. Every per-kind part comes
// from the kind registry (src/kinds): which objects a kind holds, by which outputs, and how a pending create of it
// is recognised.

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

/** A rule of a custom or rate limiting entry point, with the phase and the ruleset that hold it. */
export type PhaseRuleObject = RulesetRule & { id: string; phase: string; rulesetId: string };

/** What a zone holds of each listed object type. */
export interface ZoneObjects {
  cspPolicies: readonly CspPolicyWire[];
  firewallRules: readonly FirewallRuleWire[];
  filters: readonly Filter[];
  /** The rules of the zone's custom and rate limiting entry points. */
  rulesetRules: readonly PhaseRuleObject[];
}

/** A create the engine started and never recorded the end of (the CLI was killed): its URN, kind and declared inputs. */
export interface PendingCreate {
  urn: string;
  kind: ResourceKind;
  inputs: Record<string, unknown>;
}

/** An object of the zone no resource of the stacks holds; `pendingOf` lists the pending creates it matches. */
export interface Orphan {
  object: ListedObject;
  id: string;
  /** One line that says what the object is, printable (src/schemas/text.ts): a policy's description and expression, a rule's action and expression. */
  summary: string;
  pendingOf: PendingCreate[];
  /** A rule's filter, when no resource holds it either: deleting the rule deletes it too. */
  filterId?: string;
  /** A ruleset rule's entry point: where deleting it deletes it from. */
  rulesetId?: string;
}

/** What the messages call each listed object. */
export const OBJECT_NOUN: Record<ListedObject, string> = { cspPolicy: 'policy', firewallRule: 'firewall rule', filter: 'filter', rulesetRule: 'ruleset rule' };

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

/** What one stack export holds in `zoneId`: the ids its resources hold (every kind, their owned objects too) and its pending creates. */
export interface Ownership {
  held: Set<string>;
  pending: PendingCreate[];
  /** How many resources of zoneguard in the zone the exports hold (pending creates included). */
  resources: number;
  /** How many resources of zoneguard, in any zone, the exports hold. */
  everywhere: number;
}

/**
 * Whether an export is of another stack than one on `zoneId`: it holds zoneguard resources, none of them there. An
 * export with none at all is a stack whose first `up` recorded nothing (its create was interrupted): it holds nothing,
 * truly. Pure.
 */
export function isOfAnotherZone(ownership: Pick<Ownership, 'resources' | 'everywhere'>): boolean {
  return ownership.resources === 0 && ownership.everywhere > 0;
}

/** The ids the stacks' resources hold in `zoneId`, and their pending creates there. */
export function ownershipOf(exports: readonly StackExport[], zoneId: string): Ownership {
  const ownership: Ownership = { held: new Set(), pending: [], resources: 0, everywhere: 0 };
  for (const { deployment } of exports) {
    for (const resource of deployment.resources ?? []) {
      const kind = kindOfType(resource.type);
      if (kind === undefined) continue;
      ownership.everywhere += 1;
      if (!inZone(resource, zoneId)) continue;
      ownership.resources += 1;
      if (resource.id !== undefined && resource.id !== '') ownership.held.add(resource.id);
      const owned = declarationOf(kind).identity.owns;
      const ownedId = owned ? resource.outputs?.[owned.output] : undefined;
      if (typeof ownedId === 'string' && ownedId !== '') ownership.held.add(ownedId);
    }
    for (const operation of deployment.pending_operations ?? []) {
      const { resource } = operation;
      const kind = kindOfType(resource.type);
      if (operation.type !== 'creating' || kind === undefined || !resource.inputs) continue;
      ownership.everywhere += 1;
      if (!inZone(resource, zoneId)) continue;
      ownership.resources += 1;
      // A per-zone kind's create takes the zone's object over: it makes nothing that could be left behind.
      if (declarationOf(kind).identity.scope === 'object') ownership.pending.push({ urn: resource.urn, kind, inputs: resource.inputs });
    }
  }
  return ownership;
}

type Listed = CspPolicyWire | FirewallRuleWire | Filter | PhaseRuleObject;

/**
 * How a pending create of `kind` is recognised in what the service holds, from its declaration: the object type it
 * makes, and whether an object holds the inputs its create sent (`createdWith`, under their wire names). Null for the
 * per-zone kinds, whose create makes nothing. Pure.
 */
function pendingMatch(kind: ResourceKind): { object: ListedObject; matches(object: Listed, inputs: Record<string, unknown>): boolean } | null {
  const { identity, fields, createdWith } = declarationOf(kind) as KindDeclaration;
  if (identity.scope !== 'object' || !createdWith) return null;
  const compared = createdWith.map((input) => ({ input, wire: fields.find((field) => field.input === input)?.wire ?? input }));
  return {
    object: identity.object as ListedObject,
    matches: (object, inputs) => compared.every(({ input, wire }) => wireValue(object, wire) === inputs[input]),
  };
}

const PENDING_MATCH = Object.fromEntries(KINDS.map((declaration) => [declaration.kind, pendingMatch(declaration.kind)])) as Record<ResourceKind, ReturnType<typeof pendingMatch>>;

/** Whether `object` (of the type the kind makes) is what a pending create of `kind` declared. */
export function matchesPending(kind: ResourceKind, object: Listed, inputs: Record<string, unknown>): boolean {
  return PENDING_MATCH[kind]?.matches(object, inputs) ?? false;
}

/** The kinds that make objects of `object`, from the registry: the adopt inputs a listed orphan can be taken over with. */
export function kindsMaking(object: ListedObject): ResourceKind[] {
  return KINDS.filter((declaration) => PENDING_MATCH[declaration.kind]?.object === object).map((declaration) => declaration.kind);
}

type ObjectOf<O extends ListedObject> = O extends 'cspPolicy' ? CspPolicyWire : O extends 'filter' ? Filter : O extends 'rulesetRule' ? PhaseRuleObject : FirewallRuleWire;

const summaries: { [O in ListedObject]: (object: ObjectOf<O>) => string } = {
  cspPolicy: (p) => `${JSON.stringify(p.description)} ${p.action} when ${p.expression}`,
  firewallRule: (r) => `${r.action} when ${r.filter.expression}`,
  filter: (f) => `${JSON.stringify(f.description ?? '')} ${f.expression}`,
  rulesetRule: (r) => `${r.phase}: ${r.action} when ${r.expression}`,
};

/**
 * The zone's policies, rules, filters and ruleset rules that `held` does not name, each with the pending creates it matches. A
 * filter whose rule is listed goes with that rule (made with it in one call, or left by it); a filter a held rule
 * uses is held through that rule.
 */
export function findOrphans(zone: ZoneObjects, ownership: Pick<Ownership, 'held' | 'pending'>): Orphan[] {
  const { held, pending } = ownership;
  const orphan = <O extends ListedObject>(object: O, found: Listed, extra: Partial<Orphan> = {}): Orphan => ({
    object,
    id: found.id,
    summary: printable((summaries[object] as (o: Listed) => string)(found)),
    pendingOf: pending.filter((p) => PENDING_MATCH[p.kind]?.object === object && PENDING_MATCH[p.kind]!.matches(found, p.inputs)),
    ...extra,
  });
  const usedByHeld = new Set(zone.firewallRules.filter((r) => held.has(r.id)).map((r) => r.filter.id));
  const rules = zone.firewallRules.filter((r) => !held.has(r.id));
  const withRule = new Set(rules.map((r) => r.filter.id));
  return [
    ...zone.cspPolicies.filter((p) => !held.has(p.id)).map((p) => orphan('cspPolicy', p)),
    ...rules.map((r) => orphan('firewallRule', r, held.has(r.filter.id) || usedByHeld.has(r.filter.id) ? {} : { filterId: r.filter.id })),
    ...zone.filters.filter((f) => !held.has(f.id) && !usedByHeld.has(f.id) && !withRule.has(f.id)).map((f) => orphan('filter', f)),
    ...zone.rulesetRules.filter((r) => !held.has(r.id)).map((r) => orphan('rulesetRule', r, { rulesetId: r.rulesetId })),
  ];
}

/**
 * The orphans `--delete-pending` may delete: for each pending create, its one match. A pending create matched by
 * several orphans (identical policies of another stack not passed in, say) deletes none: `refused` names them.
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

/** The adopt input of a kind, from its declaration, for the printed adoption line. */
export const adoptInputOf = (kind: ResourceKind): string | undefined => declarationOf(kind).identity.adoptInput;
