import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageOf, params, parseQuery, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import type { WafGroup } from '../../schemas';
import { PACKAGE_GROUPS, assertPreviousWafAvailable } from '../waf';

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

/** The public API's parameters of a package's groups list, strict as the packages list's. */
const GroupListQuerySchema = z
  .object({
    page: z.string().optional(),
    per_page: z.string().optional(),
    name: z.string().max(1024).optional(),
    mode: z.enum(['on', 'off']).optional(),
    order: z.enum(['mode', 'rules_count']).optional(),
    direction: z.enum(['asc', 'desc']).optional(),
    match: z.enum(['any', 'all']).optional(),
  })
  .strict();

/** /zones/{zone_id}/firewall/waf/packages: the previous WAF's packages and their rule groups (read only here). */
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

  const packageOf = (request: FastifyRequest) => {
    const zone = zoneOf(context, request);
    assertPreviousWafAvailable(state.waf.get(zone.id), zone.id, context.now());
    const id = params(request).package_id ?? '';
    const found = state.collections.wafPackages.get(zone.id, id);
    if (!found) throw ServiceError.of(404, ErrorCode.notFound, Messages.notFound('WAF package', id));
    return { zone, found };
  };

  api.get('/zones/:zone_id/firewall/waf/packages/:package_id', async (request) => okEnvelope(packageOf(request).found));

  api.get('/zones/:zone_id/firewall/waf/packages/:package_id/groups', async (request) => {
    const { zone, found } = packageOf(request);
    const raw = query(request);
    const q = parseQuery(GroupListQuerySchema, Object.fromEntries(Object.keys(raw).map((key) => [key, single(raw[key])])));
    const overrides = state.waf.get(zone.id)?.groupOverrides ?? {};
    let groups: WafGroup[] = PACKAGE_GROUPS[found.detection_mode].map((group) => ({
      ...group,
      modified_rules_count: 0,
      package_id: found.id,
      mode: overrides[group.id] === 'off' ? 'off' : 'on',
      allowed_modes: ['on', 'off'],
    }));
    if (q.name !== undefined) groups = groups.filter((g) => g.name.toLowerCase().includes(q.name!.toLowerCase()));
    if (q.mode !== undefined) groups = groups.filter((g) => g.mode === q.mode);
    if (q.order !== undefined) {
      const key = q.order;
      const sign = q.direction === 'desc' ? -1 : 1;
      groups = [...groups].sort((a, b) => sign * (key === 'mode' ? a.mode.localeCompare(b.mode) : a.rules_count - b.rules_count));
    }
    return okEnvelope(pageOf(groups, raw, { perPage: 50 }));
  });
}
