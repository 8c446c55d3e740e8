import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context';
import { params, zoneOf } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { listDetected } from '../listing';

/** GET /zones/{zone_id}/page_guard/connections and /connections/{connection_id}. */
export function registerConnectionRoutes(api: FastifyInstance, context: EmulatorContext): void {
  api.get('/zones/:zone_id/page_guard/connections', async (request) => {
    const zone = zoneOf(context, request);
    const { result, resultInfo } = listDetected('connections', context.state.collections.connections.list(zone.id), request.query);
    return okEnvelope(result, resultInfo);
  });

  api.get('/zones/:zone_id/page_guard/connections/:connection_id', async (request) => {
    const zone = zoneOf(context, request);
    const id = params(request).connection_id ?? '';
    const item = context.state.collections.connections.get(zone.id, id);
    if (!item) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('connection', id));
    return okEnvelope(item);
  });
}
