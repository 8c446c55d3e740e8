import type { z } from 'zod';
import { zonePath, type CallSpec, type Transport } from '../transport';
import type { DetectedKind } from '../../schemas';
import { commaList, type DetectedListArgs, type ZoneArgs } from './common';
import { PagedGroup } from './paged-group';

/** The query every detected list takes (docs/service.md#lists). */
const sharedQuery = (filters: DetectedListArgs<DetectedKind>) => ({
  hosts: commaList(filters.hosts),
  status: commaList(filters.status),
  order_by: filters.orderBy,
  direction: filters.direction,
});

/**
 * The query of the lists the service classifies, scripts and connections. The service leaves /cdn-cgi/ ones out
 * unless told otherwise; the client lists them unless asked (excludeCdnCgi).
 */
export const connectionQuery = (filters: DetectedListArgs<'connections'>) => ({
  ...sharedQuery(filters),
  exclude_cdn_cgi: filters.excludeCdnCgi ?? false,
  prioritize_malicious: filters.prioritizeMalicious,
});

/** The scripts list's query: the connections list's, and one entry per script URL. */
export const scriptQuery = (filters: DetectedListArgs<'scripts'>) => ({ ...connectionQuery(filters), exclude_duplicates: filters.excludeDuplicates });

/**
 * The scripts, connections and cookies lists share their paging and most of their query; one class serves the
 * three, each with its own path segment, schemas, arguments and the query they make (cookies: the shared query).
 */
export class DetectedGroup<K extends DetectedKind, Item extends z.ZodType, Detail extends z.ZodType, IdKey extends string> extends PagedGroup<
  DetectedListArgs<K>,
  Item
> {
  readonly #transport: Transport;
  readonly #segment: string;
  readonly #detailSchema: Detail;
  readonly #idKey: IdKey;

  constructor(
    transport: Transport,
    list: { segment: K; itemSchema: Item; detailSchema: Detail; idKey: IdKey; query?: (filters: DetectedListArgs<K>) => CallSpec<Item>['query'] },
  ) {
    const { segment, itemSchema, detailSchema, idKey, query = sharedQuery } = list;
    super(transport, { path: ({ zoneId }) => zonePath(zoneId, 'page_guard', segment), query, schema: itemSchema });
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
