import { DetectedStatusSchema, PAGING, isMalicious, type Cookie, type DetectedKind, type ResultInfo, type ScriptDetail } from '../schemas';
import { DetectedListQuerySchema } from '../schemas/common';
import { z } from 'zod';
import { parseQuery } from './context';
import { ErrorCode, Messages, ServiceError } from './errors';

/**
 * What the scripts, connections and cookies lists filter and sort on: a field of a script (with its pages), a
 * connection (a script's fields without the scores) or a cookie, taken from their schemas; each kind has some.
 */
export type ListedItem = Pick<Cookie, 'id' | 'host'> & Partial<ScriptDetail & Cookie>;

/** The three detected-item lists. */

/** Fields the lists may be ordered by. */
const ORDER_FIELDS = ['first_seen_at', 'last_seen_at'] as const;

const flag = () => z.enum(['true', 'false'], { error: 'must be true or false' }).optional();
const text = () => z.string().max(1024, 'must be at most 1024 characters').optional();

/** The public API's parameters of the scripts and connections lists (docs/emulator.md, "Detected items"). */
const UrlFilters = {
  urls: z.string().optional(),
  exclude_urls: z.string().optional(),
  page_url: z.string().optional(),
  exclude_cdn_cgi: flag(),
  prioritize_malicious: flag(),
  // Named by the public API, not emulated: refused rather than ignored.
  export: z.never({ error: 'not emulated (docs/emulator.md); list the items as JSON' }).optional(),
};

/** A parsed list query: `page` and `per_page` are numbers, the rest strings. */
type ListQuery = Partial<Record<string, string | number>>;

/** The string value of a parameter. */
const param = (query: ListQuery, key: string): string | undefined => (query[key] === undefined ? undefined : String(query[key]));

/** Query of each list: the public parameters, strict, so an unknown parameter is refused, never ignored. */
const QUERY_SCHEMAS: Record<DetectedKind, z.ZodType<ListQuery>> = {
  scripts: DetectedListQuerySchema.extend({
    ...UrlFilters,
    exclude_duplicates: z.never({ error: 'not emulated (docs/emulator.md); the emulator holds no duplicate scripts' }).optional(),
  }).strict(),
  connections: DetectedListQuerySchema.extend(UrlFilters).strict(),
  cookies: DetectedListQuerySchema.omit({ exclude_cdn_cgi: true, prioritize_malicious: true })
    .extend({
      page_url: z.string().optional(),
      name: text(),
      secure: flag(),
      http_only: flag(),
      same_site: z.enum(['lax', 'strict', 'none'], { error: 'must be lax, strict or none' }).optional(),
      type: z.enum(['first_party', 'unknown'], { error: 'must be first_party or unknown' }).optional(),
      path: text(),
      domain: text(),
      export: UrlFilters.export,
    })
    .strict(),
};

/** Whether a value matches a pattern: exact (case-insensitive), or with a leading and/or trailing `*` wildcard. */
export function wildcardMatches(pattern: string, value: string): boolean {
  const p = pattern.toLowerCase();
  const h = value.toLowerCase();
  const leading = p.startsWith('*');
  const trailing = p.length > 1 && p.endsWith('*');
  const core = p.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (leading && trailing) return h.includes(core);
  if (leading) return h.endsWith(core);
  if (trailing) return h.startsWith(core);
  return h === core;
}

/** Whether a host matches a `hosts` pattern (the wildcard rules of every list filter). */
export const hostMatches = wildcardMatches;

/** Splits a comma list, dropping blanks. */
function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** URL-encoded comma lists (`urls`, `exclude_urls`, `page_url`), decoded. */
function decodedList(value: string | undefined): string[] {
  return commaList(value).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
}

