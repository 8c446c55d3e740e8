import type { DetectedKind, DetectedStatus } from '../../schemas';

/** Every call addresses one zone. */
export interface ZoneArgs {
  zoneId: string;
}

/** Page size of a one-page fetch; the walks of `list()` default to the largest the service accepts. */
export interface PageArgs {
  /** 1-based page number; default 1. */
  page?: number;
  /** Items per page (1-100); the service's default when omitted. */
  perPage?: number;
}

/**
 * Filters of the scripts, connections and cookies lists (query parameters of the public API, docs/service.md#lists),
 * each list's own: the service refuses a parameter a list does not take, so `DetectedListArgs<'cookies'>` has none of
 * the others'.
 */
export type DetectedListArgs<K extends DetectedKind> = ZoneArgs & {
  /** Hostnames, one or a comma list; leading/trailing `*` wildcards allowed. */
  hosts?: string | string[];
  /** Status or statuses; the service's default is active only. */
  status?: DetectedStatus | DetectedStatus[];
  perPage?: number;
  orderBy?: string;
  direction?: 'asc' | 'desc';
} & (K extends 'cookies'
    ? unknown
    : {
        /** Scripts and connections: leave out those seen under /cdn-cgi/; default false (the service's own default is true). */
        excludeCdnCgi?: boolean;
        /** Scripts and connections: malicious ones first. */
        prioritizeMalicious?: boolean;
      }) &
  (K extends 'scripts'
    ? {
        /** Scripts only: one entry per script URL. */
        excludeDuplicates?: boolean;
      }
    : unknown);

/** A comma list from one value or several. */
export function commaList(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(',');
}
