import { z } from 'zod';
import { ConflictError, NotFoundError } from '../client/errors';
import {
  type Filter,
  type FirewallRuleWire,
  type FirewallRuleCreateItem,
  type FirewallRuleUpdate,
} from '../schemas';
import type { Context } from './kit/context';
import { diffFields } from './kit/diff';
import { firewallObject, firewallStep, isDuplicateFilterError, isQuotaError, normalizeFieldOf, productsFailures, ruleReads } from './kit/firewall';
import { FirewallRuleCreateItemSchema, FirewallRuleSchema, FirewallRuleUpdateSchema } from '../schemas/firewall-rules';
import { ProviderError, unlessNotFound } from './kit/implementation';
import { describeHolder, heldByAnother } from './kit/ownership';
import { objectKind, type Removal } from './kit/flow';
import { markerIn, splitMarked } from '../schemas/owner-marker';
import { FirewallRuleKind, FirewallRuleWithFilterKind, diffPlan, inputsOfOutputs, label as kindLabel, outputsOf, requestOf } from '../kinds';

export { RETIRED_API_HINT, isDuplicateFilterError, isQuotaError } from './kit/firewall';

const RESOURCE = FirewallRuleWithFilterKind.kind;

/** Inputs of a FirewallRuleWithFilter, as `check` validates them (src/kinds). `products` against `action` is checked apart. */
export const FirewallRuleWithFilterArgsSchema = FirewallRuleWithFilterKind.args;
export type FirewallRuleWithFilterInputs = z.output<typeof FirewallRuleWithFilterArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the rule's and its filter's ids. */
export type FirewallRuleWithFilterOutputs = FirewallRuleWithFilterInputs & { ruleId: string; filterId: string };

// A new zone or expression is another rule: the filter of a single-call rule is locked (src/kinds).
const DIFF = diffPlan(FirewallRuleWithFilterKind);

/**
 * The single-call create item: the filter by expression, so the service creates it with the rule, marked as the
 * rule's in its ref, so a filter a refused create leaves is known as this resource's (docs/ownership.md).
 */
export function singleCallItem(inputs: FirewallRuleWithFilterInputs): FirewallRuleCreateItem {
  // The owner marker the rule's ref carries (kit/marker.ts wrote it into the inputs), if any.
  const marker = markerIn(inputs, 'ref');
  const item = requestOf(FirewallRuleCreateItemSchema, FirewallRuleWithFilterKind, inputs);
  return marker ? { ...item, filter: { expression: inputs.expression, ref: marker } } : item;
}

/** The create item on a filter that already exists (the one a quota failure left behind). */
export function onFilterItem(inputs: FirewallRuleWithFilterInputs, filterId: string): FirewallRuleCreateItem {
  return requestOf(FirewallRuleCreateItemSchema, FirewallRuleKind, { ...inputs, filterId });
}

/** The body of the PUT that brings a rule to the declared fields; the filter stays, referenced by id. */
export function ruleUpdateBody(inputs: FirewallRuleWithFilterInputs, filterId: string): Omit<FirewallRuleUpdate, 'id'> {
  return requestOf(FirewallRuleUpdateSchema, FirewallRuleKind, { ...inputs, filterId });
}

/** The service's answer in the provider's names. Absent optional fields read as their defaults. */
export function outputsFromRule(zoneId: string, rule: FirewallRuleWire, adoptRuleId?: string): FirewallRuleWithFilterOutputs {
  return outputsOf(FirewallRuleWithFilterKind, zoneId, rule, adoptRuleId);
}

/** The inputs a read reports, so a preview after refresh is clean: the outputs without the ids the service assigns. */
export function inputsFromOutputs(outputs: FirewallRuleWithFilterOutputs): FirewallRuleWithFilterInputs {
  return inputsOfOutputs(FirewallRuleWithFilterKind, outputs);
}

const normalize = normalizeFieldOf(FirewallRuleWithFilterKind, FirewallRuleSchema);

/**
 * Diff of the declared inputs against the state: action, paused, priority, description, ref and products change
 * in place; a new zone or expression replaces the rule, the new one created before the old one is deleted (the
 * engine's default order), so the zone is never unprotected.
 */
export function diffFirewallRuleWithFilter(olds: Record<string, unknown>, news: Record<string, unknown>) {
  return diffFields(olds, news, DIFF, normalize);
}

/**
 * A filter with exactly `expression` that no rule references: one a quota failure (or an out-of-band rule delete)
 * left. With `marker`, only one whose ref carries that marker: the resource's own (docs/ownership.md); without, any.
 */
export function orphanFilter(filters: readonly Filter[], rules: readonly FirewallRuleWire[], expression: string, marker?: string): Filter | undefined {
  const used = new Set(rules.map((rule) => rule.filter.id));
  return filters.find(
    (filter) => filter.expression === expression && !used.has(filter.id) && (marker === undefined || splitMarked(filter.ref).marker === marker),
  );
}

