// The seal of a preview, made from what the preview already printed and recorded (docs/sealed-previews.md): its JSON
// (the changes, and its refresh's reads of every resource of the state) and the landings its providers recorded.
// No call to the service: everything it holds, a read of the preview made. Pure.
import { RESOURCE_KINDS, STACK_OWNER, type ResourceKind } from '../kinds';
import { OWNER_ID_KEY, OWNER_KEY } from '../kinds/marker';
import { NAME_KEY } from '../providers';
import { resourceOfUrn, type PreviewDigest } from '../insights/preview-report';
import { PREVIEW_UNKNOWN } from '../unknown';
import { sealedFields } from './compare';
import { SEAL_FORMAT, type LandingRecord, type SealBody, type SealedOp, type SealedResource } from './format';

/** The engine's ops of a preview as the seal names them: a replacement's steps are one `replace`. */
const OPS: Record<string, SealedOp> = {
  create: 'create',
  update: 'update',
  delete: 'delete',
  replace: 'replace',
  'create-replacement': 'replace',
  'delete-replaced': 'replace',
  'discard-replaced': 'replace',
};

const known = (value: unknown): string | null => (typeof value === 'string' && value !== '' && value !== PREVIEW_UNKNOWN ? value : null);
type Props = Record<string, unknown> | undefined;

/** Why a preview's JSON cannot be sealed, in one line: it is what `zoneguard preview-report --seal` prints. */
export class SealMakingError extends Error {
  override readonly name = 'SealMakingError';
}

/** The stack's owner id the preview ran with: its resource's state, else what a resource passed in. */
function ownerIdOf(digest: PreviewDigest): string | null {
  for (const { urn, old } of digest.refreshed ?? []) if (resourceOfUrn(urn).kind === STACK_OWNER) return known(old?.outputs?.ownerId);
  for (const step of digest.steps ?? []) {
    const id = known(step.newState?.inputs?.[OWNER_ID_KEY]) ?? known(step.oldState?.outputs?.[OWNER_ID_KEY]);
    if (id !== null) return id;
  }
  return null;
}

/** The landing a provider recorded for the resource, matched by its owner marker, else by kind and name. */
function landingOf(records: readonly LandingRecord[], kind: string, name: string, owner: string | null) {
  const record = records.find((r) => r.kind === kind && (owner !== null && r.owner !== null ? r.owner === owner : r.name === name));
  return record?.landing ?? null;
}

/**
 * The seal of a `preview --refresh`: every resource of a zoneguard kind the preview shows changing, with its fields as
 * the state held them and as the refresh read them, and a rule create's landing. Throws SealMakingError when the
 * preview did not refresh (then it read nothing to seal) or failed.
 */
export function sealOfPreview(digest: PreviewDigest, records: readonly LandingRecord[], madeAt: string): SealBody {
  const first = digest.steps?.[0]?.urn ?? digest.refreshed?.[0]?.urn;
  if (first === undefined) throw new SealMakingError('the preview holds no resource: nothing to seal');
  if ((digest.diagnostics ?? []).some((d) => d.severity === 'error')) {
    throw new SealMakingError('the preview failed: a failed preview is not sealed; fix what its report names, then preview again');
  }
  const byUrn = new Map<string, SealedResource>();
  for (const step of digest.steps ?? []) {
    const mapped = OPS[step.op];
    const { kind, name: urnName } = resourceOfUrn(step.urn);
    if (mapped === undefined || !(RESOURCE_KINDS as readonly string[]).includes(kind)) continue;
    const [before, after] = [{ ...step.oldState?.outputs, ...step.oldState?.inputs } as Props, step.newState?.inputs as Props];
    const stepId = idOf(step.oldState);
    // A URN holds two objects when its state keeps one only to delete (a replacement stopped before its old object's
    // delete): that one's delete is a change of its own, with its own id, state and read.
    const apart = stepId !== null && byUrn.get(step.urn)?.id != null && byUrn.get(step.urn)?.id !== stepId;
    const key = apart ? `${step.urn}#${stepId}` : step.urn;
    const op = apart ? 'delete' : mapped;
    const read = readOf(digest, step.urn, stepId ?? byUrn.get(key)?.id ?? null);
    if (op !== 'create' && read === undefined) {
      throw new SealMakingError(
        `${kind} ${urnName}: the preview did not read it from the service (run pulumi preview with --refresh, as ci.sh pr does): there is nothing to seal it with`,
      );
    }
    const seen = byUrn.get(key);
    const owner = known(after?.[OWNER_KEY]) ?? known(before?.[OWNER_KEY]);
    const name = known(after?.[NAME_KEY]) ?? known(before?.[NAME_KEY]) ?? urnName;
    const liveOutputs = read?.new?.outputs;
    byUrn.set(key, {
      kind,
      name,
      owner,
      op: seen !== undefined && seen.op !== op ? 'replace' : op,
      zoneId: known(after?.zoneId) ?? known(before?.zoneId),
      id: seen?.id ?? stepId,
      state: seen?.state ?? (read?.old?.outputs ? sealedFields(kind as ResourceKind, read.old.outputs) : null),
      live: seen?.live ?? (liveOutputs && Object.keys(liveOutputs).length > 0 ? sealedFields(kind as ResourceKind, liveOutputs) : null),
      landing: seen?.landing ?? landingOf(records, kind, name, owner),
    });
  }
  const { stack, project } = stackOfUrn(first);
  return { zoneguardSeal: SEAL_FORMAT, project, stack, ownerId: ownerIdOf(digest), madeAt, resources: [...byUrn.values()] };
}

/** The service's id a state of the engine's events holds, if any. */
const idOf = (state: Record<string, unknown> | null | undefined): string | null => known(state?.id);

/**
 * The refresh's read of the object `id` of the resource `urn`. A URN holds two when its state keeps one only to
 * delete (its state marked `delete`); without an id, or in reads without ids, the resource's own (not so marked).
 */
function readOf(digest: PreviewDigest, urn: string, id: string | null) {
  const reads = (digest.refreshed ?? []).filter((entry) => entry.urn === urn);
  return reads.find((entry) => id !== null && idOf(entry.old) === id) ?? reads.find((entry) => entry.old?.delete !== true);
}

/** Stack and project from a URN (`urn:pulumi:stack::project::...`). */
function stackOfUrn(urn: string): { stack: string; project: string } {
  const [head = '', project = ''] = urn.split('::');
  return { stack: head.replace(/^urn:pulumi:/, ''), project };
}
