import { z } from 'zod';
import { DetectedStatusSchema, HexIdSchema, TimestampSchema } from './common';

/** A script the service detected on the zone's pages (list item). Plan-dependent fields are optional. */
export const ScriptSchema = z.object({
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
  hash: z.string().optional(),
  js_integrity_score: z.number().int().optional(),
  obfuscation_score: z.number().int().optional(),
  dataflow_score: z.number().int().optional(),
  fetched_at: TimestampSchema.optional(),
});
export type Script = z.infer<typeof ScriptSchema>;

/** One fetched version of a script (single-script response only). */
export const ScriptVersionSchema = z.object({
  hash: z.string(),
  js_integrity_score: z.number().int().optional(),
  fetched_at: TimestampSchema.optional(),
});
export type ScriptVersion = z.infer<typeof ScriptVersionSchema>;

/** GET /zones/{zone_id}/page_guard/scripts/{script_id}: the script with its pages and versions. */
export const ScriptDetailSchema = ScriptSchema.extend({
  page_urls: z.array(z.string()).optional(),
  versions: z.array(ScriptVersionSchema).optional(),
});
export type ScriptDetail = z.infer<typeof ScriptDetailSchema>;

/** The classification threshold of the spec: a js_integrity_score below it means malicious. */
export const MALICIOUS_SCORE_THRESHOLD = 50;
