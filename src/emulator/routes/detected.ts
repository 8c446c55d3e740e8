import type { FastifyInstance } from 'fastify';
import { params, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import type { DetectedKind } from '../../schemas';
import { listDetected, type ListedItem } from '../listing';
import type { Collection } from '../state';

/** What differs between the three detected-item lists: the id parameter, the noun of messages, the list view. */
const DETECTED_ROUTES: readonly { kind: DetectedKind; idParam: string; noun: string; listView?: (item: Record<string, unknown>) => unknown }[] = [
  // page_urls and versions come only with the single-script read (docs/service.md).
  { kind: 'scripts', idParam: 'script_id', noun: 'script', listView: ({ page_urls: _pages, versions: _versions, ...script }) => script },
  { kind: 'connections', idParam: 'connection_id', noun: 'connection' },
  { kind: 'cookies', idParam: 'cookie_id', noun: 'cookie' },
];

/** GET /zones/{zone_id}/page_guard/{scripts,connections,cookies} and one item of each, from one table. */
export function registerDetectedRoutes(api: FastifyInstance, context: EmulatorContext): void {
  for (const { kind, idParam, noun, listView } of DETECTED_ROUTES) {
    // The three collections hold different shapes; the lists only read the fields ListedItem names.
    const collection = context.state.collections[kind] as Collection<ListedItem>;
    api.get(`/zones/:zone_id/page_guard/${kind}`, async (request) => {
      const zone = zoneOf(context, request);
      const { result, resultInfo } = listDetected(kind, collection.list(zone.id), request.query);
      return okEnvelope(listView ? result.map((item) => listView(item as unknown as Record<string, unknown>)) : result, resultInfo);
    });

    api.get(`/zones/:zone_id/page_guard/${kind}/:${idParam}`, async (request) => {
      const zone = zoneOf(context, request);
      const id = params(request)[idParam] ?? '';
      const item = collection.get(zone.id, id);
      if (!item) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound(noun, id));
      return okEnvelope(item);
    });
  }
}
