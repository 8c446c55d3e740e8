// A kind's handlers, typed by its inputs and outputs and given one context per call, and the engine boundary: the one
// place where the records the engine hands a dynamic provider become a kind's types (`implementationOf`).
import type * as pulumi from '@pulumi/pulumi';
import type { ResourceKind } from '../../kinds';
import { assertConfigured, configure, contextOf, type Context } from './context';
import type { Implementation, LiveObject } from './implementation';

/** The engine's record of a resource's inputs or outputs, before a kind's types are put on it. */
export type Props = Record<string, unknown>;

/** What a read answers: gone (a blank id), or the outputs and the inputs that keep a preview after refresh clean. */
export interface ReadResult<O> {
  id: string;
  props?: O;
  inputs?: Props;
}

/**
 * The handlers of a kind with inputs `I` and outputs `O`. `check` and `diff` take the engine's records as they are:
 * check is what validates them (kit/check.ts), and a preview's diff sees inputs not known yet (src/unknown.ts).
 * Create, read, update and delete take what check answered and what the kind's own handlers returned.
 */
export interface Handlers<I, O> {
  check(ctx: Context, olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult>;
  diff(ctx: Context, id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult>;
  create(ctx: Context, inputs: I): Promise<{ id: string; outs: O }>;
  read(ctx: Context, id: string, props: O): Promise<ReadResult<O>>;
  update(ctx: Context, id: string, olds: O, news: I): Promise<{ outs: O }>;
  delete(ctx: Context, id: string, props: O): Promise<void>;
  /** The object as the service holds it now, for the owner marker's read (kit/marker.ts); undefined when gone. */
  live?(ctx: Context, id: string, props: O): Promise<O | undefined>;
  /** The ids of the zone's objects carrying `marker`: where a create finds its interrupted run's object. */
  carrying?(ctx: Context, inputs: I, marker: string): Promise<string[]>;
}

/**
 * The engine boundary: a kind's typed handlers as the dynamic provider methods the engine calls, each call given the
 * context of its resource (kit/context.ts). The engine's records are put in the kind's types here and nowhere else:
 * create and update get what the kind's check answered (its args schema's output, kit/check.ts), read and delete
 * what its create, read or update returned (the wrappers of src/providers/index.ts add only engine keys).
 */
export function implementationOf<I, O>(kind: ResourceKind, handlers: Handlers<I, O>): Implementation & Partial<LiveObject> {
  const { live, carrying } = handlers;
  const ctx = (props: Props) => contextOf(kind, props ?? {});
  return {
    configure,
    // Credentials first: a stack without them fails every check with the keys to set (SettingsError).
    check: async (olds: Props, news: Props) => {
      assertConfigured();
      return handlers.check(ctx(news), olds, news);
    },
    diff: (id: string, olds: Props, news: Props) => handlers.diff(ctx(news), id, olds, news),
    create: (inputs: Props) => handlers.create(ctx(inputs), inputs as I),
    read: (id: string, props: Props) => handlers.read(ctx(props), id, props as O),
    update: (id: string, olds: Props, news: Props) => handlers.update(ctx(news), id, olds as O, news as I),
    delete: (id: string, props: Props) => handlers.delete(ctx(props), id, props as O),
    ...(live ? { live: (id: string, props: Props) => live(ctx(props), id, props as O) as Promise<Props | undefined> } : {}),
    ...(carrying ? { carrying: (props: Props, marker: string) => carrying(ctx(props), props as I, marker) } : {}),
  };
}

/**
 * A diff's old outputs in the kind's types: what its create, read or update returned, as the engine boundary takes
 * them (above). For a kind whose diff reads its own outputs (WafManagedRules: the version it last wrote).
 */
export function recordedOutputs<O>(olds: Props): O {
  return olds as O;
}

/**
 * A diff's new inputs in the kind's types: what its check answered. In a preview a value may still be unknown
 * (src/unknown.ts): the diff looks at a field's value only after `containsUnknown` says it is known.
 */
export function checkedInputs<I>(news: Props): I {
  return news as I;
}
