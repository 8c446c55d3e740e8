// The owner marker on the objects of every kind that has a marked field (docs/ownership.md), and the owner-marker
// rule (`otherOwner`), which WafManagedRules applies to its entry point as well. One name per meaning:
// - `ownerMarker` (src/kinds/marker.ts): the marker an identity makes; `ownerOf`: the one the program passed;
// - `markerFor`: the one a resource writes on an object it has not marked yet (the program's, or one of its form);
// - `recordedMarker`: the one its state recorded as written; `heldMarker`: the one it holds its object by (recorded,
//   else the program's); `writtenMarker`: the one an update writes;
// - `markerIn` (src/schemas/owner-marker.ts): the one a wire object carries at the end of its field;
// - `otherOwner`: the one of another owner that makes a write leave the object alone.
import type * as pulumi from '@pulumi/pulumi';
import { diffPlan, label, type KindDeclaration } from '../../kinds';
import { diffFields } from './diff';
import { ownerMarker, standing } from '../../kinds/marker';
import { looksMarked, markerIn, ownRoom, ownRoomProblem, splitMarked, withMarker } from '../../schemas/owner-marker';
import { MARKER_KEY, MOVED_FROM_KEY, type ResourceKind } from './closure';
import { ProviderError, goneMessage, type Implementation, type LiveObject } from './implementation';
import { heldAgainst, nameOf, noteTakenBack, ownerIdOf, ownerOf } from './ownership';
import { TAKEN_FROM_KEY, noteCreatedCustomRule, noteTakenOver } from './move-deletes';
import { assertSealedLive } from './seal';

/**
 * Which of the objects carrying this resource's marker a create takes as its interrupted run's (docs/ownership.md#leftovers):
 * the first one no resource of this deployment holds. An object the state of a resource holds is never one (a
 * replacement's create must not take the object it replaces: the engine's delete of it would then remove the only
 * copy), but for one its own state keeps only to delete (kit/ownership.ts `heldAgainst`: its delete then leaves it). Pure.
 */
export function leftoverOf(carrying: readonly string[], held: (id: string) => boolean): { take?: string; also: string[] } {
  const free = carrying.filter((id) => !held(id));
  return { ...(free[0] === undefined ? {} : { take: free[0] }), also: free.slice(1) };
}

/** The option that lets an adoption take an object marked by another owner (docs/ownership.md#take-over). */
export const TAKE_OVER = 'takeOver';

/**
 * The marker this resource writes on an object it has not marked yet: the program's (src/resources/kit.ts). Where the
 * program's is not known (a new stack's preview, before its first up draws the owner id), one of the same form, so a
 * preview's dry run sends a field of the length the up writes.
 */
export function markerFor(kind: ResourceKind, props: Record<string, unknown>): string {
  return ownerOf(props) ?? ownerMarker({ ownerId: undefined, project: '', stack: '', parent: '', kind, name: nameOf(props) ?? '' });
}

/** The marker the state recorded as written on the object, if any (state from before markers has none). */
export function recordedMarker(props: Record<string, unknown> | undefined): string | undefined {
  const marker = props?.[MARKER_KEY];
  return typeof marker === 'string' && marker !== '' ? marker : undefined;
}

/** The marker a resource holds its object by: the one its state recorded, else the program's ({@link markerFor}). */
export function heldMarker(kind: ResourceKind, props: Record<string, unknown>): string {
  return recordedMarker(props) ?? markerFor(kind, props);
}

/**
 * Whether the next write must put the program's marker on the object (docs/ownership.md#owner-id): the state recorded
 * none (made before markers), or one made before owner ids (no owner id recorded beside it), while the program passes
 * its owner (always, from resource classes of this version; a refresh diffs the state's own inputs, which never asks
 * for a write). A rename with `aliases` keeps the recorded marker: its owner id is recorded. Pure.
 */
export function markerOutdated(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
  if (ownerIdOf(news) === undefined) return recordedMarker(olds) === undefined && ownerOf(news) !== undefined;
  return recordedMarker(olds) === undefined || ownerIdOf(olds) === undefined;
}

/** The marker an update writes: the program's when the state's is outdated ({@link markerOutdated}), else the one the state recorded. Pure. */
export function writtenMarker(kind: ResourceKind, olds: Record<string, unknown>, news: Record<string, unknown>): string {
  const recorded = recordedMarker(olds);
  return recorded === undefined || markerOutdated(olds, news) ? markerFor(kind, news) : recorded;
}

