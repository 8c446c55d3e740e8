import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { FirewallActionSchema, productsProblem, type FirewallRulePatch, type ErrorItem, type FirewallRuleDeleteResult } from '../../schemas';
import {
  FirewallRuleCreateBodySchema,
  FirewallRuleBulkPatchSchema,
  FirewallRuleBulkUpdateSchema,
  FirewallRulePatchSchema,
  FirewallRuleUpdateSchema,
} from '../../schemas/firewall-rules';
import { booleanQuery, firewallListQuery, pageOf, params, parseBody, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { expressionProblems, lockingRule, ruleToWire, rulesUsing } from '../firewall';
import { newId } from '../ids';
import type { EmulatorState, FilterRecord, RuleRecord } from '../state';

/** `products` goes with bypass and only with it (productsProblem of src/schemas). */
function productsItem(field: string, action: string, products: unknown[] | undefined): ErrorItem | undefined {
  const problem = productsProblem(action, products);
  if (problem === undefined) return undefined;
  return { code: ErrorCode.validation, message: problem === 'required' ? Messages.productsRequired(field) : Messages.productsRefused(field) };
}

const DeleteBodySchema = z.object({ delete_filter_if_unused: z.boolean().optional() });

/** The rule of the zone, or 404. */
function findRule(state: EmulatorState, zoneId: string, id: string): RuleRecord {
  const rule = state.collections.firewallRules.get(zoneId, id);
  if (!rule) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('firewall rule', id));
  return rule;
}

/** A filter created with its rule in one call belongs to that rule: no other rule may reference it (docs/service.md#single-call-filter). */
function assertNotLocked(state: EmulatorState, zoneId: string, references: { field: string; filterId: string }[]): void {
  for (const { field, filterId } of references) {
    const filter = state.collections.filters.get(zoneId, filterId);
    const owner = filter && lockingRule(state, zoneId, filter);
    if (owner) throw ServiceError.of(409, ErrorCode.conflict, Messages.filterHeldByRule(field, filterId, owner.id));
  }
}

/** /zones/{zone_id}/firewall/rules: the single-call create, list, and get/update/delete of one rule. */
export function registerFirewallRuleRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  api.get('/zones/:zone_id/firewall/rules', async (request) => {
    const { zone, q, id, description, paused } = firewallListQuery(context, request);
    const action = single(q.action);
    if (action !== undefined && !FirewallActionSchema.safeParse(action).success) {
      throw ServiceError.of(400, ErrorCode.validation, `action: must be one of ${FirewallActionSchema.options.join(', ')}`);
    }
    const rules = state.collections.firewallRules
      .list(zone.id)
      .filter((r) => (id === undefined || r.id === id) && (action === undefined || r.action === action))
      .filter((r) => (paused === undefined || r.paused === paused) && (description === undefined || (r.description ?? '').includes(description)));
    return okEnvelope(pageOf(rules, q, { perPage: 25 }).map((rule) => ruleToWire(state, zone.id, rule)));
  });

  api.get('/zones/:zone_id/firewall/rules/:rule_id', async (request) => {
    const zone = zoneOf(context, request);
    return okEnvelope(ruleToWire(state, zone.id, findRule(state, zone.id, params(request).rule_id ?? '')));
  });

  // The single-call form and the second call of the two-call form. Everything is checked before anything is
  // created, so an invalid item anywhere creates nothing; only the rule quota can leave filters without rules.
  api.post('/zones/:zone_id/firewall/rules', async (request) => {
    const zone = zoneOf(context, request);
    if (request.body !== undefined && !Array.isArray(request.body)) {
      throw ServiceError.of(400, ErrorCode.validation, 'request body: must be a JSON array of rules, even for one rule');
    }
    const items = parseBody(FirewallRuleCreateBodySchema, request.body);
    const problems: ErrorItem[] = [];
    const newExpressions: { index: number; expression: string }[] = [];
    items.forEach((item, index) => {
      const products = productsItem(`${index}.products`, item.action, item.products);
      if (products) problems.push(products);
      if ('expression' in item.filter) newExpressions.push({ index, expression: item.filter.expression });
      else if (!state.collections.filters.get(zone.id, item.filter.id)) {
        problems.push({ code: ErrorCode.validation, message: Messages.filterReference(`${index}.filter.id`, item.filter.id) });
      }
    });
    assertNotLocked(state, zone.id, items.flatMap((item, index) => ('id' in item.filter ? [{ field: `${index}.filter.id`, filterId: item.filter.id }] : [])));
    problems.push(...expressionProblems(state, zone.id, newExpressions, (i) => `${i}.filter.expression`));
    if (problems.length > 0) throw new ServiceError(400, problems);

    const existing = state.collections.firewallRules.count(zone.id);
    const overQuota = existing + items.length > zone.ruleQuota;
    const created = items.map((item) => {
      const ruleId = newId();
      let filterId: string;
      if ('expression' in item.filter) {
        const filter: FilterRecord = {
          id: newId(),
          expression: item.filter.expression,
          paused: item.filter.paused ?? false,
          ...(item.filter.description !== undefined ? { description: item.filter.description } : {}),
          ...(item.filter.ref !== undefined ? { ref: item.filter.ref } : {}),
          // A filter whose rule is refused by the quota belongs to no rule: it can be referenced or deleted later.
          ...(overQuota ? {} : { ownerRuleId: ruleId }),
        };
        state.collections.filters.set(zone.id, filter);
        filterId = filter.id;
      } else {
        filterId = item.filter.id;
      }
      const { filter: _filter, ...fields } = item;
      return { ...fields, id: ruleId, paused: item.paused ?? false, priority: item.priority ?? null, filterId } satisfies RuleRecord;
    });
    if (overQuota) {
      const filterIds = created.filter((_, i) => 'expression' in (items[i]?.filter ?? {})).map((rule) => rule.filterId);
      throw ServiceError.of(400, ErrorCode.ruleQuotaExceeded, Messages.ruleQuotaExceeded(zone.id, zone.plan, zone.ruleQuota, existing, filterIds));
    }
    for (const rule of created) state.collections.firewallRules.set(zone.id, rule);
    return okEnvelope(created.map((rule) => ruleToWire(state, zone.id, rule)));
  });

  registerRuleUpdateRoutes(api, context);
}

