import type { DetectedListArgs, Page, PageIterator, ZoneGuardClient } from '../client';
import { DetectedStatusSchema, type Connection, type Cookie, type DetectedKind, type DetectedStatus, type Script } from '../schemas';
import { classify, type Classification } from './classification';

/** The three kinds of detected items, named after their API paths. */

/** Every status the service knows; `status: 'all'` asks for these. */
export const ALL_STATUSES: readonly DetectedStatus[] = DetectedStatusSchema.options;

/** Progress of a list walk, reported after each page arrives. */
export interface LoadProgress {
  kind: DetectedKind;
  /** The page just received (1-based). */
  page: number;
  /** Pages the service announced (result_info.total_pages); at least `page`. */
  totalPages: number;
  /** Items received so far, before client-side filters. */
  loaded: number;
  /** Items the service announced (result_info.total_count); at least `loaded`. */
  totalCount: number;
}

/**
 * What to list and how: list `K`'s filters of the service's (hosts, status, paging, order, and the public API's extras
 * of that list: docs/service.md#lists), passed through to it. Without `K`, the filters every list takes.
 */
export type DetectedQuery<K extends DetectedKind = DetectedKind> = Omit<DetectedListArgs<K>, 'status'> & {
  client: ZoneGuardClient;
  /** One status, several, or `all`; the service's default (active only) when omitted. */
  status?: DetectedStatus | DetectedStatus[] | 'all';
  /** Called after each page, e.g. to show progress while a large zone loads. */
  onProgress?: (progress: LoadProgress) => void;
};

/** Scripts and connections carry their malicious verdict beside the service's fields. */
export type Classified<T> = T & { classification: Classification };

/** Options of the lists that can be narrowed to malicious items, scripts and connections (default). */
export type ClassifiedQuery<K extends 'scripts' | 'connections' = 'connections'> = DetectedQuery<K> & {
  /** Only the items classed malicious (score below 50, domain or URL reported); applied here, the service has no such filter. */
  maliciousOnly?: boolean;
};

/** The `status` query value for the service. */
export function statusFilter(status: DetectedQuery['status']): DetectedStatus | DetectedStatus[] | undefined {
  return status === 'all' ? [...ALL_STATUSES] : status;
}

/** Every item of one list, page by page, reporting progress after each page. */
export async function walkPages<T>(kind: DetectedKind, iterator: PageIterator<T>, onProgress?: (p: LoadProgress) => void): Promise<T[]> {
  const items: T[] = [];
  let number = 0;
  for await (const page of iterator.pages() as AsyncIterable<Page<T>>) {
    number += 1;
    items.push(...page.items);
    const info = page.resultInfo;
    onProgress?.({
      kind,
      page: number,
      totalPages: Math.max(info?.total_pages ?? number, number),
      loaded: items.length,
      totalCount: Math.max(info?.total_count ?? items.length, items.length),
    });
  }
  return items;
}

/** A query's filters as the client's list `K` takes them: the service's own, with the status resolved. */
function listArgs<K extends DetectedKind>(query: DetectedQuery<K> & { maliciousOnly?: boolean }): DetectedListArgs<K> {
  const { client: _client, onProgress: _onProgress, status, maliciousOnly: _maliciousOnly, ...args } = query;
  return { ...args, status: statusFilter(status) } as DetectedListArgs<K>;
}

function classifyAll<T extends object>(items: T[], maliciousOnly: boolean | undefined): Classified<T>[] {
  const classified = items.map((item) => ({ ...item, classification: classify(item) }));
  return maliciousOnly ? classified.filter((item) => item.classification.malicious) : classified;
}

/** Every detected script of the zone matching the filters, each with its malicious classification. */
export async function listScripts(query: ClassifiedQuery<'scripts'>): Promise<Classified<Script>[]> {
  const items = await walkPages('scripts', query.client.scripts.list(listArgs(query)), query.onProgress);
  return classifyAll(items, query.maliciousOnly);
}

/** Every detected connection of the zone matching the filters, each with its malicious classification. */
export async function listConnections(query: ClassifiedQuery): Promise<Classified<Connection>[]> {
  const items = await walkPages('connections', query.client.connections.list(listArgs(query)), query.onProgress);
  return classifyAll(items, query.maliciousOnly);
}

/** Every detected cookie of the zone matching the filters. Cookies carry no malicious classification. */
export async function listCookies(query: DetectedQuery<'cookies'>): Promise<Cookie[]> {
  return walkPages('cookies', query.client.cookies.list(listArgs(query)), query.onProgress);
}
