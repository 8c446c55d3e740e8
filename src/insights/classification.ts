import { MALICIOUS_SCORE_THRESHOLD, isMalicious } from '../schemas';
import { isBelowScoreThreshold, maliciousReasons, type MaliciousReason, type Reportable } from '../schemas/detected';

export { isBelowScoreThreshold, isMalicious, maliciousReasons, type MaliciousReason, type Reportable };

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
