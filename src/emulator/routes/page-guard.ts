import type { FastifyInstance } from 'fastify';
import { PageGuardSettingsUpdateSchema } from '../../schemas/page-guard';
import { parseBody, zoneOf, type EmulatorContext } from '../context';
import { okEnvelope } from '../errors';

/** GET and PUT /zones/{zone_id}/page_guard: the page security settings. */
export function registerPageGuardRoutes(api: FastifyInstance, context: EmulatorContext): void {
  api.get('/zones/:zone_id/page_guard', async (request) => {
    const zone = zoneOf(context, request);
    return okEnvelope(context.state.pageGuard.get(zone.id));
  });

  api.put('/zones/:zone_id/page_guard', async (request) => {
    const zone = zoneOf(context, request);
    const update = parseBody(PageGuardSettingsUpdateSchema, request.body);
    const current = context.state.pageGuard.get(zone.id) ?? { enabled: false };
    // updated_at carries fractional seconds, as the service's do (docs/service.md#envelope).
    const next = { ...current, ...update, updated_at: context.now().toISOString() };
    context.state.pageGuard.set(zone.id, next);
    // The answer holds at least enabled and updated_at (docs/service.md#page-guard-settings); the two other writable
    // fields come along so a caller sees them applied.
    return okEnvelope(next);
  });
}
