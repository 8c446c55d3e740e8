// The one create, adopt, read, update and delete of every kind that holds many objects per zone (CspPolicy,
// FirewallFilter, FirewallRule, FirewallRuleWithFilter, CustomRule, RateLimitRule): each kind is an ObjectSpec over it,
// its calls and what it does differently as hooks. The owner marker's read and rule run around it (kit/marker.ts).
import type * as pulumi from '@pulumi/pulumi';
import { declarationOf, diffPlan, type ResourceKind } from '../../kinds';
import { markerIn } from '../../schemas/owner-marker';
import { checkWithSchema } from './check';
import { diffFields } from './diff';
import { implementationOf, type Handlers, type Props, type Context } from './context';
import { ProviderError, unlessNotFound, type Implementation, type LiveObject } from './implementation';

/** What every kind of many objects per zone declares first: its zone. */
export interface ZoneInputs {
  zoneId: string;
}

/** How a delete removes the object: the kind's call, what its step says, and what it does when the object was gone. */
export interface Removal {
  /** The step's words, when they say more than `deleting <object>`. */
  what?: string;
  /** The delete; the flow takes the service's "not found" as done. */
  call(): Promise<unknown>;
  /** After a delete that found the object gone already: what it may have left (a single-call rule's filter). */
  ifGone?(): Promise<void>;
}

/** What each kind of many objects per zone tells the flow; its noun, adopt input and computed outputs come from its declaration. */
interface SpecBase<W extends { id: string }, I extends ZoneInputs, O extends I> {
  kind: ResourceKind;
  /** What the steps call the object: `the policy`, `the filter`, `the custom rule`. */
  object: string;
  /** Runs one step, prefixing a failure with the resource and the step (kit/implementation.ts `step`, or the firewall's). */
  step<T>(what: string, call: () => Promise<T>): Promise<T>;
  /** Runs a write of the zone, so that the zone's coalesced reads never answer from a listing older than it. */
  writing<T>(zoneId: string, call: () => Promise<T>): Promise<T>;
  /** A refresh's read, coalesced (kit/coalesce.ts); undefined when the service says the object is gone. */
  read(ctx: Context, zoneId: string, id: string): Promise<W | undefined>;
  /** The owner marker's read before a write, when the kind keeps a fresher view than a refresh's (the phase rules' entry point). */
  live?(ctx: Context, id: string, props: O): Promise<W | undefined>;
  /** The zone's objects, listed once per run (kit/coalesce.ts `listing`): where a create finds its interrupted run's object. */
  listing(ctx: Context, zoneId: string): Promise<readonly { id?: string | undefined }[]>;
  /** The object a create takes over (the kind's adopt input), if any. */
  adopting(inputs: I): string | undefined;
  /** Makes the object (with the kind's recovery of what a refused create left, where it has one). */
  create(ctx: Context, inputs: I): Promise<W>;
  /** The create step's words, when they say more than `creating <object>`. */
  creating?(inputs: I): string;
  /** Brings the object to the declared fields; `current` is what the owner marker's read (or the adoption) found. */
  update(ctx: Context, inputs: I, id: string, current: O): Promise<W>;
  /** How the delete of the object `props` records removes it. */
  remove(ctx: Context, id: string, props: O): Removal;
  /** The service's answer in the provider's names; `declared` gives the zone and what the service does not hold (the adopt input). */
  outputs(object: W, declared: I): O;
}

/**
 * How a create takes an existing object over: the kind's own way (`adopt`), or by default a read by id, then an
 * update of what differs (`matches` says nothing does: an adoption then writes nothing).
 */
type Adoption<W, I, O> =
  | { adopt(ctx: Context, inputs: I, id: string): Promise<W> }
  | { get(ctx: Context, zoneId: string, id: string): Promise<W>; matches(current: O, inputs: I): boolean };

export type ObjectSpec<W extends { id: string }, I extends ZoneInputs, O extends I> = SpecBase<W, I, O> & Adoption<W, I, O>;

/**
 * How a kind of many objects is checked and diffed: by default, its args schema (kit/check.ts) and its field table
 * (src/kinds `diffPlan`); `check` and `diff` replace them for a kind that does more (the phase rules' dry runs).
 */
export interface Checks<I> {
  /** The inputs that may hold tabs and line breaks (expressions). */
  multiline?: readonly string[];
  /** Failures across fields the schema leaves to the kind (products with bypass only), one per field. */
  failures?(news: Props): pulumi.dynamic.CheckFailure[];
  /** How a field compares in a diff (a set as sorted, absent as its default). */
  normalize?(field: string, value: unknown): unknown;
  check?: Handlers<I, unknown>['check'];
  diff?: Handlers<I, unknown>['diff'];
}

