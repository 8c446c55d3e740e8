/**
 * The owner marker's text on the wire (docs/ownership.md): `zg:` and 10 hex digits at the end of an
 * object's `ref` or `description`, after the user's own text and one space: `block bots zg:1a2b3c4d5e`. Who it names
 * and what follows from it is src/kinds/marker.ts; this is only how it is written and read.
 */
import { z } from 'zod';

/** What starts every marker, so a reader of the dashboard sees zoneguard's part at a glance. */
export const MARKER_PREFIX = 'zg:';

/** Hex digits of the digest: 40 bits, so two resources of one zone share a marker about once in a trillion pairs. */
export const MARKER_DIGITS = 10;
const PATTERN = new RegExp(`^(?:(.*) )?${MARKER_PREFIX}([0-9a-f]{${MARKER_DIGITS}})$`, 's');

/** Characters the marker takes from a field: the prefix, the digest and the space before it. */
export const MARKER_ROOM = MARKER_PREFIX.length + MARKER_DIGITS + 1;

/** The most a user's own text of a marked field may hold: the service's `max` less the marker's room. */
export function ownRoom(max: number): number {
  return max - MARKER_ROOM;
}

/** Why a user's own text of a marked field whose service limit is `max` is too long: the limit a program can use, and why. */
export function ownRoomProblem(max: number): string {
  return `must be at most ${ownRoom(max)} characters: zoneguard keeps ${MARKER_ROOM} of the service's ${max} for its owner marker (docs/ownership.md)`;
}

/**
 * A marked field's own text as a kind's args take it: at most {@link ownRoom} characters, said with why. The first
 * refusal a program meets names the limit it can use (the service's own limit would pass a text the marker then
 * overflows), and it comes from the args' schema, before a preview's dry run sends the text with its marker.
 */
export function ownTextSchema(max: number, text: z.ZodString = z.string()): z.ZodString {
  return text.max(ownRoom(max), ownRoomProblem(max));
}

/** A field's text split into the user's own part and the marker at its end, if any. */
export function splitMarked(text: string | undefined): { own: string; marker?: string } {
  const match = PATTERN.exec(text ?? '');
  if (!match) return { own: text ?? '' };
  return { own: match[1] ?? '', marker: `${MARKER_PREFIX}${match[2]}` };
}

/** The field's text with `marker` at its end: what goes on the wire. */
export function withMarker(own: string, marker: string): string {
  return own === '' ? marker : `${own} ${marker}`;
}

/** Whether a user's own text would read as a marker (it must not: the marker would then be the user's). */
export function looksMarked(own: string): boolean {
  return splitMarked(own).marker !== undefined;
}

/** The marker a wire object carries at the end of its field `field` (`ref` or `description`), if any. */
export function markerIn(object: object, field: string): string | undefined {
  const text = (object as Record<string, unknown>)[field];
  return splitMarked(typeof text === 'string' ? text : undefined).marker;
}
