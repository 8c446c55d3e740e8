import { z } from 'zod';
import { DetectedStatusSchema, HexIdSchema, TimestampSchema } from './common';

/** A cookie the service detected on the zone's pages. */
export const CookieSchema = z.object({
  id: HexIdSchema,
  type: z.string(),
  name: z.string(),
  host: z.string(),
  domain_attribute: z.string().optional(),
  expires_attribute: TimestampSchema.optional(),
  http_only_attribute: z.boolean().optional(),
  max_age_attribute: z.number().int().nullable().optional(),
  path_attribute: z.string().optional(),
  same_site_attribute: z.string().optional(),
  secure_attribute: z.boolean().optional(),
  first_seen_at: TimestampSchema.optional(),
  last_seen_at: TimestampSchema.optional(),
  first_page_url: z.string().optional(),
  page_urls: z.array(z.string()).optional(),
  // The service's cookie fields omit status, yet lists filter by it; the public API carries it (docs/service.md#detected-items).
  status: DetectedStatusSchema.or(z.string()).optional(),
});
export type Cookie = z.infer<typeof CookieSchema>;
