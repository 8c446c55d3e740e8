import {
  DetectedListQuerySchema,
  DetectedStatusSchema,
  PAGING,
  isMalicious,
  type ResultInfo,
} from '../schemas';
import { parseQuery } from './context';
import { ErrorCode, Messages, ServiceError } from './errors';

/** What the scripts, connections and cookies lists filter and sort on. */
export interface DetectedItem {
  id: string;
  host: string;
  status?: string;
  first_seen_at?: string;
  last_seen_at?: string;
  url_contains_cdn_cgi_path?: boolean;
  js_integrity_score?: number;
  domain_reported_malicious?: boolean;
  url_reported_malicious?: boolean;
}

/** Fields the lists may be ordered by. */
const ORDER_FIELDS = ['first_seen_at', 'last_seen_at'] as const;

/** Whether a host matches a `hosts` pattern: exact, or with a leading and/or trailing `*` wildcard. */
export function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase();
  const leading = p.startsWith('*');
  const trailing = p.length > 1 && p.endsWith('*');
  const core = p.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (leading && trailing) return h.includes(core);
  if (leading) return h.endsWith(core);
  if (trailing) return h.startsWith(core);
  return h === core;
}

/** Splits a comma list, dropping blanks. */
function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * One page of a detected-items list with its result_info. `status` defaults to active; `page` may be `all`;
 * `per_page` is 1-100 and defaults to 15; a page past the end is empty, not an error.
 */
export function listDetected<T extends DetectedItem>(items: T[], rawQuery: unknown): { result: T[]; resultInfo: ResultInfo } {
  const raw = { ...(rawQuery as Record<string, unknown>) };
  // A repeated parameter counts once: its first value.
  for (const [key, value] of Object.entries(raw)) if (Array.isArray(value)) raw[key] = value[0];
  if (typeof raw.page === 'string' && raw.page !== 'all' && !/^\d+$/.test(raw.page)) {
    throw ServiceError.of(400, ErrorCode.validation, Messages.pageValue);
  }
  const query = parseQuery(DetectedListQuerySchema, raw);
  const statuses = commaList(query.status);
  for (const status of statuses) {
    if (!DetectedStatusSchema.safeParse(status).success) throw ServiceError.of(400, ErrorCode.validation, Messages.statusValue(status));
  }
  if (query.order_by !== undefined && !(ORDER_FIELDS as readonly string[]).includes(query.order_by)) {
    throw ServiceError.of(400, ErrorCode.validation, `order_by: must be ${ORDER_FIELDS.join(' or ')}`);
  }
  const wanted = statuses.length > 0 ? statuses : ['active'];
  const hostPatterns = commaList(query.hosts);

  let selected = items.filter((item) => wanted.includes(item.status ?? 'active'));
  if (hostPatterns.length > 0) selected = selected.filter((item) => hostPatterns.some((p) => hostMatches(p, item.host)));
  if (query.exclude_cdn_cgi === 'true') selected = selected.filter((item) => item.url_contains_cdn_cgi_path !== true);
  if (query.order_by !== undefined) {
    const field = query.order_by as (typeof ORDER_FIELDS)[number];
    const sign = query.direction === 'desc' ? -1 : 1;
    selected = [...selected].sort((a, b) => sign * ((a[field] ?? '').localeCompare(b[field] ?? '') || a.id.localeCompare(b.id)));
  }
  if (query.prioritize_malicious === 'true') {
    // A stable sort keeps the chosen order inside each group.
    selected = [...selected].sort((a, b) => Number(isMalicious(b)) - Number(isMalicious(a)));
  }

  const total = selected.length;
  if (query.page === 'all') {
    return { result: selected, resultInfo: { page: 1, per_page: total, count: total, total_count: total, total_pages: total === 0 ? 0 : 1 } };
  }
  const page = query.page ?? 1;
  const perPage = query.per_page ?? PAGING.defaultPerPage;
  const result = selected.slice((page - 1) * perPage, page * perPage);
  return {
    result,
    resultInfo: { page, per_page: perPage, count: result.length, total_count: total, total_pages: Math.ceil(total / perPage) },
  };
}