/** PUT and PATCH of one rule or several at once, and DELETE of one rule. */
function registerRuleUpdateRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  /**
   * The rule `current` becomes with the fields of `body` given (a PUT gives them all, a PATCH some), checked as the
   * single PUT checks them; `at` prefixes the fields named in a refusal (`1.` for the second item of a bulk body).
   */
  const updatedRule = (zoneId: string, current: RuleRecord, body: FirewallRulePatch, at = ''): RuleRecord => {
    const action = body.action ?? current.action;
    const problem = productsItem(`${at}products`, action, body.products ?? (action === 'bypass' ? current.products : undefined));
    if (problem) throw new ServiceError(400, [problem]);
    const filterId = body.filter?.id ?? current.filterId;
    if (!state.collections.filters.get(zoneId, filterId)) {
      throw ServiceError.of(400, ErrorCode.validation, Messages.filterReference(`${at}filter.id`, filterId));
    }
    if (filterId !== current.filterId) assertNotLocked(state, zoneId, [{ field: `${at}filter.id`, filterId }]);
    const { filter: _filter, id: _id, products, ...fields } = body;
    const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const next: RuleRecord = { ...current, ...defined, id: current.id, filterId };
    if (action === 'bypass') next.products = products ?? current.products;
    else delete next.products;
    return next;
  };
  /** Several rules at once, each named by id: every rule is checked before any is saved, or none is. */
  const updateAll = (zoneId: string, items: (FirewallRulePatch & { id: string })[]) => {
    const next = items.map((item, index) => updatedRule(zoneId, findRule(state, zoneId, item.id), item, `${index}.`));
    for (const rule of next) state.collections.firewallRules.set(zoneId, rule);
    return okEnvelope(next.map((rule) => ruleToWire(state, zoneId, rule)));
  };

  api.put('/zones/:zone_id/firewall/rules/:rule_id', async (request) => {
    const zone = zoneOf(context, request);
    const current = findRule(state, zone.id, params(request).rule_id ?? '');
    const body = parseBody(FirewallRuleUpdateSchema, request.body);
    if (body.id !== undefined && body.id !== current.id) throw ServiceError.of(400, ErrorCode.validation, Messages.idMismatch(body.id, current.id));
    const next = updatedRule(zone.id, current, body);
    state.collections.firewallRules.set(zone.id, next);
    return okEnvelope(ruleToWire(state, zone.id, next));
  });

  // The public API answers this one rule's change as a list (its "update priority of a firewall rule").
  api.patch('/zones/:zone_id/firewall/rules/:rule_id', async (request) => {
    const zone = zoneOf(context, request);
    const current = findRule(state, zone.id, params(request).rule_id ?? '');
    const body = parseBody(FirewallRulePatchSchema, request.body ?? {});
    if (body.id !== undefined && body.id !== current.id) throw ServiceError.of(400, ErrorCode.validation, Messages.idMismatch(body.id, current.id));
    return updateAll(zone.id, [{ ...body, id: current.id }]);
  });

  api.put('/zones/:zone_id/firewall/rules', async (request) => updateAll(zoneOf(context, request).id, parseBody(FirewallRuleBulkUpdateSchema, request.body)));

  api.patch('/zones/:zone_id/firewall/rules', async (request) => updateAll(zoneOf(context, request).id, parseBody(FirewallRuleBulkPatchSchema, request.body)));

  api.delete('/zones/:zone_id/firewall/rules/:rule_id', async (request) => {
    const zone = zoneOf(context, request);
    const rule = findRule(state, zone.id, params(request).rule_id ?? '');
    // Older clients send the flag in the query, newer ones in the body: both are read, the body winning.
    const fromQuery = booleanQuery('delete_filter_if_unused', query(request).delete_filter_if_unused);
    const fromBody = request.body === undefined ? undefined : parseBody(DeleteBodySchema, request.body).delete_filter_if_unused;
    const deleteFilter = fromBody ?? fromQuery ?? false;
    state.collections.firewallRules.delete(zone.id, rule.id);
    const unused = rulesUsing(state, zone.id, rule.filterId).length === 0;
    const filterDeleted = deleteFilter && unused && state.collections.filters.delete(zone.id, rule.filterId);
    const result: FirewallRuleDeleteResult = { id: rule.id, filter: { id: rule.filterId, deleted: filterDeleted } };
    return okEnvelope(result);
  });
}
