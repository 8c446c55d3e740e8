// The engine's placeholder for a value not known yet during a preview, below every layer that reads engine values:
// the providers' `check` and `diff`, and `zoneguard preview-report`, which reads `pulumi preview --json`.

/** The value the engine puts in place of an input that is not known yet during a preview. */
export const PREVIEW_UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** True when `value` is, or contains, a value not known yet during a preview. */
export function containsUnknown(value: unknown): boolean {
  if (value === PREVIEW_UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknown);
  return false;
}
