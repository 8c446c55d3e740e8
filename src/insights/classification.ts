import { MALICIOUS_SCORE_THRESHOLD } from '../schemas';

/** Why an item is classed malicious, in the order they are reported: the score first, then the two reports. */
export type MaliciousReason = 'score' | 'domain' | 'url';

/** The fields the classification reads; scripts have them all, connections all but the score. */
export interface Reportable {
  js_integrity_score?: number;
  domain_reported_malicious?: boolean;
  url_reported_malicious?: boolean;
  malicious_domain_categories?: string[];
  malicious_url_categories?: string[];
}

/** The verdict on one detected item, as the dashboard shows it. */
export interface Classification {
  malicious: boolean;
  /** Every reason that applies, in the order score, domain, url; empty when not malicious. */
  reasons: MaliciousReason[];
  /** The domain and URL categories merged into one list, without duplicates, sorted. */
  categories: string[];
}

/** Code-unit order: the same on every machine and locale, so outputs built from it are reproducible. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether the score alone classes the item malicious. The service returns no maliciousness field: a
 * js_integrity_score below the threshold (50) is the service's classification (docs/service.md#malicious). No score (plans without the
 * analysis, and connections) is no evidence either way.
 */
export function isBelowScoreThreshold(item: Reportable): boolean {
  return typeof item.js_integrity_score === 'number' && item.js_integrity_score < MALICIOUS_SCORE_THRESHOLD;
}

/** Every reason the item is malicious: score below the threshold, domain reported, URL reported. */
export function maliciousReasons(item: Reportable): MaliciousReason[] {
  const reasons: MaliciousReason[] = [];
  if (isBelowScoreThreshold(item)) reasons.push('score');
  if (item.domain_reported_malicious === true) reasons.push('domain');
  if (item.url_reported_malicious === true) reasons.push('url');
  return reasons;
}

/** Whether a script or connection is malicious by any of the three signals of docs/service.md#malicious. */
export function isMalicious(item: Reportable): boolean {
  return maliciousReasons(item).length > 0;
}

/**
 * The API keeps two category lists (malicious_domain_categories, malicious_url_categories); the dashboard shows
 * one. Merged here, duplicates dropped, sorted.
 */
export function mergedCategories(item: Reportable): string[] {
  const all = new Set([...(item.malicious_domain_categories ?? []), ...(item.malicious_url_categories ?? [])]);
  return [...all].filter((c) => c.trim() !== '').sort(compareText);
}

/** The whole verdict on one item. */
export function classify(item: Reportable): Classification {
  const reasons = maliciousReasons(item);
  return { malicious: reasons.length > 0, reasons, categories: mergedCategories(item) };
}

/** One reason as a reader-facing phrase, e.g. `js_integrity_score 12 < 50`. */
export function describeReason(reason: MaliciousReason, item: Reportable): string {
  switch (reason) {
    case 'score':
      return `js_integrity_score ${String(item.js_integrity_score)} < ${MALICIOUS_SCORE_THRESHOLD}`;
    case 'domain':
      return 'domain reported malicious';
    case 'url':
      return 'URL reported malicious';
  }
}
