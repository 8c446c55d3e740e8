import { z } from 'zod';
import { TimestampSchema } from './common';
import { DetectedItemSchema } from './detected';

/** A script the service detected on the zone's pages (list item). Plan-dependent fields are optional. */
export const ScriptSchema = DetectedItemSchema.extend({
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

