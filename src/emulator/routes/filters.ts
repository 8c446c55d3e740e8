import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HexIdSchema } from '../../schemas';
import { FilterBulkUpdateSchema, FilterCreateSchema, FilterUpdateSchema } from '../../schemas/filters';
import { firewallListQuery, pageOf, params, parseBody, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { expressionProblems, filterToWire, lockingRule, rulesUsing } from '../firewall';
import { newId } from '../ids';
import type { FilterRecord } from '../state';

const FilterCreateBodySchema = z.array(FilterCreateSchema).min(1, 'must hold at least one filter');

/** The zone's filter `id`, or the service's not found. */
function findFilter(state: EmulatorContext['state'], zoneId: string, id: string): FilterRecord {
  const filter = state.collections.filters.get(zoneId, id);
  if (!filter) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('filter', id));
  return filter;
}

/** Throws unless the filter may be changed or deleted on its own. */
function assertFree(state: EmulatorContext['state'], zoneId: string, filter: FilterRecord, deleting: boolean): void {
  const owner = lockingRule(state, zoneId, filter);
  if (owner) throw ServiceError.of(409, ErrorCode.conflict, Messages.filterLocked(filter.id, owner.id));
  const users = rulesUsing(state, zoneId, filter.id);
  if (deleting && users.length > 0) throw ServiceError.of(409, ErrorCode.conflict, Messages.filterInUse(filter.id, users.map((r) => r.id)));
}

/** /zones/{zone_id}/filters: the standalone filters API of the recommended two-call flow. */
export function registerFilterRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  const find = (zoneId: string, id: string) => findFilter(state, zoneId, id);

  api.get('/zones/:zone_id/filters', async (request) => {
    const { zone, q, id, description, paused } = firewallListQuery(context, request);
    const expression = single(q.expression);
    const ref = single(q.ref);
    const filters = state.collections.filters
      .list(zone.id)
      .filter((f) => (id === undefined || f.id === id) && (ref === undefined || f.ref === ref) && (paused === undefined || f.paused === paused))
      .filter(
        (f) => (expression === undefined || f.expression.includes(expression)) && (description === undefined || (f.description ?? '').includes(description)),
      );
    return okEnvelope(pageOf(filters, q, { perPage: 25 }).map(filterToWire));
  });

  api.get('/zones/:zone_id/filters/:filter_id', async (request) => {
    const zone = zoneOf(context, request);
    return okEnvelope(filterToWire(find(zone.id, params(request).filter_id ?? '')));
  });

  api.post('/zones/:zone_id/filters', async (request) => {
    const zone = zoneOf(context, request);
    if (request.body !== undefined && !Array.isArray(request.body)) {
      throw ServiceError.of(400, ErrorCode.validation, 'request body: must be a JSON array of filters, even for one filter');
    }
    const items = parseBody(FilterCreateBodySchema, request.body);
    const problems = expressionProblems(state, zone.id, items.map((f, index) => ({ index, expression: f.expression })), (i) => `${i}.expression`);
    if (problems.length > 0) throw new ServiceError(400, problems);
    const created = items.map((item) => state.collections.filters.set(zone.id, { ...item, id: newId(), paused: item.paused ?? false }));
    return okEnvelope(created.map(filterToWire));
  });

  registerFilterChanges(api, context);
}

/** The filters' updates and deletes, one or several at once: each refused while a rule holds the filter. */
function registerFilterChanges(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  const find = (zoneId: string, id: string) => findFilter(state, zoneId, id);

  api.put('/zones/:zone_id/filters/:filter_id', async (request) => {
    const zone = zoneOf(context, request);
    const current = find(zone.id, params(request).filter_id ?? '');
    const body = parseBody(FilterUpdateSchema, request.body);
    if (body.id !== undefined && body.id !== current.id) throw ServiceError.of(400, ErrorCode.validation, Messages.idMismatch(body.id, current.id));
    assertFree(state, zone.id, current, false);
    const problems = expressionProblems(state, zone.id, [{ index: 0, expression: body.expression, exceptFilterId: current.id }], () => 'expression');
    if (problems.length > 0) throw new ServiceError(400, problems);
    const { id: _id, ...fields } = body;
    const next = state.collections.filters.set(zone.id, { ...current, ...fields, paused: body.paused ?? current.paused, id: current.id });
    return okEnvelope(filterToWire(next));
  });

  // Several filters at once, each whole and naming its id: every check passes before any is changed, or none is.
  api.put('/zones/:zone_id/filters', async (request) => {
    const zone = zoneOf(context, request);
    const items = parseBody(FilterBulkUpdateSchema, request.body);
    const currents = items.map((item) => find(zone.id, item.id));
    currents.forEach((current) => assertFree(state, zone.id, current, false));
    const problems = expressionProblems(
      state,
      zone.id,
      items.map((item, index) => ({ index, expression: item.expression, exceptFilterId: item.id })),
      (i) => `${i}.expression`,
    );
    if (problems.length > 0) throw new ServiceError(400, problems);
    const updated = items.map((item, index) =>
      state.collections.filters.set(zone.id, { ...currents[index], ...item, paused: item.paused ?? currents[index]?.paused ?? false }),
    );
    return okEnvelope(updated.map(filterToWire));
  });

  api.delete('/zones/:zone_id/filters/:filter_id', async (request) => {
    const zone = zoneOf(context, request);
    const filter = find(zone.id, params(request).filter_id ?? '');
    assertFree(state, zone.id, filter, true);
    state.collections.filters.delete(zone.id, filter.id);
    return okEnvelope({ id: filter.id });
  });

  // Several filters at once by repeated ?id=: all of them or none.
  api.delete('/zones/:zone_id/filters', async (request) => {
    const zone = zoneOf(context, request);
    const raw = query(request).id;
    const ids = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (ids.length === 0) throw ServiceError.of(400, ErrorCode.validation, 'id: required: one ?id= per filter to delete');
    const filters = ids.map((id) => {
      if (!HexIdSchema.safeParse(id).success) {
        throw ServiceError.of(400, ErrorCode.validation, `id: ${id} must be an identifier: 32 lowercase hexadecimal characters`);
      }
      return find(zone.id, id);
    });
    for (const filter of filters) assertFree(state, zone.id, filter, true);
    for (const filter of filters) state.collections.filters.delete(zone.id, filter.id);
    return okEnvelope(filters.map((f) => ({ id: f.id })));
  });
}