/** The handlers the flow gives a kind: all but its check and diff. */
export type ObjectHandlers<I, O> = Required<Pick<Handlers<I, O>, 'create' | 'read' | 'update' | 'delete' | 'live' | 'carrying'>>;

/** The create, read, update and delete of a kind that holds many objects per zone, from its spec. */
export function objectFlow<W extends { id: string }, I extends ZoneInputs, O extends I>(spec: ObjectSpec<W, I, O>): ObjectHandlers<I, O> {
  const { identity, outputs: computed } = declarationOf(spec.kind);
  const { object } = spec;

  async function adopt(ctx: Context, inputs: I, id: string): Promise<W> {
    if ('adopt' in spec) return spec.adopt(ctx, inputs, id);
    const found = await unlessNotFound(() => spec.get(ctx, inputs.zoneId, id), undefined);
    if (!found) {
      throw new ProviderError(
        `${ctx.label()}: ${identity.adoptInput} ${id} names no ${identity.noun} of this zone; check the id (zoneguard export lists them), ` +
          `or remove ${identity.adoptInput} to create a new ${object.replace(/^the /, '')}`,
      );
    }
    // Read first, and write only what differs: adopting an object already as declared changes nothing.
    const current = spec.outputs(found, inputs);
    return spec.matches(current, inputs) ? found : spec.update(ctx, inputs, id, current);
  }

  const computedKeys: ReadonlySet<string> = new Set<string>(computed);
  /** The inputs a read reports, so a preview after refresh is clean: the outputs without what the provider computes. */
  const inputsOf = (outs: O): Props => Object.fromEntries(Object.entries(outs).filter(([key]) => !computedKeys.has(key)));

  return {
    async live(ctx, id, props) {
      const found = await spec.step(`${ctx.label(id)}: reading ${object}`, () => (spec.live ? spec.live(ctx, id, props) : spec.read(ctx, props.zoneId, id)));
      return found && spec.outputs(found, props);
    },

    async carrying(ctx, inputs, marker) {
      const objects = await spec.step(`${ctx.label()}: listing the zone's objects for one its interrupted run made`, () => spec.listing(ctx, inputs.zoneId));
      return objects.flatMap((found) => (found.id !== undefined && markerIn(found, identity.marker) === marker ? [found.id] : []));
    },

    async create(ctx, inputs) {
      const adopted = spec.adopting(inputs);
      const made = await spec.writing(inputs.zoneId, () =>
        adopted
          ? spec.step(`${ctx.label(adopted)}: adopting ${object}`, () => adopt(ctx, inputs, adopted))
          : spec.step(`${ctx.label()}: ${spec.creating?.(inputs) ?? `creating ${object}`}`, () => spec.create(ctx, inputs)),
      );
      return { id: made.id, outs: spec.outputs(made, inputs) };
    },

    async read(ctx, id, recorded) {
      const found = await spec.step(`${ctx.label(id)}: reading ${object}`, () => spec.read(ctx, recorded.zoneId, id));
      // Deleted out of band: a blank id takes the resource out of the state, and the next up creates it again.
      if (!found) return { id: '' };
      const outs = spec.outputs(found, recorded);
      return { id, props: outs, inputs: inputsOf(outs) };
    },

    async update(ctx, id, olds, news) {
      const written = await spec.writing(news.zoneId, () => spec.step(`${ctx.label(id)}: updating ${object}`, () => spec.update(ctx, news, id, olds)));
      return { outs: spec.outputs(written, news) };
    },

    async delete(ctx, id, props) {
      const removal = spec.remove(ctx, id, props);
      await spec.writing(props.zoneId, async () => {
        // Already gone is what delete wants: not an error.
        const removed = await spec.step(`${ctx.label(id)}: ${removal.what ?? `deleting ${object}`}`, () =>
          unlessNotFound(() => removal.call().then(() => true), false),
        );
        if (!removed) await removal.ifGone?.();
      });
    },
  };
}

/** Every method of a kind of many objects per zone, from its spec: the engine's entry to it (kit/context.ts `implementationOf`). */
export function objectKind<W extends { id: string }, I extends ZoneInputs, O extends I>(
  spec: ObjectSpec<W, I, O> & Checks<I>,
): Implementation & Partial<LiveObject> {
  const { args } = declarationOf(spec.kind);
  const plan = diffPlan(declarationOf(spec.kind));
  return implementationOf<I, O>(spec.kind, {
    check:
      spec.check ??
      (async (_ctx, _olds, news) => {
        const result = checkWithSchema(args, news, spec.kind, { multiline: spec.multiline ?? [] });
        const more = spec.failures?.(news) ?? [];
        return more.length === 0 ? result : { inputs: news, failures: [...result.failures, ...more] };
      }),
    diff: spec.diff ?? (async (_ctx, _id, olds, news) => diffFields(olds, news, plan, spec.normalize)),
    ...objectFlow(spec),
  });
}
