// The up that keeps a seal (docs/sealed-previews.md): every write of a resource is one the sealed preview showed, from
// the state it was made from, and the object it writes is as the preview read it. Each check uses what the write reads
// anyway (the owner marker's read, a create's read of the entry point): no call of its own. Without ZONEGUARD_SEAL,
// every function here returns at once.
import { declarationOf, label, type ResourceKind } from '../../kinds';
import type { DeclaredRule } from '../../rulesets';
import type { RulesetRule } from '../../schemas';
import { splitMarked } from '../../schemas/owner-marker';
import {
  fieldChanges,
  goneRefusal,
  landingAmong,
  landingRefusal,
  liveRefusal,
  sealedFields,
  stackRefusal,
  stateRefusal,
  uncoveredRefusal,
} from '../../seal/compare';
import type { Seal, SealedOp, SealedResource } from '../../seal/format';
import { SEAL_VARIABLE, SealRefusedError, activeSeal, recordLanding } from '../../seal/session';
import { NAME_KEY } from './closure';
import { inPreview, type Context } from './context';
import { ProviderError, type Implementation } from './implementation';
import { nameOf, ownerOf } from './ownership';

/** The seal this up keeps, or undefined; a refused file as the provider's one-line failure. */
function sealed(): Seal | undefined {
  try {
    return activeSeal();
  } catch (error) {
    if (error instanceof SealRefusedError) throw new ProviderError(error.message);
    throw error;
  }
}

/**
 * The seal's entry of the resource of `props`: by its owner marker, else (a new stack's first preview) by kind and
 * name. A resource has two when its state keeps an object only to delete (a replacement stopped before its old
 * object's delete: src/seal/make.ts): the object `id`'s, else its change's (the first).
 */
export function sealedEntry(seal: Seal, kind: ResourceKind, props: Record<string, unknown>, id?: string): SealedResource | undefined {
  const owner = ownerOf(props) ?? null;
  const name = nameOf(props);
  const entries = seal.resources.filter(
    (entry) => entry.kind === kind && (entry.owner !== null && owner !== null ? entry.owner === owner : entry.name === name),
  );
  return entries.find((entry) => id !== undefined && entry.id === id) ?? entries[0];
}

const what = (kind: ResourceKind, props: Record<string, unknown>, id?: string) => label(kind, props, nameOf(props), id);

/** Refuses a write the seal does not show (`ops`: the sealed ops it may be part of), or from another state than the preview's. */
function assertCovered(
  seal: Seal,
  kind: ResourceKind,
  op: SealedOp,
  ops: readonly SealedOp[],
  props: Record<string, unknown>,
  olds?: Record<string, unknown>,
  id?: string,
): void {
  const entry = sealedEntry(seal, kind, props, id);
  if (entry === undefined || !ops.includes(entry.op)) throw new ProviderError(uncoveredRefusal(what(kind, props, id), op, entry?.op));
  if (olds === undefined || entry.state === null) return;
  const moved = fieldChanges(entry.state, sealedFields(kind, olds));
  if (moved.length > 0) throw new ProviderError(stateRefusal(what(kind, props, id), moved));
}

/**
 * The implementation with every create, update and delete refused when the seal does not show it (nor its state),
 * checked before any call; in the up's own preview, a diff that finds a change the seal does not show fails it there,
 * before the up writes anything.
 */
export function withSeal(kind: ResourceKind, impl: Implementation): Implementation {
  return {
    ...impl,
    async diff(id, olds, news) {
      const result = await impl.diff(id, olds, news);
      const seal = inPreview() && result.changes ? sealed() : undefined;
      if (seal) assertCovered(seal, kind, (result.replaces ?? []).length > 0 ? 'replace' : 'update', ['update', 'replace'], news, olds, id);
      return result;
    },
    async create(inputs) {
      const seal = sealed();
      if (seal) assertCovered(seal, kind, 'create', ['create', 'replace'], inputs);
      const result = await impl.create(inputs);
      made.add(result.id);
      return result;
    },
    async update(id, olds, news) {
      const seal = sealed();
      if (seal) assertCovered(seal, kind, 'update', ['update'], news, olds, id);
      return impl.update(id, olds, news);
    },
    async delete(id, props) {
      const seal = sealed();
      if (seal) assertCovered(seal, kind, 'delete', ['delete', 'replace'], props, props, id);
      return impl.delete(id, props);
    },
  };
}

/**
 * Before an update or delete writes: the object as the write's own read found it (`object`, undefined when gone) must be
 * as the sealed preview read it.
 */
export function assertSealedLive(kind: ResourceKind, props: Record<string, unknown>, id: string, object: Record<string, unknown> | undefined): void {
  const seal = sealed();
  const entry = seal && sealedEntry(seal, kind, props, id);
  if (entry?.live == null) return;
  if (object === undefined) throw new ProviderError(goneRefusal(what(kind, props, id)));
  const changes = fieldChanges(entry.live, sealedFields(kind, object));
  if (changes.length === 0) return;
  // A rule is named by its ref and owner marker as well (the object a filter or a policy is, its label says).
  const { object: type } = declarationOf(kind).identity;
  const ref = splitMarked(typeof object.ref === 'string' ? object.ref : '');
  const rule = type === 'rulesetRule' || type === 'firewallRule' ? { id, ref: ref.own, marker: ref.marker ?? null } : null;
  throw new ProviderError(liveRefusal(what(kind, props, id), changes, rule));
}

/**
 * Whether a sealed up compares the resource's live object before its write: its seal holds the preview's read of it.
 * False without ZONEGUARD_SEAL: a kind whose write reads nothing first (PageGuardSettings) reads only when true.
 */
export function sealsLive(kind: ResourceKind, props: Record<string, unknown>): boolean {
  const seal = sealed();
  return seal !== undefined && sealedEntry(seal, kind, props)?.live != null;
}

/** The objects this process's creates made: where a later create of the run lands is compared among the others. */
const made = new Set<string>();

/**
 * Where a create or move of a ruleset rule lands, among the zone's rules of the phase as the write's read found them
 * (`rules`; those this run made, and a preview's creates, which have no id yet, left out): in a sealed preview,
 * recorded for the seal; in the up that keeps one, refused when its neighbours are not those the preview showed.
 */
export function sealLanding(ctx: Context, rule: DeclaredRule, phase: string, rules: readonly RulesetRule[]): void {
  const now = landingAmong(
    phase,
    rules.filter((other) => other.id !== undefined && !made.has(other.id)),
    rule.position,
  );
  if (now === undefined) return;
  // The checked inputs as a record: the engine keys check let through (its name and owner) are read from it.
  const props: Record<string, unknown> = { ...rule };
  const name = ctx.name ?? nameOf(props) ?? '';
  if (ctx.preview) {
    recordLanding({ kind: ctx.kind, name, owner: ownerOf(props) ?? null, zoneId: rule.zoneId, landing: now });
    return;
  }
  const seal = sealed();
  const entry = seal && sealedEntry(seal, ctx.kind, { ...props, [NAME_KEY]: name });
  const refusal = entry?.landing ? landingRefusal(ctx.label(), entry.landing, now) : undefined;
  if (refusal) throw new ProviderError(refusal);
}

/** The stack's gate, from its owner id's resource (providers/stack-owner.ts): a seal of another stack is refused before any resource registers. */
export function assertSealOfStack(ownerId: string | null): void {
  const seal = sealed();
  const refusal = seal && stackRefusal(seal, process.env[SEAL_VARIABLE]!, ownerId);
  if (refusal) throw new ProviderError(refusal);
}
