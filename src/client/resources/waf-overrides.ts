import { z } from 'zod';
import { PAGING, WafOverrideSchema, type WafOverride } from '../../schemas';
import { PageIterator, type Page } from '../pagination';
import { zonePath, type Transport } from '../transport';
import type { PageArgs, ZoneArgs } from './common';

type OverrideArgs = ZoneArgs & { overrideId: string };

/**
 * URI-based overrides of the previous WAF: /zones/{zone_id}/firewall/waf/overrides. A zone that has any cannot
 * migrate until they are deleted. Withdrawn (410) once the zone migrated.
 */
export class WafOverridesResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Every override, walking the pages. */
  list(args: ZoneArgs & { perPage?: number }): PageIterator<WafOverride> {
    const perPage = args.perPage ?? PAGING.maxPerPage;
    return new PageIterator((page) => this.listPage({ ...args, page, perPage }), perPage);
  }

  /** One page with its result_info. */
  listPage({ zoneId, page, perPage }: ZoneArgs & PageArgs): Promise<Page<WafOverride>> {
    return this.#transport.page({
      method: 'GET',
      path: zonePath(zoneId, 'firewall', 'waf', 'overrides'),
      query: { page, per_page: perPage },
      schema: WafOverrideSchema,
    });
  }

  /** GET /zones/{zone_id}/firewall/waf/overrides/{override_id} */
  get({ zoneId, overrideId }: OverrideArgs): Promise<WafOverride> {
    return this.#transport.call({
      method: 'GET',
      path: zonePath(zoneId, 'firewall', 'waf', 'overrides', overrideId),
      schema: WafOverrideSchema,
    });
  }

  /** DELETE /zones/{zone_id}/firewall/waf/overrides/{override_id} */
  async delete({ zoneId, overrideId }: OverrideArgs): Promise<void> {
    await this.#transport.call({
      method: 'DELETE',
      path: zonePath(zoneId, 'firewall', 'waf', 'overrides', overrideId),
      schema: z.unknown(),
      emptyOk: true,
    });
  }
}
