import { z } from 'zod';
import { type Filter, type FilterCreate, type FirewallRuleWire } from '../schemas';
import type { Context } from './kit/context';
import { diffFields } from './kit/diff';
import {
  bestEffort,
  filterReads,
  firewallObject,
  isConflictError,
  isDuplicateFilterError,
  normalizeFieldOf,
} from './kit/firewall';
import { ProviderError } from './kit/implementation';
import { objectKind } from './kit/flow';
import { splitMarked } from '../schemas/owner-marker';
import { FirewallFilterKind, diffPlan, label as kindLabel, outputsOf, requestOf } from '../kinds';
import { FilterCreateSchema, FilterSchema } from '../schemas/filters';

const RESOURCE = FirewallFilterKind.kind;
const DIFF = diffPlan(FirewallFilterKind);
const normalizeField = normalizeFieldOf(FirewallFilterKind, FilterSchema);

/** Inputs of a FirewallFilter, as `check` validates them (src/kinds/firewall-filter.ts). */
export const FirewallFilterArgsSchema = FirewallFilterKind.args;
export type FirewallFilterInputs = z.output<typeof FirewallFilterArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the filter's id. */
export type FirewallFilterOutputs = FirewallFilterInputs & { filterId: string };

/**
 * Every field changes in place (PUT /filters/{id}): a new expression applies at once to every rule that references
 * the filter, which keep their ids (docs/service.md#filters). Only another zone is another filter.
 */

/** The create (and update) body: every field as declared (src/kinds/firewall-filter.ts). */
export function filterBody(inputs: FirewallFilterInputs): FilterCreate {
  return requestOf(FilterCreateSchema, FirewallFilterKind, inputs);
}

/** The service's answer in the provider's names; absent optional fields read as their defaults. */
export function outputsFromFilter(zoneId: string, filter: Filter, adoptFilterId?: string): FirewallFilterOutputs {
  return outputsOf(FirewallFilterKind, zoneId, filter, adoptFilterId);
}

/** Diff of the declared inputs against the state: every field in place, a new zone replaces. */
export function diffFirewallFilter(olds: Record<string, unknown>, news: Record<string, unknown>) {
  return diffFields(olds, news, DIFF, normalizeField);
}

/** Whether the outputs already hold the declared fields (an adoption then writes nothing). */
export function filterMatches(current: FirewallFilterOutputs, desired: FirewallFilterInputs): boolean {
  return !diffFirewallFilter(current, desired).changes;
}

/**
 * The message of a create refused because a filter with this expression exists (10102): which one, and the ways
 * out, aliases first (a renamed resource), adoption for a filter made outside the stack only. Pure.
 */
export function existingFilterMessage(zoneId: string, name: string | undefined, filterIds: readonly string[], serviceMessage: string): string {
  const [first] = filterIds;
  const me = kindLabel(RESOURCE, { zoneId }, name);
  const which =
    filterIds.length > 0 ? `filter ${filterIds.join(', ')} of this zone already has this expression` : 'a filter of this zone already has this expression';
  const adopt = first ? ` Only if filter ${first} was made outside this stack, take it over with adoptFilterId: '${first}'.` : '';
  return (
    `${me}: ${which} (${serviceMessage}). If this resource is one of this stack renamed, give it its old name as an alias, ` +
    `and the filter stays as it is: { aliases: [{ name: '<old name>' }] } in its resource options.${adopt} Or change the expression`
  );
}

/**
 * The message of a delete refused because rules still reference the filter (10027). The stack's own rules are
 * deleted first (they depend on the filter), so these are rules outside the stack. Pure.
 */
export function filterInUseMessage(zoneId: string, name: string | undefined, filterId: string, ruleIds: readonly string[], serviceMessage: string): string {
  const users = ruleIds.length > 0 ? `firewall rule ${ruleIds.join(', ')}, not managed by this stack,` : 'a firewall rule not managed by this stack';
  return (
    `${kindLabel(RESOURCE, { zoneId }, name, filterId)}: not deleted: ${users} still references it (${serviceMessage}). Delete those rules or point ` +
    `them at another filter, then run the destroy again; or keep the filter and take the resource out of the stack without a ` +
    `delete: pulumi state delete <urn>, or retainOnDelete: true`
  );
}