/** The filters of a query as predicates on an item: every one must hold. */
function filtersOf(query: ListQuery): ((item: ListedItem) => boolean)[] {
  const filters: ((item: ListedItem) => boolean)[] = [];
  const contains = (item: ListedItem, part: string) => (item.url ?? '').toLowerCase().includes(part.toLowerCase());
  const urls = decodedList(param(query, 'urls'));
  if (urls.length > 0) filters.push((item) => urls.some((part) => contains(item, part)));
  const excluded = decodedList(param(query, 'exclude_urls'));
  if (excluded.length > 0) filters.push((item) => !excluded.some((part) => contains(item, part)));
  const pages = decodedList(param(query, 'page_url'));
  if (pages.length > 0) {
    filters.push((item) =>
      [...(item.page_urls ?? []), ...(item.first_page_url ? [item.first_page_url] : [])].some((url) => pages.some((p) => wildcardMatches(p, url))),
    );
  }
  // The public API excludes what was seen under /cdn-cgi/ unless told otherwise (scripts and connections).
  if (param(query, 'exclude_cdn_cgi') === 'true') filters.push((item) => item.url_contains_cdn_cgi_path !== true);
  const equals = (field: keyof ListedItem, wanted: string | undefined) => {
    if (wanted !== undefined) filters.push((item) => String(item[field] ?? '').toLowerCase() === wanted.toLowerCase());
  };
  const name = param(query, 'name');
  if (name !== undefined) filters.push((item) => wildcardMatches(name, item.name ?? ''));
  equals('secure_attribute', param(query, 'secure'));
  equals('http_only_attribute', param(query, 'http_only'));
  equals('same_site_attribute', param(query, 'same_site'));
  equals('type', param(query, 'type'));
  equals('path_attribute', param(query, 'path'));
  equals('domain_attribute', param(query, 'domain'));
  return filters;
}

/**
 * result_info of a list answered whole on one page (`page=all`, the policies list): `per_page` is the page size asked
 * (the default when none is), or the count when more items came, so an empty list reports the per_page asked, not 0.
 */
export function onePageInfo(count: number, perPage: number = PAGING.defaultPerPage): ResultInfo {
  return { page: 1, per_page: Math.max(count, perPage), count, total_count: count, total_pages: count === 0 ? 0 : 1 };
}

/**
 * One page of a detected-items list with its result_info. `status` defaults to active; `page` may be `all`;
 * `per_page` is 1-100 and defaults to 15; a page past the end is empty, not an error. Scripts and connections leave
 * out what was seen under /cdn-cgi/ unless `exclude_cdn_cgi=false`, as the public API does.
 */
export function listDetected<T extends ListedItem>(kind: DetectedKind, items: T[], rawQuery: unknown): { result: T[]; resultInfo: ResultInfo } {
  const raw: Record<string, unknown> = { ...(rawQuery as Record<string, unknown>) };
  // A repeated parameter counts once: its first value.
  for (const [key, value] of Object.entries(raw)) if (Array.isArray(value)) raw[key] = value[0];
  if (typeof raw.page === 'string' && raw.page !== 'all' && !/^\d+$/.test(raw.page)) {
    throw ServiceError.of(400, ErrorCode.validation, Messages.pageValue);
  }
  if (kind !== 'cookies') raw.exclude_cdn_cgi ??= 'true';
  const query = parseQuery(QUERY_SCHEMAS[kind], raw);
  const statuses = commaList(param(query, 'status'));
  for (const status of statuses) {
    if (!DetectedStatusSchema.safeParse(status).success) throw ServiceError.of(400, ErrorCode.validation, Messages.statusValue(status));
  }
  const orderBy = param(query, 'order_by');
  if (orderBy !== undefined && !(ORDER_FIELDS as readonly string[]).includes(orderBy)) {
    throw ServiceError.of(400, ErrorCode.validation, `order_by: must be ${ORDER_FIELDS.join(' or ')}`);
  }
  const wanted = statuses.length > 0 ? statuses : ['active'];
  const hostPatterns = commaList(param(query, 'hosts'));

  let selected = items.filter((item) => wanted.includes(item.status ?? 'active'));
  if (hostPatterns.length > 0) selected = selected.filter((item) => hostPatterns.some((p) => hostMatches(p, item.host)));
  for (const filter of filtersOf(query)) selected = selected.filter(filter);
  if (orderBy !== undefined) {
    const field = orderBy as (typeof ORDER_FIELDS)[number];
    const sign = param(query, 'direction') === 'desc' ? -1 : 1;
    selected = [...selected].sort((a, b) => sign * ((a[field] ?? '').localeCompare(b[field] ?? '') || a.id.localeCompare(b.id)));
  }
  if (param(query, 'prioritize_malicious') === 'true') {
    // A stable sort keeps the chosen order inside each group.
    selected = [...selected].sort((a, b) => Number(isMalicious(b)) - Number(isMalicious(a)));
  }

  const total = selected.length;
  const perPage = Number(query.per_page ?? PAGING.defaultPerPage);
  if (query.page === 'all') return { result: selected, resultInfo: onePageInfo(total, perPage) };
  const page = Number(query.page ?? 1);
  const result = selected.slice((page - 1) * perPage, page * perPage);
  return {
    result,
    resultInfo: { page, per_page: perPage, count: result.length, total_count: total, total_pages: Math.ceil(total / perPage) },
  };
}