/** Who an object's marker names, for a message: this stack's resources are told apart from the rest by the state only. */
const ownerWords = (marker: string) => `another owner (marker ${marker} in its ref or description; zoneguard orphans names the stack that holds it)`;

/** A write of a resource to an object that may carry another owner's marker. */
export type MarkedWrite = 'adopt' | 'update' | 'delete';

/**
 * The owner-marker rule, for every kind whose objects carry a marker, many per zone or one (docs/ownership.md): the
 * marker of another owner that makes `write` leave the object alone, or undefined when the write may go on. `held` is
 * the marker the resource holds the object by (for a create, the one it writes); an unmarked object is the
 * resource's (made before markers, or the marker removed by hand: the next write puts it back).
 * - adopt: another owner's object is taken only with takeOver (docs/ownership.md#take-over);
 * - update: the marker this write puts (`written`) passes too: an up killed after that write and before its
 *   checkpoint left it on the object (docs/ownership.md#owner-id);
 * - delete: another owner's object stays.
 * Pure.
 */
export function otherOwner(
  write: MarkedWrite,
  live: string | undefined,
  held: string,
  allow: { takeOver?: boolean; written?: string } = {},
): string | undefined {
  if (live === undefined || standing(live, held) !== 'other') return undefined;
  if (write === 'adopt' && allow.takeOver === true) return undefined;
  if (write === 'update' && live === allow.written) return undefined;
  return live;
}

/** Why a create may not adopt an object whose marker is `live` ({@link otherOwner}), or undefined when it may. Pure. */
export function adoptionBlock(what: string, live: string | undefined, mine: string, takeOver: boolean, adoptInput: string): string | undefined {
  const other = otherOwner('adopt', live, mine, { takeOver });
  if (other === undefined) return undefined;
  return (
    `${what}: refused before any change: it is marked as held by ${ownerWords(other)}. If that owner no longer needs it, or ` +
    `this resource replaces it, add ${TAKE_OVER}: true beside ${adoptInput}: the marker moves to this resource and the old ` +
    `owner's delete then leaves the object. Otherwise remove ${adoptInput} to create an object of its own`
  );
}

/**
 * Why an update or delete must not touch the object ({@link otherOwner}: its marker names another owner, it was taken
 * over), or undefined when it may. `recorded`: the marker the resource holds it by; `written`: an update's own. Pure.
 */
export function writeBlock(what: string, verb: 'update' | 'delete', live: string | undefined, recorded: string, written?: string): string | undefined {
  const other = otherOwner(verb, live, recorded, { ...(written === undefined ? {} : { written }) });
  if (other === undefined) return undefined;
  const next =
    verb === 'delete'
      ? 'the object stays, and the resource leaves the state'
      : 'nothing was written. Remove this resource from the program (its delete leaves the object), or take the object back by adoption with takeOver: true';
  return `${what}: not ${verb === 'delete' ? 'deleting' : 'updating'} it: it is marked as held by ${ownerWords(other)}; ${next}`;
}

/**
 * How long an adoption waits after its write before it reads the object again. Two adopters that both read the object
 * before either wrote both pass their check; the later write wins on the service. Each then reads the marker again:
 * the earlier writer finds the other's and fails. The wait lets the other's write land first when the two calls run
 * at different speeds (docs/ownership.md#take-over).
 */
export const ADOPTION_SETTLE_MS = 500;

/**
 * After an adoption's write: reads the object's marker again (`reread`) and fails, naming the marker found, when it is
 * no longer the one this resource wrote: another adopter marked it at the same time and won. Nothing of this resource
 * is then recorded (its create fails), and the object is the winner's.
 */
export async function confirmAdoption(what: string, reread: () => Promise<string | undefined>, written: string | undefined, adoptInput: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ADOPTION_SETTLE_MS));
  const found = await reread();
  if (found === written) return;
  throw new ProviderError(
    `${what}: another adopter marked it at the same time (marker ${found ?? 'none'} found after this resource left ${written ?? 'none'}), and its write came last: ` +
      `the object is that owner's, and this resource holds nothing. Run zoneguard orphans to see who holds it; remove ${adoptInput} to create an object of its own, ` +
      `or add ${TAKE_OVER}: true to take it over`,
  );
}