/** The message of a change refused because the filter was created with its rule in one call (10027). Pure. */
export function lockedFilterMessage(zoneId: string, name: string | undefined, filterId: string, serviceMessage: string): string {
  return (
    `${kindLabel(RESOURCE, { zoneId }, name, filterId)}: the filter was created together with its rule in one call and belongs to that rule ` +
    `(${serviceMessage}); it cannot be changed on its own. Manage that rule as a FirewallRuleWithFilter, or declare a new ` +
    `FirewallFilter (without adoptFilterId) with its own expression`
  );
}

/** The exact filters with `expression` (the service's expression query matches substrings). */
async function filtersWithExpression(ctx: Context, zoneId: string, expression: string): Promise<string[]> {
  const found = await ctx.client.filters.list({ zoneId, expression }).toArray();
  return found.filter((filter) => filter.expression === expression).map((filter) => filter.id);
}

async function createFilter(ctx: Context, inputs: FirewallFilterInputs): Promise<Filter> {
  const { zoneId } = inputs;
  try {
    const [filter] = await ctx.client.filters.create({ zoneId, filters: [filterBody(inputs)] });
    if (!filter) throw new ProviderError(`${ctx.label()}: the service answered the create with no filter`);
    return filter;
  } catch (error) {
    if (!isDuplicateFilterError(error)) throw error;
    const existing = await bestEffort(() => filtersWithExpression(ctx, zoneId, inputs.expression), []);
    throw new ProviderError(existingFilterMessage(zoneId, ctx.name, existing, error.message), { cause: error });
  }
}

/** Whether `current` differs from `desired` in the owner marker at the end of `ref` alone (kit/marker.ts). Pure. */
export function onlyMarkerDiffers(current: FirewallFilterOutputs, desired: FirewallFilterInputs): boolean {
  const { changed } = diffFirewallFilter(current, desired);
  return changed.length === 1 && changed[0] === 'ref' && splitMarked(current.ref).own === splitMarked(desired.ref).own;
}

async function updateFilter(ctx: Context, inputs: FirewallFilterInputs, filterId: string, current: FirewallFilterOutputs): Promise<Filter> {
  const { zoneId } = inputs;
  try {
    return await ctx.client.filters.update({ zoneId, filterId, ...filterBody(inputs) });
  } catch (error) {
    // A filter made with its rule in one call is locked to that rule and cannot take this resource's marker: when
    // the marker is all that would change, the filter is held as it is (docs/firewall-and-migration.md#switching-forms).
    if (isConflictError(error) && onlyMarkerDiffers(current, inputs)) return ctx.client.filters.get({ zoneId, filterId });
    if (isConflictError(error)) throw new ProviderError(lockedFilterMessage(zoneId, ctx.name, filterId, error.message), { cause: error });
    if (isDuplicateFilterError(error)) {
      const existing = await bestEffort(() => filtersWithExpression(ctx, zoneId, inputs.expression), []);
      throw new ProviderError(existingFilterMessage(zoneId, ctx.name, existing, error.message), { cause: error });
    }
    throw error;
  }
}

/** The rules of the zone that reference a filter. */
export function rulesReferencing(rules: readonly FirewallRuleWire[], filterId: string): string[] {
  return rules.filter((rule) => rule.filter.id === filterId).map((rule) => rule.id);
}

/** Deletes a filter; refused because rules outside the stack still use it (10027), it says which and what to do. */
async function removeFilter(ctx: Context, zoneId: string, filterId: string): Promise<void> {
  try {
    await ctx.client.filters.delete({ zoneId, filterId });
  } catch (error) {
    if (!isConflictError(error)) throw error;
    // The stack's own rules were deleted before (they depend on the filter): whoever still uses it is outside.
    const users = await bestEffort(async () => rulesReferencing(await ctx.client.firewallRules.list({ zoneId }).toArray(), filterId), []);
    throw new ProviderError(filterInUseMessage(zoneId, ctx.name, filterId, users, error.message), { cause: error });
  }
}

export const firewallFilter = objectKind<Filter, FirewallFilterInputs, FirewallFilterOutputs>({
  ...firewallObject(RESOURCE, 'the filter', filterReads),
  multiline: ['expression'],
  normalize: normalizeField,
  adopting: (inputs) => inputs.adoptFilterId,
  get: (ctx, zoneId, filterId) => ctx.client.filters.get({ zoneId, filterId }),
  create: createFilter,
  update: updateFilter,
  remove: (ctx, filterId, { zoneId }) => ({ call: () => removeFilter(ctx, zoneId, filterId) }),
  outputs: (filter, declared) => outputsFromFilter(declared.zoneId, filter, declared.adoptFilterId),
  matches: filterMatches,
});
