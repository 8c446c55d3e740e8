import { z } from 'zod';
import { DetectedStatusSchema, HexIdSchema, TimestampSchema } from './common';

/** A connection the service detected from the zone's pages. */
export const ConnectionSchema = z.object({
  id: HexIdSchema,
  url: z.string(),
  added_at: TimestampSchema.optional(),
  first_seen_at: TimestampSchema.optional(),
  last_seen_at: TimestampSchema.optional(),
  host: z.string(),
  domain_reported_malicious: z.boolean().optional(),
  malicious_domain_categories: z.array(z.string()).optional(),
  url_reported_malicious: z.boolean().optional(),
  malicious_url_categories: z.array(z.string()).optional(),
  first_page_url: z.string().optional(),
  status: DetectedStatusSchema.or(z.string()),
  url_contains_cdn_cgi_path: z.boolean().optional(),
});
export type Connection = z.infer<typeof ConnectionSchema>;
