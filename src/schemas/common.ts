import { z } from 'zod';

/** The shape of every identifier of the service (zones, objects, managed rules): 32 lowercase hexadecimal characters. */
export const HEX_ID_PATTERN = /^[0-9a-f]{32}$/;

/** A zone identifier: 32 lowercase hexadecimal characters. */
export const ZoneIdSchema = z.string().regex(HEX_ID_PATTERN, 'must be a zone id: 32 lowercase hexadecimal characters');

/** An identifier the service assigns (rules, filters, policies, detected items): hexadecimal. */
export const HexIdSchema = z.string().regex(HEX_ID_PATTERN, 'must be an identifier: 32 lowercase hexadecimal characters');

/** An RFC 3339 UTC timestamp, with or without fractional seconds. */
export const TimestampSchema = z.iso.datetime({ offset: true });

/** One item of the envelope's `errors` or `messages` array. */
export const ErrorItemSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  documentation_url: z.string().optional(),
  source: z.object({ pointer: z.string() }).optional(),
});
export type ErrorItem = z.infer<typeof ErrorItemSchema>;

/**
 * Paging facts of a list response: the page security lists carry all five (docs/service.md#envelope); the public
 * API's firewall rules, filters and previous-WAF lists omit total_pages, so it is optional here, or the client
 * would refuse their answers.
 */
export const ResultInfoSchema = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  count: z.number().int(),
  total_count: z.number().int(),
  total_pages: z.number().int().optional(),
});
export type ResultInfo = z.infer<typeof ResultInfoSchema>;

/** The envelope every response carries; `result` is checked separately by the caller's own schema. */
export const EnvelopeSchema = z.object({
  result: z.unknown(),
  success: z.boolean(),
  errors: z.array(ErrorItemSchema),
  messages: z.array(z.unknown()).default([]),
  result_info: ResultInfoSchema.optional(),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** Detected-item status values: active, infrequent, and inactive (docs/service.md#detected-items). */
export const DetectedStatusSchema = z.enum(['active', 'infrequent', 'inactive']);
export type DetectedStatus = z.infer<typeof DetectedStatusSchema>;

/** Bounds of list paging, written where they are enforced (emulator) and obeyed (client). */
export const PAGING = {
  /** The public API accepts per_page 1-100. */
  maxPerPage: 100,
  /** The page size of the service's examples (docs/service.md#lists); the emulator's default. */
  defaultPerPage: 15,
} as const;

/** A whole number in a query string, within bounds, with messages naming the field. */
export const queryIntSchema = (field: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${field} must be a whole number`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `${field} must be at least ${min}`)
        .max(max, `${field} must be at most ${max}`),
    );

/**
 * Query parameters of the scripts, connections and cookies lists, as strings on the wire.
 * `page` may also be `all` (public API); `status` and `hosts` are comma lists.
 */
export const DetectedListQuerySchema = z.object({
  hosts: z.string().optional(),
  status: z.string().optional(),
  page: z.union([z.literal('all'), queryIntSchema('page', 1, Number.MAX_SAFE_INTEGER)]).optional(),
  per_page: queryIntSchema('per_page', 1, PAGING.maxPerPage).optional(),
  exclude_cdn_cgi: z.enum(['true', 'false']).optional(),
  order_by: z.string().optional(),
  direction: z.enum(['asc', 'desc']).optional(),
  prioritize_malicious: z.enum(['true', 'false']).optional(),
});
export type DetectedListQuery = z.input<typeof DetectedListQuerySchema>;

/**
 * A value quoted for a message, cut to `max` characters with its length said (`"aaaa…" (10000000 characters)`), so
 * a message never carries a huge or multi-line value whole.
 */
export function quoteExcerpt(text: string, max = 60): string {
  return text.length > max ? `${JSON.stringify(text.slice(0, max)).slice(0, -1)}…" (${text.length} characters)` : JSON.stringify(text);
}

/** Turns a zod error into one readable line per issue: `path: message`. */
export function formatZodIssues(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}

/**
 * Each value of a list that repeats an earlier one: its index, the value and the index of its first occurrence.
 * Undefined and empty values are skipped. The one duplicate check of the project, for every message of its own. Pure.
 */
export function repeats(values: readonly (string | undefined)[]): Array<{ index: number; value: string; first: number }> {
  const first = new Map<string, number>();
  const found: Array<{ index: number; value: string; first: number }> = [];
  values.forEach((value, index) => {
    if (value === undefined || value === '') return;
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, index);
    else found.push({ index, value, first: earlier });
  });
  return found;
}
