import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageOf, params, parseQuery, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { assertPreviousWafAvailable } from '../waf';

/**
 * The public API's parameters of the packages list (docs/emulator.md, "The previous WAF"), strict: an unknown one is
 * refused, never ignored. `page` and `per_page` are checked by pageOf.
 */
const PackageListQuerySchema = z
  .object({
    page: z.string().optional(),
    per_page: z.string().optional(),
    name: z.string().max(1024).optional(),
    order: z.enum(['name']).optional(),
    direction: z.enum(['asc', 'desc']).optional(),
    // With one search requirement (name), `all` and `any` select the same packages; the value is still checked.
    match: z.enum(['any', 'all']).optional(),
  })
  .strict();

/** /zones/{zone_id}/firewall/waf/packages: the previous WAF's packages (read only here). */
export function registerWafPackageRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;

  api.get('/zones/:zone_id/firewall/waf/packages', async (request) => {
    const zone = zoneOf(context, request);
    assertPreviousWafAvailable(state.waf.get(zone.id), zone.id, context.now());
    const raw = query(request);
    const q = parseQuery(PackageListQuerySchema, Object.fromEntries(Object.keys(raw).map((key) => [key, single(raw[key])])));
    let packages = state.collections.wafPackages.list(zone.id);
    // The name filter matches part of the name, in any case, as the firewall lists' text filters do.
    if (q.name !== undefined) packages = packages.filter((p) => p.name.toLowerCase().includes(q.name!.toLowerCase()));
    if (q.order === 'name') {
      const sign = q.direction === 'desc' ? -1 : 1;
      packages = [...packages].sort((a, b) => sign * a.name.localeCompare(b.name));
    }
    return okEnvelope(pageOf(packages, raw, { perPage: 50 }));
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
