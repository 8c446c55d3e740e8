// The deletes of a move while the legacy API is available (docs/firewall-and-migration.md#move). The CustomRules are
// created first, and the legacy rules they replace keep running before them (docs/service.md#zone-evaluation). Deleted
// in the engine's order (any order, a few at a time), the removal of one legacy rule can let a later one decide the
// requests it decided: a block became a managed challenge between two steps (test/e2e/firewall-move.test.ts). Deleted
// last-run first, the legacy rules left are always the first ones of the order, and a request they no longer decide
// goes on to the custom rules, which decide it as the removed rules did. So the first legacy delete of a zone in a run
// that created custom rules there deletes every rule this run moved, in that order; the deletes of their own resources
// then find them deleted and make no call. Only rules this stack holds: one whose owner marker is a marker of this
// stack's, as this process knows them by then (`ours`): the markers of the firewall resources a CustomRule created in
// this run would replace (its parent and name: MOVED_FROM_KEY, src/kinds/marker.ts), and those of the firewall
// resources this run read or deletes. Another stack's rule, however alike, stays; so does a filter not known as ours
// (its own resource's delete, if this stack holds it, deletes it).
// What the run's ruleset rules tell the legacy deletes is kept here too: the custom rules it created, and those it took
// over from a legacy resource's marker (kit/marker.ts notes both; kit/conversion.ts reads the second).
import { isConversion } from '../../firewall-upgrade/match';
import { convertedRule, legacyOrder } from '../../rulesets';
import type { ZoneGuardClient } from '../../client';
import type { FirewallRuleWire, RulesetRule } from '../../schemas';
import { splitMarked } from '../../schemas/owner-marker';
import { firewallWrite } from './firewall';

/** What the first legacy delete of a zone deleted: rules and the filters that went with them. */
interface Moved {
  readonly rules: ReadonlySet<string>;
  readonly filters: ReadonlySet<string>;
}

// Per provider process (one per deployment): the custom rules this run created, by zone; the legacy rules and filters
// a resource of this run declares (diffed or created: an `up --refresh` reads the removed ones too, so a read says
// nothing of that); the owner markers known as this stack's; each zone's ordered deletes.
const created = new Map<string, Set<string>>();
const declared = { rules: new Set<string>(), filters: new Set<string>() };
const ours = new Set<string>();
const deleted = new Map<string, Promise<Moved>>();

/** Notes owner markers of this stack's resources: a firewall resource's this run read or deletes, those a created CustomRule would replace. */
export function noteOurs(markers: unknown): void {
  for (const marker of Array.isArray(markers) ? markers : [markers]) if (typeof marker === 'string' && marker !== '') ours.add(marker);
}

/** Notes a legacy rule or filter a resource of this run declares: a move never deletes it ahead. */
export function noteDeclared(object: 'rule' | 'filter', id: unknown): void {
  if (typeof id === 'string' && id !== '') (object === 'rule' ? declared.rules : declared.filters).add(id);
}

/**
 * The output where a ruleset rule that took over a rule marked by another resource records that marker: a later run's
 * legacy delete learns its conversion from it (the rule then carries the new marker only). Never diffed.
 */
export const TAKEN_FROM_KEY = '__zoneguardTakenFrom';

/** The custom rules taken over from another marker, by that marker (in this run, or recorded in a state this run diffed or read). */
const takenOver = new Map<string, { id: string; earlier: boolean }>();

/** Notes that an adoption moved `id`'s owner marker from `previous` to its own (kit/marker.ts), or, `earlier`, that its state says one did. */
export function noteTakenOver(previous: unknown, id: string, earlier = false): void {
  if (typeof previous !== 'string' || previous === '') return;
  takenOver.set(previous, { id, earlier });
}

/** The custom rule that took over the object marked `marker`, and whether an earlier run did, if this process saw one. */
export function takenOverFrom(marker: string): { id: string; earlier: boolean } | undefined {
  return takenOver.get(marker);
}

/**
 * Notes a custom rule this run created (not adopted) in the zone: a conversion the move may have made, with the markers
 * of the firewall resources of this stack it would replace (its MOVED_FROM_KEY input).
 */
export function noteCreatedCustomRule(zoneId: string, ruleId: string, movedFrom: unknown): void {
  let ids = created.get(zoneId);
  if (!ids) created.set(zoneId, (ids = new Set()));
  ids.add(ruleId);
  noteOurs(movedFrom);
}

/** For tests: forget what this process saw, as a new provider process would. */
export function resetMoveDeletes(): void {
  created.clear();
  takenOver.clear();
  declared.rules.clear();
  declared.filters.clear();
  ours.clear();
  deleted.clear();
}