/**
 * A kind's check result with its marked field's own check: the user's text leaves the marker its room, and does not
 * end in a marker itself. One failure per field, named as every other (Kind.field: ...): a field the kind's check
 * refused already keeps that failure. The kinds' args hold the room themselves (`ownTextSchema`), so their check
 * refuses a longer text first, with this message, before a preview's dry run sends it; the room is checked here too
 * for a kind whose args would not.
 */
function withRoomChecked(
  kind: string,
  field: string,
  fieldMax: number,
  news: Record<string, unknown>,
  result: pulumi.dynamic.CheckResult,
): pulumi.dynamic.CheckResult {
  const own = news?.[field];
  if (typeof own !== 'string') return result;
  const failures = [...(result.failures ?? [])];
  if (failures.some((failure) => failure.property === field)) return result;
  const room = ownRoom(fieldMax);
  if (own.length > room) {
    failures.push({
      property: field,
      reason: `${kind}.${field}: ${ownRoomProblem(fieldMax)}`,
    });
  } else if (looksMarked(own)) {
    failures.push({
      property: field,
      reason: `${kind}.${field}: must not end in a zoneguard owner marker (zg: and 10 hex digits): zoneguard writes it (docs/ownership.md)`,
    });
  }
  return failures.length === (result.failures ?? []).length ? result : { inputs: news, failures };
}

/** Whether an object as the service holds it (its outputs) has the declared value of each field only a replacement changes. Pure. */
export function fitsReplaceFields(object: Record<string, unknown> | undefined, inputs: Record<string, unknown>, replace: readonly string[]): boolean {
  return object !== undefined && !diffFields(object, inputs, { fields: replace }).changes;
}

/**
 * The object of the zone a create's own interrupted run made, if any (docs/ownership.md#leftovers): it carries the
 * resource's marker `mine` and no resource of the deployment holds it. Said in one line; more than one are named for
 * `zoneguard orphans`.
 */
async function takenLeftover(
  declaration: KindDeclaration<ResourceKind>,
  impl: Partial<LiveObject>,
  inputs: Record<string, unknown>,
  mine: string,
  what: (id: string) => string,
): Promise<string | undefined> {
  if (!impl.carrying || ownerOf(inputs) === undefined) return undefined;
  const { object, noun } = declaration.identity;
  const held = (id: string) => heldAgainst(object, id, declaration.kind, inputs);
  const free = (await impl.carrying(inputs, mine)).filter((id) => !held(id));
  // One whose fields only a replacement changes are not the declared ones (a FirewallRuleWithFilter of another
  // expression) is not what this create makes: an earlier program's, which its state's entry kept to delete deletes.
  const { replace } = diffPlan(declaration);
  const fits = await Promise.all(free.map(async (id) => replace.length === 0 || fitsReplaceFields(await impl.live?.(id, inputs), inputs, replace)));
  const { take, also } = leftoverOf(
    free.filter((_id, index) => fits[index]),
    held,
  );
  if (take === undefined) return undefined;
  noteTakenBack(object, take, declaration.kind, inputs);
  const more =
    also.length === 0 ? '' : `; ${also.join(', ')} carry it too, held by nothing: zoneguard orphans --zone ${String(inputs.zoneId)} lists them to delete`;
  console.error(`zoneguard: ${what(take)}: taking ${noun} ${take}, which carries this resource's marker ${mine}: an interrupted run made it${more}`);
  return take;
}

/** A kind whose objects carry the marker, as the wrapper below reads and writes it. */
interface MarkedKind {
  kind: ResourceKind;
  field: 'ref' | 'description';
  adoptInput: string;
  /** The kind's live read (kit/context.ts `Handlers.live`): the object as the service holds it now, undefined when gone. */
  live(id: string, props: Props): Promise<Props | undefined>;
  /** The resource in a message (src/kinds `label`). */
  what(props: Props, id?: string): string;
  /**
   * Whether its state records the owner marker an adoption took over (TAKEN_FROM_KEY, kit/move-deletes.ts): the ruleset
   * rules, whose takeOver of a converted legacy rule is how that legacy resource's delete learns its conversion.
   */
  recordsTakeOver: boolean;
}

type Props = Record<string, unknown>;

/** A text input of the resource, '' when it has none. */
const textOf = (props: Props, key: string): string => {
  const value = props[key];
  return typeof value === 'string' ? value : '';
};

