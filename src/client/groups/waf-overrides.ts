import { z } from 'zod';
import { WafOverrideSchema, type WafOverride } from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';
import { PagedGroup } from './paged-group';

type OverrideArgs = ZoneArgs & { overrideId: string };

/**
 * URI-based overrides of the previous WAF: /zones/{zone_id}/firewall/waf/overrides. A zone that has any cannot
 * migrate until they are deleted. Withdrawn (410) once the zone migrated.
 */
export class WafOverridesGroup extends PagedGroup<ZoneArgs & { perPage?: number }, typeof WafOverrideSchema> {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    super(transport, { path: ({ zoneId }) => zonePath(zoneId, 'firewall', 'waf', 'overrides'), schema: WafOverrideSchema });
    this.#transport = transport;
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
