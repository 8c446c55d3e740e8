import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context';
import { params, zoneOf } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { listDetected } from '../listing';

/** GET /zones/{zone_id}/page_guard/scripts and /scripts/{script_id}. */
export function registerScriptRoutes(api: FastifyInstance, context: EmulatorContext): void {
  api.get('/zones/:zone_id/page_guard/scripts', async (request) => {
    const zone = zoneOf(context, request);
    const { result, resultInfo } = listDetected('scripts', context.state.collections.scripts.list(zone.id), request.query);
    // page_urls and versions come only with the single-script read (spec).
    return okEnvelope(
      result.map(({ page_urls: _pages, versions: _versions, ...script }) => script),
      resultInfo,
    );
  });

  api.get('/zones/:zone_id/page_guard/scripts/:script_id', async (request) => {
    const zone = zoneOf(context, request);
    const id = params(request).script_id ?? '';
    const script = context.state.collections.scripts.get(zone.id, id);
    if (!script) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('script', id));
    return okEnvelope(script);
  });
}
