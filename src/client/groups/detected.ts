import type { z } from 'zod';
import { zonePath, type Transport } from '../transport';
import { commaList, type DetectedListArgs, type ZoneArgs } from './common';
import { PagedGroup } from './paged-group';

/**
 * The scripts, connections and cookies lists share their query and paging; one class serves the three, each
 * with its own path segment and schemas.
 */
export class DetectedGroup<Item extends z.ZodType, Detail extends z.ZodType, IdKey extends string> extends PagedGroup<DetectedListArgs, Item> {
  readonly #transport: Transport;
  readonly #segment: string;
  readonly #detailSchema: Detail;
  readonly #idKey: IdKey;

  constructor(transport: Transport, segment: string, itemSchema: Item, detailSchema: Detail, idKey: IdKey) {
    super(transport, {
      path: ({ zoneId }) => zonePath(zoneId, 'page_guard', segment),
      query: (filters) => ({
        hosts: commaList(filters.hosts),
        status: commaList(filters.status),
        // The service leaves /cdn-cgi/ scripts and connections out unless told otherwise; the client lists them unless
        // asked (excludeCdnCgi). Cookies take no such parameter.
        exclude_cdn_cgi: segment === 'cookies' ? filters.excludeCdnCgi : (filters.excludeCdnCgi ?? false),
        exclude_duplicates: filters.excludeDuplicates,
        order_by: filters.orderBy,
        direction: filters.direction,
        prioritize_malicious: filters.prioritizeMalicious,
      }),
      schema: itemSchema,
    });
    this.#transport = transport;
    this.#segment = segment;
    this.#detailSchema = detailSchema;
    this.#idKey = idKey;
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