/** The message of a create refused because a filter of the expression exists, unused, and not this resource's. Pure. */
export function foreignFilterMessage(zoneId: string, name: string | undefined, filter: Filter, serviceMessage: string): string {
  const marker = splitMarked(filter.ref).marker;
  const whose = marker ? `marked by another owner (${marker})` : 'not marked as this resource\'s';
  return (
    `${kindLabel(RESOURCE, { zoneId }, name)}: filter ${filter.id} of this zone already has this expression and no rule, and it is ${whose} (${serviceMessage}). ` +
    `Nothing was changed. If it is yours, declare a FirewallFilter with adoptFilterId: '${filter.id}' and a FirewallRule on it; ` +
    `if it is nobody's, delete it (zoneguard orphans lists it) and run pulumi up again. Or change the expression`
  );
}

/** The rules that reference a filter with exactly `expression`. */
export function rulesUsingExpression(rules: readonly FirewallRuleWire[], expression: string): string[] {
  return rules.filter((rule) => rule.filter.expression === expression).map((rule) => rule.id);
}

/** The message of a create refused by the rule quota: what was kept, and what to do. Pure. */
export function quotaMessage(zoneId: string, serviceMessage: string, keptFilterId: string | undefined): string {
  const head = `${kindLabel(RESOURCE, { zoneId }, undefined)}: the zone's firewall rule quota is exceeded, no rule was created (${serviceMessage}). `;
  if (!keptFilterId) {
    return head + 'Free a rule slot (delete a rule you no longer need, or raise the quota) and run pulumi up again.';
  }
  return (
    head +
    `The service kept the rule's filter ${keptFilterId} without a rule. Free a rule slot (delete a rule you no longer need, ` +
    `or raise the quota) and run pulumi up again: the rule will be created on filter ${keptFilterId}, with no duplicate ` +
    `and no orphan. To give up instead, delete the filter: DELETE /zones/${zoneId}/filters/${keptFilterId}`
  );
}

/**
 * The message of a create refused because a rule of the zone already matches the expression (10102). A rename is
 * the usual cause, and `aliases` its safe answer: an adoption in the same run as the old resource's removal would
 * make one rule held by two resources. So aliases first, with the snippet; adoption second, for rules made outside
 * the stack only. Pure.
 */
export function existingRuleMessage(zoneId: string, name: string | undefined, ruleIds: readonly string[], serviceMessage: string): string {
  const [first] = ruleIds;
  return (
    `${kindLabel(RESOURCE, { zoneId }, name)}: firewall rule ${ruleIds.join(', ')} of this zone already matches this expression (${serviceMessage}). ` +
    `If this resource is one of this stack renamed, give it its old name as an alias, and the rule stays as it is: ` +
    `{ aliases: [{ name: '<old name>' }] } in its resource options. Only if no resource of this stack holds rule ${first} ` +
    `(made outside the stack, or by an interrupted run: zoneguard orphans lists those), take it over with ` +
    `adoptRuleId: '${first}'. Or change the expression`
  );
}

async function filtersWithExpression(ctx: Context, zoneId: string, expression: string): Promise<Filter[]> {
  // The service's expression filter matches substrings: keep the exact ones.
  const found = await ctx.client.filters.list({ zoneId, expression }).toArray();
  return found.filter((filter) => filter.expression === expression);
}

async function zoneRules(ctx: Context, zoneId: string): Promise<FirewallRuleWire[]> {
  return ctx.client.firewallRules.list({ zoneId }).toArray();
}

/** After a quota failure: the filter the service kept, if it can be found (best effort: the error comes first). */
async function keptFilterId(ctx: Context, zoneId: string, expression: string, marker: string | undefined): Promise<string | undefined> {
  try {
    return orphanFilter(await filtersWithExpression(ctx, zoneId, expression), await zoneRules(ctx, zoneId), expression, marker)?.id;
  } catch {
    return undefined;
  }
}

