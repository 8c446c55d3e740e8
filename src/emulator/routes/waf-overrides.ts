import type { FastifyInstance } from 'fastify';
import { WafOverrideCreateSchema } from '../../schemas/waf-overrides';
import { pageOf, params, parseBody, query, zoneOf, type EmulatorContext } from '../context';
import { newId } from '../ids';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { assertPreviousWafAvailable } from '../waf';

/** /zones/{zone_id}/firewall/waf/overrides: the previous WAF's URI-based overrides (list, get, delete). */
export function registerWafOverrideRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  const available = (zoneId: string) => assertPreviousWafAvailable(state.waf.get(zoneId), zoneId, context.now());

  api.get('/zones/:zone_id/firewall/waf/overrides', async (request) => {
    const zone = zoneOf(context, request);
    available(zone.id);
    return okEnvelope(pageOf(state.collections.wafOverrides.list(zone.id), query(request), { perPage: 50 }));
  });

  api.get('/zones/:zone_id/firewall/waf/overrides/:override_id', async (request) => {
    const zone = zoneOf(context, request);
    available(zone.id);
    const id = params(request).override_id ?? '';
    const override = state.collections.wafOverrides.get(zone.id, id);
    if (!override) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('WAF override', id));
    return okEnvelope(override);
  });

  // URI-based overrides are creatable by API only, and each one keeps the zone from migrating until it is deleted.
  api.post('/zones/:zone_id/firewall/waf/overrides', async (request) => {
    const zone = zoneOf(context, request);
    available(zone.id);
    const body = parseBody(WafOverrideCreateSchema, request.body);
    const override = state.collections.wafOverrides.set(zone.id, { id: newId(), ...body });
    return okEnvelope(override);
  });

  // Deleting the URI-based overrides is what makes a zone compatible with the migration.
  api.delete('/zones/:zone_id/firewall/waf/overrides/:override_id', async (request) => {
    const zone = zoneOf(context, request);
    available(zone.id);
    const id = params(request).override_id ?? '';
    if (!state.collections.wafOverrides.delete(zone.id, id)) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('WAF override', id));
    return okEnvelope({ id });
  });
}
