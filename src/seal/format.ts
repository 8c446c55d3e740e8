// The seal of a preview (docs/sealed-previews.md): what a reviewed `pulumi preview --refresh` saw of the live objects
// its changes touch, written by `zoneguard preview-report --seal` beside the Markdown report, and read back by the
// providers of the `up` that keeps it (ZONEGUARD_SEAL). Pure: the shape, its canonical text and its digest.
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The version of the seal's format: a seal of another version is refused, never half read. */
export const SEAL_FORMAT = 1;

/** A rule of the phase next to where a create lands: its id, its own ref and owner marker (none: unmarked). */
export const NeighbourSchema = z.strictObject({ id: z.string(), ref: z.string(), marker: z.string().nullable() });
export type Neighbour = z.infer<typeof NeighbourSchema>;

/**
 * Where a create of a ruleset rule lands among the rules the zone held at the preview: the rules just before and
 * just after it (null at an end). The up compares them with the rules around the same place then.
 */
export const LandingSchema = z.strictObject({
  phase: z.string(),
  before: NeighbourSchema.nullable(),
  after: NeighbourSchema.nullable(),
});
export type Landing = z.infer<typeof LandingSchema>;

/** What the preview does to a resource: the engine's ops, a replacement's several steps as one. */
export const SEALED_OPS = ['create', 'update', 'replace', 'delete'] as const;
export type SealedOp = (typeof SEALED_OPS)[number];

/** The compared fields of a kind (src/seal/fields.ts), as a record: a missing value is absent. */
const FieldsSchema = z.record(z.string(), z.unknown());

/** One resource the preview shows changing. */
export const SealedResourceSchema = z.strictObject({
  kind: z.string(),
  /** The logical name, as the resource classes pass it to the provider (`__zoneguardName`). */
  name: z.string(),
  /** The owner marker the program gives it (`__zoneguardOwner`); null in a new stack's first preview, which draws none. */
  owner: z.string().nullable(),
  op: z.enum(SEALED_OPS),
  zoneId: z.string().nullable(),
  /** The service's id the state holds (null for a create). */
  id: z.string().nullable(),
  /** Its compared fields as the stack's state held them at the preview: an up from another state is an older preview. */
  state: FieldsSchema.nullable(),
  /** Its compared fields as the preview's refresh read them from the service; null when there is nothing to read (a create). */
  live: FieldsSchema.nullable(),
  /** For a create of a ruleset rule: where it lands, from the read the preview's dry run made. */
  landing: LandingSchema.nullable(),
});
export type SealedResource = z.infer<typeof SealedResourceSchema>;

/** The seal without its digest: what the digest covers. */
export const SealBodySchema = z.strictObject({
  zoneguardSeal: z.literal(SEAL_FORMAT),
  project: z.string(),
  stack: z.string(),
  /** The stack's owner id (docs/ownership.md#owner-id) the preview ran with; null before the stack's first up. */
  ownerId: z.string().nullable(),
  madeAt: z.string(),
  resources: z.array(SealedResourceSchema),
});
export type SealBody = z.infer<typeof SealBodySchema>;

export const SealSchema = SealBodySchema.extend({ digest: z.string() });
export type Seal = z.infer<typeof SealSchema>;

/** JSON with every object's keys sorted: one text for one content, whatever order the keys were built in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** The digest over a seal's content: `sha256:` and the hex digest of its canonical JSON. */
export function sealDigest(body: SealBody): string {
  return `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

/** The file's text: the body and its digest, indented for a reviewer. */
export function sealText(body: SealBody): string {
  return `${JSON.stringify({ ...body, digest: sealDigest(body) }, null, 2)}\n`;
}

/**
 * The seal a file holds, or why it is refused, in one line naming the file: not a seal of this version, or its
 * content does not match its digest (edited, truncated, or put together from two seals). Pure.
 */
export function readSeal(text: string, file: string): { seal: Seal } | { refusal: string } {
  const again = 'run the pull request\'s preview again (ci.sh pr) and use the seal it writes';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { refusal: `zoneguard: the seal ${file} is not JSON; ${again}` };
  }
  const parsed = SealSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      refusal: `zoneguard: the seal ${file} is not a seal of this version of zoneguard (${issue.path.join('.') || 'the file'}: ${issue.message}); ${again}`,
    };
  }
  const { digest, ...body } = parsed.data;
  if (sealDigest(body) !== digest) {
    return { refusal: `zoneguard: the seal ${file} was changed after the preview wrote it (its content does not match its digest); ${again}` };
  }
  return { seal: parsed.data };
}

/**
 * What a preview's provider records while the preview runs, one JSON line each in the file ZONEGUARD_SEAL_RECORD
 * names: where a create of a ruleset rule lands, which the preview's JSON does not carry (src/seal/record.ts).
 */
export const LandingRecordSchema = z.strictObject({
  kind: z.string(),
  name: z.string(),
  owner: z.string().nullable(),
  zoneId: z.string(),
  landing: LandingSchema,
});
export type LandingRecord = z.infer<typeof LandingRecordSchema>;
