// The engine boundary of every kind: the process's configuration and client, the context each call of a kind's
// handlers is given (client, preview, name, label), and `implementationOf`, where the records the engine hands a
// dynamic provider become a kind's typed inputs and outputs.
import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { ZoneGuardClient } from '../../client';
import { resolveSettings, type ClientSettings } from '../../client/settings';
import { PREVIEW_KEY } from '../../unknown';
import { label, type ResourceKind } from '../../kinds';
import { nameOf } from './ownership';
import type { Implementation, LiveObject } from './implementation';

// State of the provider process: the stack config handed to `configure`, and one client built from it. The
// implementation modules live once per process, so every resource of every type shares the client and thus the
// client's rate budget.
let lookup: (key: string) => string | undefined = () => undefined;
/** The settings resolved from `lookup`, once per `configure`: every API call asks for the client. */
let settings: ClientSettings | undefined;
let client: ZoneGuardClient | undefined;
/** The settings `client` was built from: a `configure` with equal ones keeps it. */
let clientSettings: ClientSettings | undefined;
/** Whether this process serves a preview: a check was given {@link PREVIEW_KEY}. A preview and an up are two runs, each with its own provider process. */
let previewing = false;

/**
 * Keeps the stack's config for the credentials; called by the engine before any other method, once per resource
 * kind. The client is built again only when the settings change: the kinds of one process share one client, and with
 * it the refresh's walks of the zones' lists (kit/coalesce.ts), which would otherwise start over at each kind's first call.
 */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  lookup = (key) => req.config.get(key);
  settings = undefined;
}

/** Throws SettingsError, naming the keys to set, when no credential is configured. */
function assertConfigured(): void {
  getClient();
}

/**
 * The process's client, built on first use from the config, or the environment when the config is silent; the
 * settings are resolved again only after a `configure`.
 */
function getClient(): ZoneGuardClient {
  if (client && settings) return client;
  settings = resolveSettings(lookup, process.env);
  if (!client || !isDeepStrictEqual(settings, clientSettings)) {
    client = new ZoneGuardClient({ ...settings, userAgent: 'pulumi-zoneguard-provider' });
    clientSettings = settings;
  }
  return client;
}

/**
 * Whether this run is a preview, for the wrappers of src/providers/index.ts (a sealed preview records what it saw:
 * kit/seal.ts); a kind's handlers read it from their context (`Context.preview`).
 */
export function inPreview(): boolean {
  return previewing;
}

/**
 * `impl` with a check that takes {@link PREVIEW_KEY} out of the inputs, and remembers that the run is a preview when
 * it was there. Every kind's check goes through it (providers/index.ts), so the engine stores the inputs without it.
 */
export function withPreviewKnown<I extends Pick<pulumi.dynamic.ResourceProvider, 'check'>>(impl: I): I {
  return {
    ...impl,
    async check(olds, news) {
      if (news === null || typeof news !== 'object' || !(PREVIEW_KEY in news)) return impl.check!(olds, news);
      const { [PREVIEW_KEY]: flag, ...rest } = news as Record<string, unknown>;
      if (flag === true) previewing = true;
      return impl.check!(olds, rest);
    },
  };
}

/**
 * What every handler of a kind is given with its call (`implementationOf`, below), in place of reading
 * the process's state itself: the client, whether the run is a preview, and how a message names the resource.
 */
export interface Context {
  /** The kind whose handler is called. */
  readonly kind: ResourceKind;
  /** The process's client ({@link getClient}), read at each use, so a `configure` in between is seen. */
  readonly client: ZoneGuardClient;
  /**
   * Whether this run is a preview (`pulumi preview`, or the preview `pulumi up` shows before it asks): then, and only
   * then, a ruleset write a resource would make is sent with dry_run=true first (kit/dry-run.ts), so an up pays no
   * call for it. Read at each use.
   */
  readonly preview: boolean;
  /** The resource's logical name, when the program passed it (kit/closure.ts `NAME_KEY`). */
  readonly name: string | undefined;
  /** The resource in a message, with the object's id when given: `CspPolicy 'login' 0a1b in zone 023e` (src/kinds `label`). */
  label(id?: string): string;
  /**
   * The provider the engine stores with the resource (`__provider`, kit/closure.ts `providerText`): what a failure
   * that records a partial state must carry in its properties, or the next run cannot load the resource.
   */
  readonly provider: unknown;
}

/** The context of a call of `kind`'s handlers on the resource whose inputs or outputs are `props`. */
export function contextOf(kind: ResourceKind, props: Record<string, unknown>): Context {
  const name = nameOf(props);
  return {
    kind,
    get client() {
      return getClient();
    },
    get preview() {
      return previewing;
    },
    name,
    label: (id) => label(kind, props, name, id),
    provider: props.__provider,
  };
}

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
 * context of its resource (`contextOf`). The engine's records are put in the kind's types here and nowhere else:
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

/** For tests: forget the configured client so the next call reads the config or environment again, and that a preview was seen. */
export function resetContext(): void {
  previewing = false;
  lookup = () => undefined;
  settings = undefined;
  client = undefined;
  clientSettings = undefined;
}