/** The inputs with `marker` at the end of the marked field: what create and update send. */
const marked = (k: MarkedKind, props: Props, marker: string): Props => ({ ...props, [k.field]: withMarker(textOf(props, k.field), marker) });

/** The outputs as the program sees them: the field without the marker, and the marker written kept in the state. */
function shown<T extends Props | undefined>(k: MarkedKind, props: T, marker: string | undefined): T {
  if (props === undefined) return props;
  const { own } = splitMarked(textOf(props, k.field));
  return { ...props, [k.field]: own, ...(marker ? { [MARKER_KEY]: marker } : {}) };
}

/**
 * Outputs with the marker an adoption took over (`from`, when a string): kept through reads and updates from the
 * state, and noted again whenever a run diffs or reads it, so a legacy resource whose conversion a ruleset rule took
 * over in an earlier run leaves the state without a call (a move interrupted after its adoptions, then run again).
 */
function withTakenFrom<T extends Props | undefined>(outs: T, from: unknown): T {
  return outs === undefined || typeof from !== 'string' ? outs : { ...outs, [TAKEN_FROM_KEY]: from };
}

/**
 * The marker to record after a write: the one the service now holds. It differs from the one written only where the
 * kind holds an object that cannot take a marker as it is (a filter locked to its single-call rule keeps that rule's:
 * firewall-filter.ts), and then the object's own is what later writes and deletes must find.
 */
const onObject = (k: MarkedKind, outs: Props | undefined, written: string) => (outs && markerIn(outs, k.field)) ?? written;

/**
 * Reads the object as the service holds it now, before a write of it, and applies the owner-marker rule
 * ({@link otherOwner}) to the marker it carries: the one place where every write of a kind of many objects per zone
 * (an adoption's, an update's, a delete's) meets the live object, so every check of the live object before the write
 * goes here (a sealed up's: kit/seal.ts). `recorded` is what the live read is made from (the state's outputs, or an
 * adoption's inputs), `resource` the resource's own inputs (an update's new ones). Answers the object (undefined when
 * the service says it is gone) and the rule's refusal, if any.
 */
async function beforeWrite(
  k: MarkedKind,
  write: MarkedWrite,
  id: string,
  recorded: Props,
  resource: Props,
  what: string,
  held: string,
  allow: { takeOver?: boolean; written?: string } = {},
) {
  const object = await k.live(id, recorded);
  // A sealed up: the object as the sealed preview read it, or gone since it did (an update's; an adoption is not sealed).
  if (write === 'update' || (write === 'delete' && object)) assertSealedLive(k.kind, resource, id, object);
  if (!object) return { object };
  const live = markerIn(object, k.field);
  const block = write === 'adopt' ? adoptionBlock(what, live, held, allow.takeOver === true, k.adoptInput) : writeBlock(what, write, live, held, allow.written);
  return { object, live, block };
}

/**
 * A create with the marker: an adoption reads the object first (an object another owner marked needs takeOver), and
 * confirms after its write that the marker it left is still there; a plain create takes the object its own
 * interrupted run made, if any (docs/ownership.md#leftovers).
 */
async function createMarked(k: MarkedKind, declaration: KindDeclaration<ResourceKind>, impl: Implementation & Partial<LiveObject>, inputs: Props) {
  const mine = markerFor(k.kind, inputs);
  const adoptId = inputs[k.adoptInput];
  const adopted = typeof adoptId === 'string' ? adoptId : undefined;
  const adopting = adopted === undefined ? undefined : `${k.what(inputs, adopted)}: adopting it`;
  // An id that names nothing is the kind's own message (its create reads it again).
  const before =
    adopted && adopting ? await beforeWrite(k, 'adopt', adopted, inputs, inputs, adopting, mine, { takeOver: inputs[TAKE_OVER] === true }) : undefined;
  if (before?.block) throw new ProviderError(before.block);
  const leftover = adopted === undefined ? await takenLeftover(declaration, impl, inputs, mine, (id) => k.what(inputs, id)) : undefined;
  const result = await impl.create(marked(k, leftover === undefined ? inputs : { ...inputs, [k.adoptInput]: leftover }, mine));
  const written = onObject(k, result.outs, mine);
  // The marker the create's answer shows: a filter locked to its single-call rule keeps none, or that rule's.
  if (adopting)
    await confirmAdoption(
      adopting,
      () => k.live(result.id, inputs).then((object) => object && markerIn(object, k.field)),
      result.outs && markerIn(result.outs, k.field),
      k.adoptInput,
    );
  // A ruleset rule that carried another resource's marker (a legacy firewall rule's, kept by the conversion) is that
  // rule's conversion: the legacy resource's delete then leaves it (kit/conversion.ts), and its state records the marker.
  const takenFrom = k.recordsTakeOver && before?.live !== undefined && before.live !== mine ? before.live : undefined;
  if (takenFrom !== undefined) noteTakenOver(takenFrom, result.id);
  // The custom rules a run creates, for the move's ordered deletes (kit/move-deletes.ts).
  if (k.recordsTakeOver && adopted === undefined) noteCreatedCustomRule(textOf(inputs, 'zoneId'), result.id, inputs[MOVED_FROM_KEY]);
  // A leftover is taken as an adoption would take it, but the program did not ask for one: its outputs say none.
  const outs = leftover === undefined ? result.outs : Object.fromEntries(Object.entries(result.outs ?? {}).filter(([key]) => key !== k.adoptInput));
  return { ...result, outs: withTakenFrom(shown(k, outs, written), takenFrom) };
}

