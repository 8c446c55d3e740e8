import { z } from 'zod';
import { FilterSchema, PAGING, type Filter, type FilterCreate, type FilterUpdate } from '../../schemas';
import { PageIterator, type Page } from '../pagination';
import { zonePath, type Transport } from '../transport';
import type { PageArgs, ZoneArgs } from './common';

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
export class FiltersResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Every filter, walking the pages. */
  list(args: FilterListArgs): PageIterator<Filter> {
    const perPage = args.perPage ?? PAGING.maxPerPage;
    return new PageIterator((page) => this.listPage({ ...args, page, perPage }), perPage);
  }

  /** One page with its result_info. */
  listPage({ zoneId, page, perPage, ...filters }: FilterListArgs & PageArgs): Promise<Page<Filter>> {
    return this.#transport.page({
      method: 'GET',
      path: zonePath(zoneId, 'filters'),
      query: { page, per_page: perPage, ...filters },
      schema: FilterSchema,
    });
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
