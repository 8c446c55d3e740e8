import { WafPackageSchema, type WafPackage } from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';
import { PagedGroup } from './paged-group';

/** Packages of the previous WAF: /zones/{zone_id}/firewall/waf/packages. Withdrawn (410) once the zone migrated. */
export class WafPackagesGroup extends PagedGroup<ZoneArgs & { perPage?: number }, typeof WafPackageSchema> {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    super(transport, { path: ({ zoneId }) => zonePath(zoneId, 'firewall', 'waf', 'packages'), schema: WafPackageSchema });
    this.#transport = transport;
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
