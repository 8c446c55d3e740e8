import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MARKER_DIGITS, MARKER_PREFIX } from '../schemas/owner-marker';

/**
 * The owner marker: who owns an object, recorded on the object itself (docs/ownership.md). It is a
 * short digest of the full identity of the resource that created or adopted the object (its stack's owner id, project,
 * stack, parent chain, kind, logical name), written at the end of the object's `ref` (firewall rules and filters, ruleset rules)
 * or `description` (CSP policies), after the user's own text and one space: `block bots zg:1a2b3c4d5e`. The
 * provider records the marker it wrote in the state, so a rename with `aliases` keeps it. Pure: no client, no Pulumi.
 */

/**
 * The input that carries the resource's owner marker, made by the resource class from its full identity
 * (src/resources/kit.ts), and the output that records the marker the provider wrote on the object. The recorded one
 * is what the provider compares with the object from then on, so a rename with `aliases` (a new identity) keeps the
 * object's marker. Like the logical name's key, never validated and never diffed.
 */
export const OWNER_KEY = '__zoneguardOwner';
export const MARKER_KEY = '__zoneguardMarker';

/**
 * The input that carries the stack's owner id (src/resources/stack-owner.ts), and the output that records it with the
 * marker written: a state whose marker was made before owner ids has none, and the next up writes the marker again
 * (docs/ownership.md#owner-id). Never validated, never diffed, like the owner input.
 */
export const OWNER_ID_KEY = '__zoneguardOwnerId';

/**
 * The input of a CustomRule that carries the owner markers a legacy firewall rule resource (`MOVED_KINDS`) of the same
 * stack, parent and name holds ({@link movedMarkers}), made by the resource class as its own marker is: the program of
 * a move names each CustomRule after the firewall resource it replaces (docs/firewall-and-migration.md#move), so a
 * legacy rule carrying one of them is this stack's, and the move's ordered deletes may delete it ahead
 * (src/providers/kit/move-deletes.ts). Never validated, never diffed, like the owner input.
 */
export const MOVED_FROM_KEY = '__zoneguardMovedFrom';

/** The kinds whose rule a CustomRule replaces in a move. */
export const MOVED_KINDS = ['FirewallRuleWithFilter', 'FirewallRule'] as const;

/** `takeOver`, as every adoptable kind's `check` validates it (docs/ownership.md#take-over). */
export const TakeOverSchema = z.boolean().optional();

/**
 * The parts of a resource's identity the marker is made from; `parent` is the parent's URN ('' for a top-level
 * resource). `ownerId` is the stack's owner id, a random id its state records once (src/resources/stack-owner.ts):
 * two stacks of one project and stack name on two backends have two. Undefined for the marker of a stack from before
 * owner ids (pulumi-zoneguard 0.1.0 up to this change), which the first up after upgrading writes anew.
 */
export interface OwnerIdentity {
  ownerId: string | undefined;
  project: string;
  stack: string;
  parent: string;
  kind: string;
  name: string;
}

/** The marker of the resource `identity` names. Stable: the same resource always has the same marker. */
export function ownerMarker(identity: OwnerIdentity): string {
  const { ownerId, project, stack, parent, kind, name } = identity;
  const parts = [project, stack, parent, kind, name];
  const digest = createHash('sha256').update(JSON.stringify(ownerId === undefined ? parts : [ownerId, ...parts])).digest('hex');
  return `${MARKER_PREFIX}${digest.slice(0, MARKER_DIGITS)}`;
}

/** The markers the resources of `MOVED_KINDS` of this identity (its kind aside) hold: what {@link MOVED_FROM_KEY} carries. Pure. */
export function movedMarkers(identity: Omit<OwnerIdentity, 'kind'>): string[] {
  return MOVED_KINDS.map((kind) => ownerMarker({ ...identity, kind }));
}

/**
 * What an object's live marker means to the resource whose marker is `mine` (docs/ownership.md):
 * - `mine`: the resource's own;
 * - `unmarked`: no marker (made by hand, by another tool, or by zoneguard before markers);
 * - `other`: another owner's: never written, never deleted, adopted only with `takeOver`.
 */
export type MarkerStanding = 'mine' | 'unmarked' | 'other';

/** The standing of `live` (the object's marker, undefined when it has none) for the resource whose marker is `mine`. Pure. */
export function standing(live: string | undefined, mine: string): MarkerStanding {
  if (live === undefined) return 'unmarked';
  return live === mine ? 'mine' : 'other';
}
