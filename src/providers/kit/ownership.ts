import type { KindDeclaration, ObjectType } from '../../kinds';
import { MARKER_KEY, NAME_KEY, OWNER_ID_KEY, OWNER_KEY, type ResourceKind } from './closure';
import { PREVIEW_UNKNOWN } from '../../unknown';
import { ProviderError, type Implementation } from './implementation';

/**
 * How a resource came to hold an object in this provider process: made it, adopted it, took back its own leftover
 * (docs/ownership.md#leftovers), or has it in its state.
 */
export type Hold = 'created' | 'adopted' | 'taken' | 'held';

/**
 * Who holds an object: the kind and logical name of the resource (undefined for state written before names were
 * kept), and its owner marker (src/kinds/marker.ts: its full identity, parent chain included) when the program gave it.
 */
export interface Holder {
  kind: ResourceKind;
  name: string | undefined;
  owner?: string | undefined;
  how: Hold;
}

/** Who a resource is, as the guard compares it: its kind, logical name and owner marker. */
export type Who = Pick<Holder, 'kind' | 'name' | 'owner'>;

/** What a kind tells the ownership guard about its objects. */
export interface OwnershipSpec {
  /**
   * The service object a resource of the kind holds (src/kinds): holders are kept by object and id, so two kinds
   * holding one object (a rule adopted by a FirewallRule while a FirewallRuleWithFilter holds it) are seen.
   */
  object: ObjectType;
  /** An object the resource owns besides its own, by the output that holds its id (a single-call rule's filter). */
  owns?: { object: ObjectType; output: string };
  /** What the object is called in messages: `policy`, `firewall rule`, `page security settings of zone`. */
  noun: string;
  /** The id a create takes over rather than makes (an adopt…Id, or the zone for per-zone objects). */
  adoptedId(inputs: Record<string, unknown>): string | undefined;
  /** The input that names it, for the message; undefined when the kind always takes over (one per zone). */
  adoptInput?: string;
}

/**
 * The guard's view of a kind, from its declaration: a per-zone kind's create always takes the zone's object over,
 * so it is an adoption of the zone id; another kind adopts only through its adopt input.
 */
export function ownershipSpec(declaration: KindDeclaration): OwnershipSpec {
  const { object, owns, noun, scope, adoptInput } = declaration.identity;
  const key = scope === 'zone' ? 'zoneId' : adoptInput;
  return {
    object,
    ...(owns ? { owns } : {}),
    noun,
    adoptedId: (inputs) => (key !== undefined && typeof inputs[key] === 'string' ? inputs[key] : undefined),
    ...(scope === 'object' && adoptInput !== undefined ? { adoptInput } : {}),
  };
}

/** `CspPolicy 'login'`, or the kind alone when the name was not recorded. */
export function describeHolder(kind: ResourceKind, name: string | undefined): string {
  return name === undefined ? `a ${kind} whose name is not recorded` : `${kind} '${name}'`;
}

const howHeld = (holder: Holder) => (holder.how === 'held' ? 'in its state' : `${holder.how} in this run`);

/**
 * A holder other than the resource itself: another owner marker (two children named alike under two components are
 * two resources), or, where either has none (state or tests from before markers), another kind or name.
 */
function isOther(me: Who, holder: Holder | undefined): holder is Holder {
  if (holder === undefined) return false;
  if (holder.owner !== undefined && me.owner !== undefined) return holder.owner !== me.owner;
  return holder.kind !== me.kind || holder.name !== me.name;
}

/**
 * Why a create may not take over `id`: another resource of this deployment holds it. Undefined when it may. Pure.
 * Two resources bound to one object means the delete of either removes what the other still holds.
 */
export function adoptionRefusal(who: Who, id: string, holder: Holder | undefined, spec: OwnershipSpec): string | undefined {
  if (!isOther(who, holder)) return undefined;
  const { kind, name } = who;
  const me = describeHolder(kind, name);
  // Same kind and name, another owner marker: a resource of that name under another parent (a component).
  const namesake = holder.kind === kind && holder.name === name;
  const other = namesake ? `another ${describeHolder(holder.kind, holder.name)} (under another parent)` : describeHolder(holder.kind, holder.name);
  const what = `${spec.noun} ${id}`;
  const rename =
    holder.name === undefined || namesake
      ? ''
      : ` If ${me} is ${other} renamed, declare it with the resource option aliases: [{ name: '${holder.name}' }]${spec.adoptInput ? ` and without ${spec.adoptInput}` : ''}.`;
  const own = spec.adoptInput ? ` Otherwise remove ${spec.adoptInput} to create an object of its own.` : ` Otherwise declare only one of them.`;
  return `${me}: refused before any change: ${other} of this deployment holds ${what} (${howHeld(holder)}); two resources must not hold one object, or the delete of one removes what the other holds.${rename}${own}`;
}

/**
 * Whether the resource itself took `holder`'s object back in this run, as its own leftover: the engine then deletes it
 * only as an entry its state kept to delete, the object an earlier run's replacement left (docs/ownership.md#leftovers).
 */