/** A rule with its ref's own text only (the owner marker dropped), for comparing a conversion with who made it aside. */
const unmarked = (rule: RulesetRule): RulesetRule => {
  const own = splitMarked(rule.ref).own;
  return { ...rule, ref: own === '' ? undefined : own };
};

/**
 * The legacy rules a run moved, in the order they ran: marked by one of this stack's resources (`isOurs`), declared by
 * no resource of the run, and converted by a custom rule the run created (`made`: the same expression, mapped action
 * and parameters, description and own ref); and `alike`: the rules converted by one of `made` that carry a marker not
 * known as ours, left alone. Pure.
 */
export function movedRules(
  legacy: readonly FirewallRuleWire[],
  made: readonly RulesetRule[],
  isDeclared: (rule: FirewallRuleWire) => boolean,
  isOurs: (marker: string) => boolean,
): { moved: FirewallRuleWire[]; alike: FirewallRuleWire[] } {
  const candidates = made.map(unmarked);
  const converted = legacyOrder(legacy).filter((rule) => {
    if (splitMarked(rule.ref).marker === undefined || isDeclared(rule)) return false;
    const want = unmarked(convertedRule(rule));
    return candidates.some((custom) => isConversion(want, custom));
  });
  const mine = (rule: FirewallRuleWire) => isOurs(splitMarked(rule.ref).marker ?? '');
  return { moved: converted.filter(mine), alike: converted.filter((rule) => !mine(rule)) };
}

/** Deletes the moved rules of the zone, last-run first, each with its filter when no other rule uses it and no resource of the run declares it. */
async function deleteMoved(client: ZoneGuardClient, zoneId: string, phase: readonly RulesetRule[]): Promise<Moved> {
  const ids = created.get(zoneId) ?? new Set<string>();
  const made = phase.filter((rule) => rule.id !== undefined && ids.has(rule.id));
  // Unreadable (a token without the legacy API, a zone retired since): nothing moved here, each delete goes as before.
  const legacy = await client.firewallRules.list({ zoneId }).toArray().catch(() => []);
  const { moved, alike } = movedRules(legacy, made, (rule) => declared.rules.has(rule.id), (marker) => ours.has(marker));
  const rules = new Set<string>();
  const filters = new Set<string>();
  if (moved.length > 0) {
    console.error(
      `zoneguard: zone ${zoneId}: deleting the ${moved.length} firewall rule(s) this run moved to custom rules, the last to run first, so that the rules left run ` +
        'as before and the custom rules decide what they no longer do (docs/firewall-and-migration.md#move)',
    );
  }
  if (alike.length > 0) console.error(alikeLine(zoneId, alike));
  for (const rule of moved.reverse()) {
    // A filter goes with its last rule only when it is ours too (a single-call rule's carries the rule's marker).
    const keepFilter = declared.filters.has(rule.filter.id) || !ours.has(splitMarked(rule.filter.ref).marker ?? '');
    const answer = await firewallWrite(zoneId, () => client.firewallRules.delete({ zoneId, ruleId: rule.id, deleteFilterIfUnused: !keepFilter }));
    rules.add(rule.id);
    if (answer.filter?.deleted === true) filters.add(answer.filter.id);
  }
  return { rules, filters };
}

/** The line for legacy rules a custom rule of this run converts but no marker of this stack's marks: left, by id and marker. Pure. */
export function alikeLine(zoneId: string, alike: readonly FirewallRuleWire[]): string {
  const named = alike.map((rule) => `${rule.id} (marker ${splitMarked(rule.ref).marker ?? 'none'})`).join(', ');
  return (
    `zoneguard: zone ${zoneId}: not deleting firewall rule(s) ${named} ahead: a custom rule this run created converts them, but their marker is not one this ` +
    "stack's resources are known to hold (another stack's, or a firewall resource whose CustomRule has another name or parent); a firewall resource of this " +
    "stack that holds one deletes it itself, in the engine's order (docs/firewall-and-migration.md#move)"
  );
}

/**
 * Whether the delete of a legacy rule (or filter) `id` is done already: the zone's moved rules were deleted in order
 * (above), once per zone and run, from the zone's custom phase as read for the delete (`phase`). False where this run
 * created no custom rule in the zone: the delete then goes as before.
 */
export async function deletedByMove(
  client: ZoneGuardClient,
  zoneId: string,
  object: 'rule' | 'filter',
  id: string,
  phase: () => Promise<readonly RulesetRule[]>,
): Promise<boolean> {
  if (!created.has(zoneId)) return false;
  let moved = deleted.get(zoneId);
  if (!moved) {
    moved = phase().then((rules) => deleteMoved(client, zoneId, rules));
    deleted.set(zoneId, moved);
  }
  const { rules, filters } = await moved;
  return (object === 'rule' ? rules : filters).has(id);
}
