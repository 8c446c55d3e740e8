import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { cspEnabledToWire, type CspPolicyWire } from '../../schemas';
import { CspPolicyCreateSchema, CspPolicyUpdateSchema } from '../../schemas/csp-policy';
import { params, parseBody, parseQuery, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { validateExpression } from '../expression';
import { newId } from '../ids';
import { onePageInfo } from '../listing';

/** A policy on the wire: `enabled` in its text form (docs/service.md#policy-enabled). */
function toWire(policy: CspPolicyWire) {
  return { ...policy, enabled: cspEnabledToWire(policy.enabled) };
}

function assertValidExpression(expression: string | undefined): void {
  if (expression === undefined) return;
  const problem = validateExpression(expression);
  if (problem !== undefined) throw ServiceError.of(400, ErrorCode.validation, `expression: ${problem}`);
}

/** The policies list's query: none. */
const NoQuerySchema = z.object({}).strict();

/** CRUD of /zones/{zone_id}/page_guard/policies: ids assigned here, PUT a partial update, DELETE 204. */
export function registerCspPolicyRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const find = (zoneId: string, id: string): CspPolicyWire => {
    const policy = context.state.collections.cspPolicies.get(zoneId, id);
    if (!policy) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('policy', id));
    return policy;
  };

  api.get('/zones/:zone_id/page_guard/policies', async (request) => {
    const zone = zoneOf(context, request);
    // The public API's list takes no parameter (docs/service.md#csp-policies): any one is refused, as the other lists
    // refuse a parameter they do not take, never ignored.
    const raw = query(request);
    parseQuery(NoQuerySchema, Object.fromEntries(Object.keys(raw).map((key) => [key, single(raw[key])])));
    const policies = context.state.collections.cspPolicies.list(zone.id).map(toWire);
    // The list takes no paging parameters (none shown): one page holding every policy.
    return okEnvelope(policies, onePageInfo(policies.length));
  });

  api.get('/zones/:zone_id/page_guard/policies/:policy_id', async (request) => {
    const zone = zoneOf(context, request);
    return okEnvelope(toWire(find(zone.id, params(request).policy_id ?? '')));
  });

  api.post('/zones/:zone_id/page_guard/policies', async (request) => {
    const zone = zoneOf(context, request);
    const body = parseBody(CspPolicyCreateSchema, request.body);
    assertValidExpression(body.expression);
    const policy = context.state.collections.cspPolicies.set(zone.id, { id: newId(), ...body });
    return okEnvelope(toWire(policy));
  });

  api.put('/zones/:zone_id/page_guard/policies/:policy_id', async (request) => {
    const zone = zoneOf(context, request);
    const current = find(zone.id, params(request).policy_id ?? '');
    const { id: bodyId, ...body } = parseBody(CspPolicyUpdateSchema, request.body);
    // As for rules and filters: a body naming another policy is refused, not applied to the one in the path.
    if (bodyId !== undefined && bodyId !== current.id) throw ServiceError.of(400, ErrorCode.validation, Messages.idMismatch(bodyId, current.id));
    assertValidExpression(body.expression);
    const defined = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    const policy = context.state.collections.cspPolicies.set(zone.id, { ...current, ...defined, id: current.id });
    return okEnvelope(toWire(policy));
  });

  api.delete('/zones/:zone_id/page_guard/policies/:policy_id', async (request, reply: FastifyReply) => {
    const zone = zoneOf(context, request);
    const policy = find(zone.id, params(request).policy_id ?? '');
    context.state.collections.cspPolicies.delete(zone.id, policy.id);
    // The public API answers 204 with no body.
    return reply.code(204).send();
  });
}