const tookBack = (who: Who, holder: Holder) => holder.how === 'taken' && !isOther(who, holder);

/**
 * Why a delete of `id` must not happen: a resource of this deployment adopted it in this run (whoever it is: a
 * resource renamed with `aliases` keeps its old name and marker in the state, so the one that adopted its object
 * under that old name looks like itself; no run adopts and deletes one object by one resource), or another resource
 * created or holds it (the adopt-and-remove of a rename
 * without `aliases`). Undefined when it may. Pure.
 */
export function deleteSkip(who: Who, id: string, holder: Holder | undefined, spec: OwnershipSpec): string | undefined {
  // A per-zone kind's create always takes the zone's object over: only an adopt input makes an adoption of its own.
  const adoptedThisRun = holder?.how === 'adopted' && spec.adoptInput !== undefined;
  if (holder === undefined || (!adoptedThisRun && !isOther(who, holder) && !tookBack(who, holder))) return undefined;
  const { kind, name } = who;
  if (tookBack(who, holder)) {
    return (
      `zoneguard: ${describeHolder(kind, name)}: not deleting ${spec.noun} ${id}: the state kept it to delete (an earlier run's replacement of it failed ` +
      `or was interrupted before its delete), and this run's create took it back as the declared one (docs/ownership.md#leftovers); the entry leaves the state and the object stays`
    );
  }
  return (
    `zoneguard: ${describeHolder(kind, name)}: not deleting ${spec.noun} ${id}: ${describeHolder(holder.kind, holder.name)} holds it (${howHeld(holder)}); ` +
    `${describeHolder(kind, name)} leaves the state and the object stays. Next time use the resource option aliases for a rename`
  );
}

// The objects each resource holds in this provider process. The engine runs one dynamic provider process per
// deployment for every zoneguard resource, so this sees every create, adoption and delete of one `up`.
const holders = new Map<string, Holder>();
const keyOf = (object: ObjectType, id: string) => `${object}:${id}`;

/** The logical name a resource passed in, if any. */
export function nameOf(props: Record<string, unknown> | undefined): string | undefined {
  const name = props?.[NAME_KEY];
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** A value the program passed in, when known: not empty, and not the engine's placeholder of a preview (a new stack's owner id is drawn by its first up). */
const known = (value: unknown) => (typeof value === 'string' && value !== '' && value !== PREVIEW_UNKNOWN ? value : undefined);

/**
 * The owner marker a resource passed in (src/resources/kit.ts), if known. Outputs leave it out where it is the marker
 * they record as written (`named`, below): in those, that one. No state records a marker without the owner beside it
 * but those (both came in one change), so this reads every state as before.
 */
export function ownerOf(props: Record<string, unknown> | undefined): string | undefined {
  return known(props?.[OWNER_KEY]) ?? known(props?.[MARKER_KEY]);
}

/**
 * The stack's owner id a resource passed in (src/resources/stack-owner.ts) or its state recorded: known, the
 * placeholder of a preview that draws it, or undefined for a state from before owner ids.
 */