/** Creates the rule; on a duplicate filter, creates it on that filter when no rule uses it. */
async function createRule(ctx: Context, inputs: FirewallRuleWithFilterInputs): Promise<FirewallRuleWire> {
  const { zoneId, expression } = inputs;
  const marker = markerIn(inputs, 'ref');
  const createOn = async (item: FirewallRuleCreateItem) => {
    try {
      const [rule] = await ctx.client.firewallRules.create({ zoneId, rules: [item] });
      if (!rule) throw new ProviderError(`${ctx.label()}: the service answered the create with no rule`);
      return rule;
    } catch (error) {
      if (isQuotaError(error)) {
        throw new ProviderError(quotaMessage(zoneId, error.message, await keptFilterId(ctx, zoneId, expression, marker)), { cause: error });
      }
      throw error;
    }
  };
  try {
    return await createOn(singleCallItem(inputs));
  } catch (error) {
    if (!isDuplicateFilterError(error)) throw error;
    // A filter with this expression exists: left by an earlier quota failure, or by a rule deleted without it.
    // Reusing it by id is what docs/service.md#rule-quota allows; a filter some rule still uses is another rule's.
    const filters = await filtersWithExpression(ctx, zoneId, expression);
    const rules = await zoneRules(ctx, zoneId);
    // Only this resource's own (its marker in the filter's ref): another stack's FirewallFilter may hold an unused one.
    const own = orphanFilter(filters, rules, expression, marker);
    if (own) return createOn(onFilterItem(inputs, own.id));
    const users = rulesUsingExpression(rules, expression);
    if (users.length > 0) throw new ProviderError(existingRuleMessage(zoneId, ctx.name, users, error.message), { cause: error });
    const foreign = orphanFilter(filters, rules, expression);
    if (foreign) throw new ProviderError(foreignFilterMessage(zoneId, ctx.name, foreign, error.message), { cause: error });
    throw error;
  }
}

/** Takes over an existing rule by id; its expression must be the declared one, since the filter cannot change. */
async function adoptRule(ctx: Context, inputs: FirewallRuleWithFilterInputs, ruleId: string): Promise<FirewallRuleWire> {
  const { zoneId } = inputs;
  const client = ctx.client;
  const existing = await unlessNotFound(() => client.firewallRules.get({ zoneId, ruleId }), undefined);
  if (!existing) {
    throw new ProviderError(
      `${ctx.label()}: adoptRuleId ${ruleId} names no firewall rule of this zone; check the id, or remove adoptRuleId to create a new rule`,
    );
  }
  if (existing.filter.expression !== inputs.expression) {
    throw new ProviderError(
      `${ctx.label()}: rule ${ruleId} matches ${JSON.stringify(existing.filter.expression)}, not the declared ` +
        `expression ${JSON.stringify(inputs.expression)}, and the filter of a rule created in a single call cannot be ` +
        `changed. Declare expression: ${JSON.stringify(existing.filter.expression)} to adopt the rule as it is, or ` +
        `remove adoptRuleId to create a new rule (and delete rule ${ruleId} yourself)`,
    );
  }
  const current = outputsFromRule(zoneId, existing);
  const desired = { ...inputs, ruleId, filterId: existing.filter.id };
  const same = DIFF.fields.every((field) => JSON.stringify(normalize(field, current[field])) === JSON.stringify(normalize(field, desired[field])));
  if (same) return existing;
  return client.firewallRules.update({ zoneId, ruleId, ...ruleUpdateBody(inputs, existing.filter.id) });
}

/**
 * The delete of the rule and of its filter with it: a rule deleted alone leaves its filter, and recreating it then
 * fails with 10102. A filter another resource of this run took over (a FirewallFilter adopting it, to switch forms)
 * stays.
 */
function removal(ctx: Context, ruleId: string, props: FirewallRuleWithFilterOutputs): Removal {
  const { zoneId, filterId } = props;
  const keeper = filterId ? heldByAnother('filter', filterId, RESOURCE, props) : undefined;
  if (keeper) console.error(`zoneguard: ${ctx.label(ruleId)}: keeping filter ${filterId}: ${describeHolder(keeper.kind, keeper.name)} holds it`);
  return {
    what: `deleting the rule${keeper ? '' : ' and its filter'}`,
    call: () => ctx.client.firewallRules.delete({ zoneId, ruleId, deleteFilterIfUnused: !keeper }),
    // The rule was already gone: remove the filter it may have left, unless another rule uses it (409).
    ifGone: async () => {
      if (!filterId || keeper) return;
      await firewallStep(`${ctx.label(ruleId)}: deleting the filter ${filterId} the rule left`, async () => {
        try {
          await ctx.client.filters.delete({ zoneId, filterId });
        } catch (error) {
          if (error instanceof NotFoundError || error instanceof ConflictError) return;
          throw error;
        }
      });
    },
  };
}

export const firewallRuleWithFilter = objectKind<FirewallRuleWire, FirewallRuleWithFilterInputs, FirewallRuleWithFilterOutputs>({
  ...firewallObject(RESOURCE, 'the rule', ruleReads),
  multiline: ['expression'],
  failures: (news) => productsFailures(RESOURCE, news),
  normalize,
  adopting: (inputs) => inputs.adoptRuleId,
  adopt: adoptRule,
  create: createRule,
  creating: () => 'creating the rule with its filter',
  update: (ctx, inputs, ruleId, { filterId }) => ctx.client.firewallRules.update({ zoneId: inputs.zoneId, ruleId, ...ruleUpdateBody(inputs, filterId) }),
  remove: removal,
  // A rule deleted out of band leaves the state at its read; a filter it left behind is reused by the next create.
  outputs: (rule, declared) => outputsFromRule(declared.zoneId, rule, declared.adoptRuleId),
});
