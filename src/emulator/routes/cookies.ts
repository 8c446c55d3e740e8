import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context';
import { params, zoneOf } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { listDetected } from '../listing';

/** GET /zones/{zone_id}/page_guard/cookies and /cookies/{cookie_id}. */
export function registerCookieRoutes(api: FastifyInstance, context: EmulatorContext): void {
  api.get('/zones/:zone_id/page_guard/cookies', async (request) => {
    const zone = zoneOf(context, request);
    const { result, resultInfo } = listDetected('cookies', context.state.collections.cookies.list(zone.id), request.query);
    return okEnvelope(result, resultInfo);
  });

  api.get('/zones/:zone_id/page_guard/cookies/:cookie_id', async (request) => {
    const zone = zoneOf(context, request);
    const id = params(request).cookie_id ?? '';
    const item = context.state.collections.cookies.get(zone.id, id);
    if (!item) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('cookie', id));
    return okEnvelope(item);
  });
}
