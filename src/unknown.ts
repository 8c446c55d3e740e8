// What a preview puts in the values the engine passes, below every layer that reads them: the engine's placeholder for
// a value not known yet (the providers' `check` and `diff`, and `zoneguard preview-report`, which reads `pulumi
// preview --json`), and the key the resource classes add to tell the provider that the run is a preview.

/** The value the engine puts in place of an input that is not known yet during a preview. */
export const PREVIEW_UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** True when `value` is, or contains, a value not known yet during a preview. */
export function containsUnknown(value: unknown): boolean {
  if (value === PREVIEW_UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * The input the resource classes add while the program runs for a preview (`pulumi.runtime.isDryRun()`), so the
 * provider, which the engine never tells, knows its run is a preview: the host of @pulumi/pulumi (3.259 to 3.276)
 * answers no `supportsPreview`, so a preview calls check and diff and never create. The provider's check takes it out
 * of the checked inputs (providers/kit/context.ts), so it is never in the state nor in a displayed diff.
 */
export const PREVIEW_KEY = '__zoneguardPreview';
