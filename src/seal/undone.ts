// What a `preview --refresh` shows a reviewer apart from the program's own changes (docs/sealed-previews.md): per
// resource, the live changes made on the service since the stack's last up that the up would undo (a field edited in
// the dashboard that the program still declares as before, an object deleted by hand that the up creates again). Pure.
import { isDeepStrictEqual } from 'node:util';
import { RESOURCE_KINDS, type ResourceKind } from '../kinds';
import { fieldChanges, sealedFields, type FieldChange } from './compare';

/** A resource a `preview --refresh` read: its outputs as the state held them and as read, and what the preview does to it. */
export interface RefreshedResource {
  kind: string;
  name: string;
  /** The engine's ops of the preview's steps of it (none: unchanged). */
  ops: ReadonlySet<string>;
  state: Record<string, unknown> | undefined;
  live: Record<string, unknown> | undefined;
  /** The inputs the program declares for it. */
  declared: Record<string, unknown> | undefined;
}

/** One resource whose live object the up would put back. */
export interface UndoneChange {
  kind: ResourceKind;
  name: string;
  zoneId: string | undefined;
  /** The fields edited since the last up: `sealed` as the state holds them (what the up writes back), `now` live. */
  fields: FieldChange[];
  /** Deleted on the service since the last up: the up creates it again. */
  deleted: boolean;
}

/** The live changes since the last up that the preview's up undoes, in the order given. */
export function undoneChanges(resources: readonly RefreshedResource[]): UndoneChange[] {
  return resources.flatMap((resource): UndoneChange[] => {
    const { name, ops, state, live, declared } = resource;
    if (!(RESOURCE_KINDS as readonly string[]).includes(resource.kind) || ops.size === 0 || state === undefined) return [];
    const kind = resource.kind as ResourceKind;
    const zoneId = typeof state.zoneId === 'string' ? state.zoneId : undefined;
    if (live === undefined || Object.keys(live).length === 0) return ops.has('create') ? [{ kind, name, zoneId, fields: [], deleted: true }] : [];
    if (declared === undefined) return [];
    // A field the program changes too is the program's change, in the table; here only what the up puts back as it was.
    const wanted = sealedFields(kind, declared);
    const fields = fieldChanges(sealedFields(kind, state), sealedFields(kind, live)).filter(({ field, sealed }) => isDeepStrictEqual(wanted[field], sealed));
    return fields.length > 0 ? [{ kind, name, zoneId, fields, deleted: false }] : [];
  });
}