export function ownerIdOf(props: Record<string, unknown> | undefined): string | undefined {
  const id = props?.[OWNER_ID_KEY];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Who the resource of `props` (then `fallback`, the old ones) is. */
const whoOf = (kind: ResourceKind, props: Record<string, unknown> | undefined, fallback?: Record<string, unknown>): Who => ({
  kind,
  name: nameOf(props) ?? nameOf(fallback),
  owner: ownerOf(props) ?? ownerOf(fallback),
});

/**
 * The outputs with the resource's name, owner marker and the stack's owner id kept, so a delete (which sees only the
 * outputs) knows who it is, and a later diff knows the marker was made from an owner id (kit/marker.ts). The owner
 * marker is left out where it is the marker the outputs record as written (MARKER_KEY, the same text: 35 bytes of
 * every state entry; `ownerOf` reads it there), unless `recorded` (a read's old outputs) kept it: a refresh records
 * a resource as its state held it.
 */
const named = <T extends Record<string, unknown> | undefined>(props: T, who: Who, ownerId: string | undefined, recorded?: Record<string, unknown>): T => {
  if (props === undefined) return props;
  const ownerKept = who.owner !== undefined && (props[MARKER_KEY] !== who.owner || known(recorded?.[OWNER_KEY]) !== undefined);
  return {
    ...props,
    ...(who.name === undefined ? {} : { [NAME_KEY]: who.name }),
    ...(ownerKept ? { [OWNER_KEY]: who.owner } : {}),
    ...(known(ownerId) === undefined ? {} : { [OWNER_ID_KEY]: ownerId }),
  };
};

function remember(object: ObjectType, who: Who, id: string): void {
  if (id !== '' && !holders.has(keyOf(object, id))) holders.set(keyOf(object, id), { ...who, how: 'held' });
}

/** The objects a replacement of this run replaces (their resource's diff asked for one): its create must not take them. */
const replaced = new Set<string>();

/** The id of the object a resource owns besides its own (its outputs' `owns.output`), if any. */
function ownedId(spec: OwnershipSpec, outs: Record<string, unknown> | undefined): string | undefined {
  const id = spec.owns ? outs?.[spec.owns.output] : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The implementation with the ownership guard around it: a create that takes over an object another resource of
 * this deployment holds is refused before any call; a delete of an object another resource holds is skipped, with
 * one line naming both; every object a resource creates, adopts or has in its state is recorded for that.
 */
export function withOwnership(kind: ResourceKind, impl: Implementation, spec: OwnershipSpec): Implementation {
  return {
    ...impl,

    async diff(id, olds, news) {
      const who = whoOf(kind, news, olds);
      remember(spec.object, who, id);
      const owned = ownedId(spec, olds);
      if (owned) remember(spec.owns!.object, who, owned);
      const result = await impl.diff(id, olds, news);
      if ((result.replaces ?? []).length > 0) replaced.add(keyOf(spec.object, id));
      return result;
    },

    async create(inputs) {
      const who = whoOf(kind, inputs);
      const taken = spec.adoptedId(inputs);
      if (taken !== undefined) {
        const refusal = adoptionRefusal(who, taken, holders.get(keyOf(spec.object, taken)), spec);
        if (refusal) throw new ProviderError(refusal);
        // Reserved before the first await, so a second adoption of the same id in the same run sees it.
        holders.set(keyOf(spec.object, taken), { ...who, how: 'adopted' });
      }
      try {
        const result = await impl.create(inputs);
        const prior = holders.get(keyOf(spec.object, result.id));
        const how = taken === result.id ? 'adopted' : prior?.how === 'taken' && !isOther(who, prior) ? 'taken' : 'created';
        holders.set(keyOf(spec.object, result.id), { ...who, how });
        // What it owns besides (a single-call rule's filter) is held too: another resource's delete must leave it.
        const owned = ownedId(spec, result.outs);
        if (owned) holders.set(keyOf(spec.owns!.object, owned), { ...who, how });
        return { ...result, outs: named(result.outs, who, ownerIdOf(inputs)) };
      } catch (error) {
        if (taken !== undefined) holders.delete(keyOf(spec.object, taken));
        throw error;
      }
    },

    async read(id, props) {
      const who = whoOf(kind, props);
      const result = await impl.read(id, props);
      if (result.id) remember(spec.object, who, result.id);
      return { ...result, props: named(result.props, who, ownerIdOf(props), props), inputs: named(result.inputs, who, ownerIdOf(props)) };
    },

    async update(id, olds, news) {
      const who = whoOf(kind, news, olds);
      remember(spec.object, who, id);
      const result = await impl.update(id, olds, news);
      return { ...result, outs: named(result.outs, who, ownerIdOf(news)) };
    },

    async delete(id, props) {
      const skip = deleteSkip(whoOf(kind, props), id, holders.get(keyOf(spec.object, id)), spec);
      if (skip) {
        console.error(skip);
        return;
      }
      await impl.delete(id, props);
      holders.delete(keyOf(spec.object, id));
    },
  };
}

/**
 * The other resource of this deployment that holds `object` `id`, if any: for a kind whose delete removes an object
 * it owns besides its own (a single-call rule's filter), which must stay when another resource took it over.
 */
export function heldByAnother(object: ObjectType, id: string, kind: ResourceKind, props: Record<string, unknown>): Holder | undefined {
  const holder = holders.get(keyOf(object, id));
  return isOther(whoOf(kind, props), holder) ? holder : undefined;
}

/**
 * Whether a create of the resource of `props` must leave `object` `id`, which carries its marker, alone: another
 * resource of this deployment holds it, or this run made or took it, or it is the object the resource's replacement
 * replaces (its diff asked for one, before this create). Another object the resource's own state holds (seen by a
 * refresh) is an entry its state keeps only to delete (an earlier run's replacement whose delete did not run): its own
 * to take back ({@link deleteSkip} then leaves it).
 */
export function heldAgainst(object: ObjectType, id: string, kind: ResourceKind, props: Record<string, unknown>): boolean {
  const holder = holders.get(keyOf(object, id));
  if (holder === undefined) return false;
  return holder.how !== 'held' || replaced.has(keyOf(object, id)) || isOther(whoOf(kind, props), holder);
}

/**
 * Records that the create of the resource of `props` takes `object` `id` back, its own leftover (kit/marker.ts): a
 * delete of it later in the run is of an entry its state kept to delete, and leaves it ({@link deleteSkip}).
 */
export function noteTakenBack(object: ObjectType, id: string, kind: ResourceKind, props: Record<string, unknown>): void {
  holders.set(keyOf(object, id), { ...whoOf(kind, props), how: 'taken' });
}

/** For tests: forget every holder, as a new provider process would. */
export function resetOwnership(): void {
  holders.clear();
  replaced.clear();
}
