import { z } from 'zod';
import type * as pulumi from '@pulumi/pulumi';
import { NAME_KEY } from './closure';

/** The value the engine puts in place of an input that is not known yet during a preview. */
export const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** True when `value` is, or contains, a value not known yet during a preview. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknown);
  return false;
}

/** Keys the engine (the provider) and the resource classes (the name) add to the inputs; never validated, always passed through. */
const ENGINE_KEYS = new Set(['__provider', NAME_KEY]);

export type CheckResult<T> = pulumi.dynamic.CheckResult<T> & { failures: pulumi.dynamic.CheckFailure[] };

/**
 * Validates a resource's inputs with its zod schema before any API call. An input not known yet (preview) is left
 * out of the validation and passed through as it is; every other field gets one failure with a reason a user can
 * act on. The returned inputs are the schema's output (defaults applied) plus the unknown and engine keys.
 */
export function checkWithSchema<S extends z.ZodObject>(
  schema: S,
  news: Record<string, unknown>,
  resource: string,
): CheckResult<Record<string, unknown>> {
  const passthrough: Record<string, unknown> = {};
  const known: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(news)) {
    if (ENGINE_KEYS.has(key) || containsUnknown(value)) passthrough[key] = value;
    else known[key] = value;
  }
  const mask = Object.fromEntries(
    Object.keys(passthrough)
      .filter((key) => key in schema.shape)
      .map((key) => [key, true]),
  );
  const parsed = (schema.omit(mask as never) as z.ZodObject).safeParse(known);
  if (parsed.success) {
    return { inputs: { ...(parsed.data as Record<string, unknown>), ...passthrough }, failures: [] };
  }
  return { inputs: news, failures: failuresFromZod(parsed.error, resource) };
}

/** One check failure per zod issue: the property path as the engine names it, and a reason that says what to do. */
export function failuresFromZod(error: z.ZodError, resource: string): pulumi.dynamic.CheckFailure[] {
  return error.issues.map((issue) => {
    const property = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `"${k}"`).join(', ');
      // At the top an unknown key is an input of the resource; deeper it is a key of that input.
      return property
        ? { property, reason: `${resource}.${property}: unknown key ${keys}; remove it or check its spelling` }
        : { property: issue.keys[0] ?? '', reason: `${resource}: unknown input ${keys}; remove it or check its spelling` };
    }
    return { property, reason: `${resource}.${property || 'inputs'}: ${issue.message}` };
  });
}
