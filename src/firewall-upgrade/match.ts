// Which custom rule is which legacy rule's conversion, without ids (the conversion gives new ones): by expression,
// mapped action and parameters, description, ref and position; and who holds each (docs/firewall-and-migration.md#upgrade-plan).
// Pure.
import { convertedRule, legacyRuleRuns, LEGACY_PRECEDENCE } from '../rulesets';
import type { FirewallRuleWire, RulesetRule } from '../schemas';
import { splitMarked } from '../schemas/owner-marker';

/** What the stack exports say of the zone: ids their resources hold, and each owner marker with its resource's URN. */
export interface Holders {
  readonly held: ReadonlySet<string>;
  readonly markers: ReadonlyMap<string, string>;
  /** The URN of the resource that holds each id, where the exports say. */
  readonly holders?: ReadonlyMap<string, string>;
}

/** Who holds a rule: a resource of the given stacks (its URN), another owner (its marker), or nobody. */
export type Holder =
  { readonly by: 'this stack'; readonly urn?: string } | { readonly by: 'another owner'; readonly marker: string } | { readonly by: 'nobody' };

const sameParameters = (a: RulesetRule, b: RulesetRule) => JSON.stringify(a.action_parameters ?? {}) === JSON.stringify(b.action_parameters ?? {});

/** Whether a custom rule is `want` (a legacy rule's conversion): expression, action and parameters, description, and ref when both have their own. */
export function isConversion(want: RulesetRule, rule: RulesetRule): boolean {
  if (rule.action !== want.action || rule.expression !== want.expression || !sameParameters(want, rule)) return false;
  if ((rule.description ?? '') !== (want.description ?? '')) return false;
  const ownRef = rule.ref !== undefined && rule.ref !== rule.id ? rule.ref : undefined;
  return want.ref === undefined || ownRef === undefined || ownRef === want.ref;
}

/**
 * For each legacy rule, in the legacy order, the index of its conversion among `rules` (the custom phase), or
 * undefined. Each custom rule is one legacy rule's at most; among equal candidates the first after the previous match
 * wins (position), else the first.
 */
export function matchConversions(ordered: readonly FirewallRuleWire[], rules: readonly RulesetRule[]): (number | undefined)[] {
  const used = new Set<number>();
  let last = -1;
  return ordered.map((legacy) => {
    const want = convertedRule(legacy);
    const candidates = rules.flatMap((rule, i) => (!used.has(i) && isConversion(want, rule) ? [i] : []));
    const found = candidates.find((i) => i > last) ?? candidates[0];
    if (found !== undefined) {
      used.add(found);
      last = found;
    }
    return found;
  });
}

/** The owner marker a legacy rule or a custom rule carries at the end of its ref (or its filter's). */
export function markerOf(...refs: (string | undefined)[]): string | undefined {
  for (const ref of refs) {
    const marker = splitMarked(ref).marker;
    if (marker !== undefined) return marker;
  }
  return undefined;
}

/** Who holds a rule by its ids and marker, given what the stack exports say (none given: only markers speak). */
export function holderOf(ids: readonly (string | undefined)[], marker: string | undefined, holders: Holders | undefined): Holder {
  const urn = marker === undefined ? undefined : holders?.markers.get(marker);
  if (urn !== undefined) return { by: 'this stack', urn };
  const heldId = ids.find((id) => id !== undefined && holders?.held.has(id));
  if (heldId !== undefined) {
    const by = holders?.holders?.get(heldId);
    return by === undefined ? { by: 'this stack' } : { by: 'this stack', urn: by };
  }
  if (marker !== undefined) return { by: 'another owner', marker };
  return { by: 'nobody' };
}

/** A holder in words. */
export function holderText(holder: Holder): string {
  if (holder.by === 'this stack') return holder.urn === undefined ? 'this stack' : `this stack (${holder.urn})`;
  if (holder.by === 'another owner') return `another owner (marker ${holder.marker})`;
  return 'nobody (made by hand, or before owner markers)';
}

/** What a legacy rule's conversion changes of its own behaviour, known from the rule alone (the rest: the equivalence check). */
export function ruleNotes(rule: FirewallRuleWire, all: readonly FirewallRuleWire[]): string[] {
  const notes: string[] = [];
  if (!rule.paused && rule.filter.paused === true) {
    notes.push('its filter is paused, so it did not run; converted, it is enabled and runs (docs/service.md#legacy-paused)');
  }
  const tie = all.filter(
    (other) =>
      other.id !== rule.id &&
      legacyRuleRuns(other) &&
      (other.priority ?? null) === (rule.priority ?? null) &&
      other.action !== rule.action &&
      LEGACY_PRECEDENCE[other.action] === LEGACY_PRECEDENCE[rule.action],
  );
  if (legacyRuleRuns(rule) && tie.length > 0) {
    notes.push(
      `ties with ${tie.map((other) => `${other.id} (${other.action})`).join(', ')} at equal priority and precedence: no order is published; the conversion puts them in the order the API lists them`,
    );
  }
  return notes;
}
