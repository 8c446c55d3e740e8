import { PAGING, WafPackageSchema, type WafPackage } from '../../schemas';
import { PageIterator, type Page } from '../pagination';
import { zonePath, type Transport } from '../transport';
import type { PageArgs, ZoneArgs } from './common';

/** Packages of the previous WAF: /zones/{zone_id}/firewall/waf/packages. Withdrawn (410) once the zone migrated. */
export class WafPackagesResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Every package, walking the pages. */
  list(args: ZoneArgs & { perPage?: number }): PageIterator<WafPackage> {
    const perPage = args.perPage ?? PAGING.maxPerPage;
    return new PageIterator((page) => this.listPage({ ...args, page, perPage }), perPage);
  }

  /** One page with its result_info. */
  listPage({ zoneId, page, perPage }: ZoneArgs & PageArgs): Promise<Page<WafPackage>> {
    return this.#transport.page({
      method: 'GET',
      path: zonePath(zoneId, 'firewall', 'waf', 'packages'),
      query: { page, per_page: perPage },
      schema: WafPackageSchema,
    });
  }

  /** GET /zones/{zone_id}/firewall/waf/packages/{package_id} */
  get({ zoneId, packageId }: ZoneArgs & { packageId: string }): Promise<WafPackage> {
    return this.#transport.call({
      method: 'GET',
      path: zonePath(zoneId, 'firewall', 'waf', 'packages', packageId),
      schema: WafPackageSchema,
    });
  }
}
