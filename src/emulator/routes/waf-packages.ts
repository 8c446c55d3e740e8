import type { FastifyInstance } from 'fastify';
import { pageOf, params, query, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { assertPreviousWafAvailable } from '../waf';

/** /zones/{zone_id}/firewall/waf/packages: the previous WAF's packages (read only here). */
export function registerWafPackageRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;

  api.get('/zones/:zone_id/firewall/waf/packages', async (request) => {
    const zone = zoneOf(context, request);
    assertPreviousWafAvailable(state.waf.get(zone.id), zone.id, context.now());
    return okEnvelope(pageOf(state.collections.wafPackages.list(zone.id), query(request), { perPage: 50 }));
  });

  api.get('/zones/:zone_id/firewall/waf/packages/:package_id', async (request) => {
    const zone = zoneOf(context, request);
    assertPreviousWafAvailable(state.waf.get(zone.id), zone.id, context.now());
    const id = params(request).package_id ?? '';
    const found = state.collections.wafPackages.get(zone.id, id);
    if (!found) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('WAF package', id));
    return okEnvelope(found);
  });
}
