import type { z } from 'zod';
import { PAGING } from '../../schemas';
import { PageIterator, type Page } from '../pagination';
import { zonePath, type Transport } from '../transport';
import { commaList, type DetectedListArgs, type PageArgs, type ZoneArgs } from './common';

/**
 * The scripts, connections and cookies lists share their query and paging; one class serves the three, each
 * with its own path segment and schemas.
 */
export class DetectedResource<Item extends z.ZodType, Detail extends z.ZodType, IdKey extends string> {
  readonly #transport: Transport;
  readonly #segment: string;
  readonly #itemSchema: Item;
  readonly #detailSchema: Detail;
  readonly #idKey: IdKey;

  constructor(transport: Transport, segment: string, itemSchema: Item, detailSchema: Detail, idKey: IdKey) {
    this.#transport = transport;
    this.#segment = segment;
    this.#itemSchema = itemSchema;
    this.#detailSchema = detailSchema;
    this.#idKey = idKey;
  }

  /** Every item, walking the pages (100 a page unless `perPage` says otherwise). */
  list(args: DetectedListArgs): PageIterator<z.output<Item>> {
    const perPage = args.perPage ?? PAGING.maxPerPage;
    return new PageIterator((page) => this.listPage({ ...args, page, perPage }), perPage);
  }

  /** One page with its result_info. */
  listPage({ zoneId, page, perPage, ...filters }: DetectedListArgs & PageArgs): Promise<Page<z.output<Item>>> {
    return this.#transport.page({
      method: 'GET',
      path: zonePath(zoneId, 'page_guard', this.#segment),
      query: {
        page,
        per_page: perPage,
        hosts: commaList(filters.hosts),
        status: commaList(filters.status),
        // The service leaves /cdn-cgi/ scripts and connections out unless told otherwise; the client lists them unless
        // asked (excludeCdnCgi). Cookies take no such parameter.
        exclude_cdn_cgi: this.#segment === 'cookies' ? filters.excludeCdnCgi : (filters.excludeCdnCgi ?? false),
        exclude_duplicates: filters.excludeDuplicates,
        order_by: filters.orderBy,
        direction: filters.direction,
        prioritize_malicious: filters.prioritizeMalicious,
      },
      schema: this.#itemSchema,
    });
  }

  /** One item by id. */
  get(args: ZoneArgs & { [K in IdKey]: string }): Promise<z.output<Detail>> {
    return this.#transport.call({
      method: 'GET',
      path: zonePath(args.zoneId, 'page_guard', this.#segment, args[this.#idKey]),
      schema: this.#detailSchema,
    });
  }
}
