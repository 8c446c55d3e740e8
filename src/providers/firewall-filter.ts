import { z } from 'zod';
import { HexIdSchema, ZoneIdSchema, type Filter, type FilterCreate, type FirewallRule } from '../schemas';
import { checkWithSchema } from './kit/check';
import { assertConfigured, configure, getClient } from './kit/context';
import { diffFields, pickFields } from './kit/diff';
import {
  CheckedExpressionSchema,
  RULE_ARGS,
  bestEffort,
  filterReads,
  firewallStep,
  firewallWrite,
  isConflictError,
  isDuplicateFilterError,
  normalizeField,
} from './kit/firewall';
import { ProviderError, unlessNotFound, type Implementation } from './kit/implementation';
import { nameOf } from './kit/ownership';
import { FirewallFilterKind, diffPlan, label as kindLabel } from '../kinds';

const RESOURCE = FirewallFilterKind.kind;
const DIFF = diffPlan(FirewallFilterKind);

/** Inputs of a FirewallFilter, as `check` validates them. */
export const FirewallFilterArgsSchema = z
  .object({
    zoneId: ZoneIdSchema,
    expression: CheckedExpressionSchema,
    // A filter's description, paused and ref have a rule's limits and defaults (docs/service.md#filters).
    description: RULE_ARGS.description,
    paused: RULE_ARGS.paused,
    ref: RULE_ARGS.ref,
    adoptFilterId: HexIdSchema.optional(),
  })
  .strict();
export type FirewallFilterInputs = z.output<typeof FirewallFilterArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the filter's id. */
export type FirewallFilterOutputs = FirewallFilterInputs & { filterId: string };

/** A filter's fields, in the service's names and the provider's alike: the create and update bodies and the diff. */
export const FILTER_FIELDS = ['expression', 'description', 'paused', 'ref'] as const;

/**
 * Every field changes in place (PUT /filters/{id}): a new expression applies at once to every rule that references
 * the filter, which keep their ids (docs/service.md#filters). Only another zone is another filter.
 */

/** The create (and update) body: every field as declared. */
export function filterBody(inputs: FirewallFilterInputs): Required<FilterCreate> {
  return pickFields(inputs, FILTER_FIELDS);
}

/** The service's answer in the provider's names; absent optional fields read as their defaults. */
export function outputsFromFilter(zoneId: string, filter: Filter, adoptFilterId?: string): FirewallFilterOutputs {
  return {
    zoneId,
    expression: filter.expression,
    description: filter.description ?? '',
    paused: filter.paused,
    ref: filter.ref ?? '',
    filterId: filter.id,
    ...(adoptFilterId ? { adoptFilterId } : {}),
  };
}

/** The inputs a read reports, so a preview after refresh is clean: the outputs without the id the service assigns. */
export function inputsFromOutputs(outputs: FirewallFilterOutputs): FirewallFilterInputs {
  const { filterId: _filterId, ...inputs } = outputs;
  return inputs;
}

/** Diff of the declared inputs against the state: every field in place, a new zone replaces. */
export function diffFirewallFilter(olds: Record<string, unknown>, news: Record<string, unknown>) {
  return diffFields(olds, news, DIFF, normalizeField);
}

/** Whether the outputs already hold the declared fields (an adoption then writes nothing). */
export function filterMatches(current: FirewallFilterOutputs, desired: FirewallFilterInputs): boolean {
  return !diffFirewallFilter(current, desired).changes;
}

const label = (inputs: { zoneId?: unknown }, name: string | undefined, id?: string) => kindLabel(RESOURCE, inputs, name, id);

/**
 * The message of a create refused because a filter with this expression exists (10102): which one, and the ways
 * out, aliases first (a renamed resource), adoption for a filter made outside the stack only. Pure.
 */
export function existingFilterMessage(zoneId: string, name: string | undefined, filterIds: readonly string[], serviceMessage: string): string {
  const [first] = filterIds;
  const me = label({ zoneId }, name);
  const which = filterIds.length > 0 ? `filter ${filterIds.join(', ')} of this zone already has this expression` : 'a filter of this zone already has this expression';
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
    `${label({ zoneId }, name, filterId)}: not deleted: ${users} still references it (${serviceMessage}). Delete those rules or point ` +
    `them at another filter, then run the destroy again; or keep the filter and take the resource out of the stack without a ` +
    `delete: pulumi state delete <urn>, or retainOnDelete: true`
  );
}

/** The message of a change refused because the filter was created with its rule in one call (10027). Pure. */
export function lockedFilterMessage(zoneId: string, name: string | undefined, filterId: string, serviceMessage: string): string {
  return (
    `${label({ zoneId }, name, filterId)}: the filter was created together with its rule in one call and belongs to that rule ` +
    `(${serviceMessage}); it cannot be changed on its own. Manage that rule as a FirewallRuleWithFilter, or declare a new ` +
    `FirewallFilter (without adoptFilterId) with its own expression`
  );
}

