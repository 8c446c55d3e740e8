import {
  PageGuardSettingsSchema,
  type PageGuardSettingsWire,
  type PageGuardSettingsUpdate,
} from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';

/** Page security settings: /zones/{zone_id}/page_guard. */
export class PageGuardGroup {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** GET /zones/{zone_id}/page_guard */
  get({ zoneId }: ZoneArgs): Promise<PageGuardSettingsWire> {
    return this.#transport.call({ method: 'GET', path: zonePath(zoneId, 'page_guard'), schema: PageGuardSettingsSchema });
  }

  /** PUT /zones/{zone_id}/page_guard: the settings, enabled and updated_at at least (docs/service.md#page-guard-settings). */
  update({ zoneId, ...body }: ZoneArgs & PageGuardSettingsUpdate): Promise<PageGuardSettingsWire> {
    return this.#transport.call({
      method: 'PUT',
      path: zonePath(zoneId, 'page_guard'),
      json: body,
      schema: PageGuardSettingsSchema,
    });
  }
}
