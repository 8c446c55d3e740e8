import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { PREVIEW_UNKNOWN, containsUnknown } from './check';

/** How one input compares: `replace` fields cannot change in place; `ignore` fields are read only at create. */
export interface DiffPlan<K extends string> {
  fields: readonly K[];
  replace?: readonly K[];
  deleteBeforeReplace?: boolean;
}

/**
 * Compares old outputs with new checked inputs, field by field, after both went through the same normalization.
 * A field absent from the new inputs is unmanaged and never a change; an unknown new value is a change (the engine
 * shows it as "output of"). `changes` is always set, so the engine never diffs the inputs itself.
 */
export function diffFields<K extends string>(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  plan: DiffPlan<K>,
  normalize: (field: K, value: unknown) => unknown = (_field, value) => value,
): pulumi.dynamic.DiffResult & { changes: boolean; changed: K[] } {
  const changed = plan.fields.filter((field) => {
    const next = news[field];
    if (next === undefined) return false;
    if (next === PREVIEW_UNKNOWN || containsUnknown(next)) return true;
    return !isDeepStrictEqual(normalize(field, olds[field]), normalize(field, next));
  });
  const replaces = changed.filter((field) => plan.replace?.includes(field));
  return {
    changes: changed.length > 0,
    changed,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && plan.deleteBeforeReplace === true ? true : undefined,
  };
}

/** The listed fields of `record`, typed: how outputs and request bodies are built from a resource's field table. */
export function pickFields<T extends object, K extends keyof T>(record: T, fields: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const field of fields) picked[field] = record[field];
  return picked;
}
