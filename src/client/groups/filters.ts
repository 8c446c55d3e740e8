import { z } from 'zod';
import { FilterSchema, type Filter, type FilterCreate, type FilterUpdate } from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';
import { filtersAsQuery, PagedGroup } from './paged-group';

/** Query filters of the filters list (public API). */
export interface FilterListArgs extends ZoneArgs {
  paused?: boolean;
  expression?: string;
  description?: string;
  ref?: string;
  perPage?: number;
}

type FilterArgs = ZoneArgs & { filterId: string };

/** Filters (match expressions), the first call of the recommended two-call flow: /zones/{zone_id}/filters. */
export class FiltersGroup extends PagedGroup<FilterListArgs, typeof FilterSchema> {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    super(transport, {
      path: ({ zoneId }) => zonePath(zoneId, 'filters'),
      query: filtersAsQuery,
      schema: FilterSchema,
    });
    this.#transport = transport;
  }

  /** GET /zones/{zone_id}/filters/{filter_id} */
  get({ zoneId, filterId }: FilterArgs): Promise<Filter> {
    return this.#transport.call({ method: 'GET', path: zonePath(zoneId, 'filters', filterId), schema: FilterSchema });
  }

  /** POST /zones/{zone_id}/filters: the body is an array; the result is the created filters, in order. */
  create({ zoneId, filters }: ZoneArgs & { filters: FilterCreate[] }): Promise<Filter[]> {
    return this.#transport.call({ method: 'POST', path: zonePath(zoneId, 'filters'), json: filters, schema: z.array(FilterSchema) });
  }

  /** PUT /zones/{zone_id}/filters/{filter_id}: the whole filter; refused (409) for a filter created with its rule. */
  update({ zoneId, filterId, ...body }: FilterArgs & Omit<FilterUpdate, 'id'>): Promise<Filter> {
    return this.#transport.call({
      method: 'PUT',
      path: zonePath(zoneId, 'filters', filterId),
      json: { id: filterId, ...body },
      schema: FilterSchema,
    });
  }

  /** DELETE /zones/{zone_id}/filters/{filter_id}; refused (409) while a rule references the filter. */
  async delete({ zoneId, filterId }: FilterArgs): Promise<void> {
    await this.#transport.call({ method: 'DELETE', path: zonePath(zoneId, 'filters', filterId), schema: z.unknown(), emptyOk: true });
  }
}