/** The exact filters with `expression` (the service's expression query matches substrings). */
async function filtersWithExpression(zoneId: string, expression: string): Promise<string[]> {
  const found = await getClient().filters.list({ zoneId, expression }).toArray();
  return found.filter((filter) => filter.expression === expression).map((filter) => filter.id);
}

async function createFilter(inputs: FirewallFilterInputs): Promise<Filter> {
  const { zoneId } = inputs;
  try {
    const [filter] = await getClient().filters.create({ zoneId, filters: [filterBody(inputs)] });
    if (!filter) throw new ProviderError(`${label(inputs, nameOf(inputs))}: the service answered the create with no filter`);
    return filter;
  } catch (error) {
    if (!isDuplicateFilterError(error)) throw error;
    const existing = await bestEffort(() => filtersWithExpression(zoneId, inputs.expression), []);
    throw new ProviderError(existingFilterMessage(zoneId, nameOf(inputs), existing, error.message), { cause: error });
  }
}

/** Takes over an existing filter by id and brings it to the declared fields (no write when it already matches). */
async function adoptFilter(inputs: FirewallFilterInputs, filterId: string): Promise<Filter> {
  const { zoneId } = inputs;
  const client = getClient();
  const existing = await unlessNotFound(() => client.filters.get({ zoneId, filterId }), undefined);
  if (!existing) {
    throw new ProviderError(
      `${label(inputs, nameOf(inputs))}: adoptFilterId ${filterId} names no filter of this zone; check the id, or remove adoptFilterId to create a new filter`,
    );
  }
  if (filterMatches(outputsFromFilter(zoneId, existing), inputs)) return existing;
  return updateFilter(inputs, filterId);
}

async function updateFilter(inputs: FirewallFilterInputs, filterId: string): Promise<Filter> {
  const { zoneId } = inputs;
  try {
    return await getClient().filters.update({ zoneId, filterId, ...filterBody(inputs) });
  } catch (error) {
    if (isConflictError(error)) throw new ProviderError(lockedFilterMessage(zoneId, nameOf(inputs), filterId, error.message), { cause: error });
    if (isDuplicateFilterError(error)) {
      const existing = await bestEffort(() => filtersWithExpression(zoneId, inputs.expression), []);
      throw new ProviderError(existingFilterMessage(zoneId, nameOf(inputs), existing, error.message), { cause: error });
    }
    throw error;
  }
}

/** The rules of the zone that reference a filter. */
export function rulesReferencing(rules: readonly FirewallRule[], filterId: string): string[] {
  return rules.filter((rule) => rule.filter.id === filterId).map((rule) => rule.id);
}

export const firewallFilter: Implementation = {
  configure,

  async check(_olds, news) {
    assertConfigured();
    return checkWithSchema(FirewallFilterArgsSchema, news, RESOURCE);
  },

  async diff(_id, olds, news) {
    return diffFirewallFilter(olds, news);
  },

  async create(raw) {
    const inputs = raw as FirewallFilterInputs;
    const { adoptFilterId } = inputs;
    const filter = await firewallWrite(inputs.zoneId, () =>
      adoptFilterId
        ? firewallStep(`${label(inputs, nameOf(inputs), adoptFilterId)}: adopting the filter`, () => adoptFilter(inputs, adoptFilterId))
        : firewallStep(`${label(inputs, nameOf(inputs))}: creating the filter`, () => createFilter(inputs)),
    );
    return { id: filter.id, outs: outputsFromFilter(inputs.zoneId, filter, adoptFilterId) };
  },

  async read(id, props) {
    const recorded = props as FirewallFilterOutputs;
    const filter = await firewallStep(`${label(recorded, nameOf(props), id)}: reading the filter`, () => filterReads.read(recorded.zoneId, id));
    // Deleted out of band: a blank id takes it out of the state.
    if (!filter) return { id: '' };
    const outs = outputsFromFilter(recorded.zoneId, filter, recorded.adoptFilterId);
    return { id, props: outs, inputs: inputsFromOutputs(outs) };
  },

  async update(id, _olds, news) {
    const desired = news as FirewallFilterInputs;
    const filter = await firewallWrite(desired.zoneId, () =>
      firewallStep(`${label(desired, nameOf(news), id)}: updating the filter`, () => updateFilter(desired, id)),
    );
    return { outs: outputsFromFilter(desired.zoneId, filter, desired.adoptFilterId) };
  },

  async delete(id, props) {
    const { zoneId } = props as FirewallFilterOutputs;
    const client = getClient();
    await firewallWrite(zoneId, () => firewallStep(`${label(props, nameOf(props), id)}: deleting the filter`, async () => {
      try {
        await unlessNotFound(() => client.filters.delete({ zoneId, filterId: id }), undefined);
      } catch (error) {
        if (!isConflictError(error)) throw error;
        // The stack's own rules were deleted before (they depend on the filter): whoever still uses it is outside.
        const users = await bestEffort(async () => rulesReferencing(await client.firewallRules.list({ zoneId }).toArray(), id), []);
        throw new ProviderError(filterInUseMessage(zoneId, nameOf(props), id, users, error.message), { cause: error });
      }
    }));
  },
};
