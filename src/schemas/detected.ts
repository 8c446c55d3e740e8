// What scripts and connections have in common (docs/service.md#detected-items), and the service's malicious
// classification of them (docs/service.md#malicious): one definition for the client, the emulator and insights.
import { z } from 'zod';
import { DetectedStatusSchema, HexIdSchema, TimestampSchema } from './common';

/** The fields a detected script and a detected connection share. Plan-dependent fields are optional. */
export const DetectedItemSchema = z.object({
  id: HexIdSchema,
  url: z.string(),
  added_at: TimestampSchema.optional(),
  first_seen_at: TimestampSchema.optional(),
  last_seen_at: TimestampSchema.optional(),
  host: z.string(),
  domain_reported_malicious: z.boolean().optional(),
  url_reported_malicious: z.boolean().optional(),
  malicious_domain_categories: z.array(z.string()).optional(),
  malicious_url_categories: z.array(z.string()).optional(),
  first_page_url: z.string().optional(),
  status: DetectedStatusSchema.or(z.string()),
  url_contains_cdn_cgi_path: z.boolean().optional(),
});
export type DetectedItem = z.infer<typeof DetectedItemSchema>;

/** The three kinds of detected item, as the service names their lists (docs/service.md#detected-items). */
export type DetectedKind = 'scripts' | 'connections' | 'cookies';

/** The classification threshold: a js_integrity_score below it means malicious (docs/service.md#malicious). */
export const MALICIOUS_SCORE_THRESHOLD = 50;

/** Why an item is classed malicious, in the order they are reported: the score first, then the two reports. */
export type MaliciousReason = 'score' | 'domain' | 'url';

/** The fields the classification reads; scripts have them all, connections all but the score. */
export type Reportable = Partial<
  Pick<DetectedItem, 'domain_reported_malicious' | 'url_reported_malicious' | 'malicious_domain_categories' | 'malicious_url_categories'>
> & { js_integrity_score?: number };

/**
 * Whether the score alone classes the item malicious. The service returns no maliciousness field: a
 * js_integrity_score below the threshold (50) is its classification. No score (plans without the analysis, and
 * connections) is no evidence either way.
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