/**
 * The implementation with the owner marker on the object (docs/ownership.md): every create and update writes the
 * marker at the end of the kind's marked field (`ref` or `description`); every output and read shows the field
 * without it and records the marker written in the state; an adoption of an object another owner marked needs
 * takeOver; an update or delete of an object another owner marked is refused or skipped. A resource whose state has
 * no marker yet (made before markers) shows an update in the next preview, which writes its marker; a refresh never
 * writes. `fieldMax` is the service's limit of the marked field.
 */
export function withOwnerMarker(declaration: KindDeclaration<ResourceKind>, impl: Implementation & Partial<LiveObject>, fieldMax: number): Implementation {
  const { kind } = declaration;
  const { marker: field, adoptInput } = declaration.identity;
  if (field === 'none' || adoptInput === undefined || !impl.live) throw new Error(`zoneguard: ${kind} has no marked field or no live read`);
  const recordsTakeOver = declaration.identity.object === 'rulesetRule';
  const k: MarkedKind = { kind, field, adoptInput, live: impl.live.bind(impl), what: (props, id) => label(kind, props, nameOf(props), id), recordsTakeOver };
  const takenFrom = (props: Props) => (recordsTakeOver ? props[TAKEN_FROM_KEY] : undefined);
  return {
    ...impl,

    async check(olds, news) {
      return withRoomChecked(kind, field, fieldMax, news, await impl.check(olds, news));
    },

    async diff(id, olds, news) {
      noteTakenOver(takenFrom(olds), id, true);
      const result = await impl.diff(id, olds, news);
      // Made before markers, or before owner ids: the next up writes the marker (one update; the preview shows it on
      // the owner input). Only against the program's inputs (they carry the owner): the engine's refresh diffs the
      // state's old inputs, and a refresh writes nothing, so it must not count a change either.
      if (markerOutdated(olds, news) && !result.changes) return { ...result, changes: true };
      return result;
    },

    create: (inputs) => createMarked(k, declaration, impl, inputs),

    async read(id, props) {
      noteTakenOver(takenFrom(props), id, true);
      const result = await impl.read(id, props);
      return { ...result, props: withTakenFrom(shown(k, result.props, recordedMarker(props)), takenFrom(props)), inputs: shown(k, result.inputs, undefined) };
    },

    async update(id, olds, news) {
      const marker = writtenMarker(kind, olds, news);
      // The object must carry the marker the state holds (or none), or the one this write puts; the write puts `marker` on it.
      const { object, block } = await beforeWrite(k, 'update', id, olds, news, k.what(news, id), recordedMarker(olds) ?? marker, { written: marker });
      if (!object) throw new ProviderError(goneMessage(k.what(news, id)));
      if (block) throw new ProviderError(block);
      const result = await impl.update(id, object, marked(k, news, marker));
      return { ...result, outs: withTakenFrom(shown(k, result.outs, onObject(k, result.outs, marker)), takenFrom(olds)) };
    },

    async delete(id, props) {
      const { object, block } = await beforeWrite(k, 'delete', id, props, props, `zoneguard: ${k.what(props, id)}`, heldMarker(kind, props));
      // Gone already: what a delete wants. Another owner's: it stays, and the resource leaves the state.
      if (!object) return;
      if (block) {
        console.error(block);
        return;
      }
      await impl.delete(id, props);
    },
  };
}
