// What the up that keeps a seal compares (docs/sealed-previews.md): a resource's fields as the preview saw them against
// the object now, and where a create lands. Pure: the providers hand in what their reads already answered.
import { isDeepStrictEqual } from 'node:util';
import { declarationOf, diffPlan, type ResourceKind } from '../kinds';
import { landingIndex, type RulePlace } from '../rulesets';
import { splitMarked } from '../schemas/owner-marker';
import type { RulesetRule } from '../schemas';
import type { Landing, Neighbour, SealedOp } from './format';

/** What every refusal of the sealed up ends with: nothing was written, and how to go on. */
export const PREVIEW_AGAIN = 'nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up';

/**
 * The fields a seal compares for a kind: those a change of which the diff reports (src/kinds: in place, replace or
 * refused), without the zone (another zone is another object, its id the resource's).
 */
export function comparedFields(kind: ResourceKind): string[] {
  return diffPlan(declarationOf(kind)).fields.filter((field) => field !== 'zoneId');
}

/** A value as compared: JSON's, with an absent or null value absent. */
const normal = (value: unknown): unknown => (value === undefined || value === null ? undefined : JSON.parse(JSON.stringify(value)));

/**
 * A resource's compared fields from its outputs (a refresh's read, a state, or the object a write reads first): the
 * marked field (a rule's `ref`, a policy's `description`) without the owner marker, which the marker's own check
 * compares (kit/marker.ts). Pure.
 */
export function sealedFields(kind: ResourceKind, outputs: Record<string, unknown>): Record<string, unknown> {
  const marked = declarationOf(kind).identity.marker;
  const fields: Record<string, unknown> = {};
  for (const field of comparedFields(kind)) {
    const raw = field === marked && typeof outputs[field] === 'string' ? splitMarked(outputs[field]).own : outputs[field];
    const value = normal(raw);
    if (value !== undefined && !(field === marked && value === '')) fields[field] = value;
  }
  return fields;
}

/** One field that differs: its value as sealed, and now (undefined: absent). */
export interface FieldChange {
  field: string;
  sealed: unknown;
  now: unknown;
}

/** The fields whose values differ between the seal and now, in the kind's order. Pure. */
export function fieldChanges(sealed: Record<string, unknown>, now: Record<string, unknown>): FieldChange[] {
  const fields = [...new Set([...Object.keys(sealed), ...Object.keys(now)])];
  return fields.filter((field) => !isDeepStrictEqual(sealed[field], now[field])).map((field) => ({ field, sealed: sealed[field], now: now[field] }));
}

const shown = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

/** `description "a" → "b"; enabled true → false`. */
export const changesText = (changes: readonly FieldChange[]): string =>
  changes.map(({ field, sealed, now }) => `${field} ${shown(sealed)} → ${shown(now)}`).join('; ');

/**
 * A rule as a refusal names it: by its own ref and id, or by its id alone where it has no ref of its own (none, or the
 * id the service gives as ref by default: docs/service.md#rulesets), and what its owner marker says.
 */
export function ruleWords(rule: Neighbour): string {
  const named = rule.ref !== '' && rule.ref !== rule.id;
  return `rule ${named ? `${JSON.stringify(rule.ref)} (id ${rule.id}, ` : `${rule.id} (`}${rule.marker === null ? 'unmarked: made by hand or by another tool' : `marker ${rule.marker}`})`;
}

/** A rule of the phase as a landing records it. */
export function neighbourOf(rule: RulesetRule | undefined): Neighbour | null {
  if (rule?.id === undefined) return null;
  const { own, marker } = splitMarked(rule.ref ?? '');
  return { id: rule.id, ref: own, marker: marker ?? null };
}

/**
 * Where a create of a rule placed at `place` lands among `rules` (the zone's rules of the phase, without those the same
 * run made): the rules just before and after it. Undefined when the place names no rule (the create refuses it). Pure.
 */
export function landingAmong(phase: string, rules: readonly RulesetRule[], place: RulePlace | undefined): Landing | undefined {
  const at = landingIndex(rules, place);
  if (typeof at !== 'number') return undefined;
  return { phase, before: neighbourOf(rules[at - 1]), after: neighbourOf(rules[at]) };
}

const between = (landing: Landing) =>
  landing.before === null && landing.after === null
    ? 'alone in the phase'
    : `between ${landing.before === null ? 'the start' : ruleWords(landing.before)} and ${landing.after === null ? 'the end' : ruleWords(landing.after)}`;

/** Why a create may not land where it now would, or undefined when its neighbours are those the preview showed. Pure. */
export function landingRefusal(what: string, sealed: Landing, now: Landing): string | undefined {
  if (sealed.before?.id === now.before?.id && sealed.after?.id === now.after?.id) return undefined;
  return `${what}: the zone's ${now.phase} phase changed since the sealed preview: the create now lands ${between(now)}, where the preview showed it ${between(sealed)}; ${PREVIEW_AGAIN}`;
}

/** Why the object may not be written: it changed on the service since the preview. `rule`: the rule itself, for a rule. */
export function liveRefusal(what: string, changes: readonly FieldChange[], rule?: Neighbour | null): string {
  const which = rule ? ` (the ${ruleWords(rule)})` : '';
  return `${what}${which}: changed on the service since the sealed preview: ${changesText(changes)}; ${PREVIEW_AGAIN}`;
}

/** Why the object may not be written: the preview read it, and it is gone now. */
export function goneRefusal(what: string): string {
  return `${what}: deleted on the service since the sealed preview; ${PREVIEW_AGAIN}`;
}

/** Why a write the seal does not show may not run: the preview showed another change of the resource, or none. */
export function uncoveredRefusal(what: string, op: SealedOp, sealed: SealedOp | undefined): string {
  const showed = sealed === undefined ? 'no change of it' : `${sealed === 'update' ? 'an' : 'a'} ${sealed}`;
  return `${what}: the sealed preview did not show this ${op} (it showed ${showed}); ${PREVIEW_AGAIN}`;
}

/** Why an up from another state than the preview's may not write: the seal is of an older preview. */
export function stateRefusal(what: string, changes: readonly FieldChange[]): string {
  return `${what}: the stack's state of it changed since the sealed preview (an up ran after it, so the seal is of an older preview): ${changesText(changes)}; ${PREVIEW_AGAIN}`;
}

/**
 * Why a seal may not be kept by this stack's up, or undefined when it may: it was made by another stack's preview
 * (docs/ownership.md#owner-id: the owner id is the stack's identity; null before the stack's first up). Pure.
 */
export function stackRefusal(seal: { project: string; stack: string; ownerId: string | null }, file: string, ownerId: string | null): string | undefined {
  if (seal.ownerId === ownerId) return undefined;
  const theirs = `${seal.project}/${seal.stack}, owner id ${seal.ownerId ?? 'none yet'}`;
  return `zoneguard: the seal ${file} is of another stack's preview (${theirs}), not of this stack (owner id ${ownerId ?? 'none yet'}); nothing was written: keep the seal this stack's preview wrote`;
}
