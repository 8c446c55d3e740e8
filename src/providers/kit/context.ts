// The engine boundary of every kind: the process's configuration and client; `withEngineRecords`, the outermost
// wrapper, where the engine's records and failures are handled for every kind at once (the preview's key, missing
// inputs, the host's echo of a failure); the context each call of a kind's handlers is given (client, preview, name,
// label); and `implementationOf`, where the records the engine hands a dynamic provider become a kind's typed inputs
// and outputs.
import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { ZoneGuardClient } from '../../client';
import { resolveSettings, type ClientSettings } from '../../client/settings';
import { PREVIEW_KEY } from '../../unknown';
import { label, type ResourceKind } from '../../kinds';
import { nameOf } from './ownership';
import { ZoneGuardError } from '../../client/errors';
import { SettingsError } from '../../client/settings';
import { missingInputsFailure } from './check';
import { ProviderError, type Implementation, type LiveObject } from './implementation';

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
 * `impl` as the engine calls it, for every kind (src/providers/index.ts, outermost): its check refuses inputs that are
 * missing or not a record in one failure before any wrapper or kind reads a field (kit/check.ts `missingInputsFailure`),
 * then takes {@link PREVIEW_KEY} out of the inputs, remembering that the run is a preview when it was there, so the
 * engine stores the inputs without it; every method's reported failure reaches the user once ({@link withQuietFailures}).
 */
export function withEngineRecords(kind: ResourceKind, impl: Implementation): Implementation {
  return withQuietFailures({
    ...impl,
    async check(olds, news) {
      const missing = missingInputsFailure(news, kind);
      if (missing) return { inputs: {}, failures: [missing] };
      if (!(PREVIEW_KEY in news)) return impl.check(olds ?? {}, news);
      const { [PREVIEW_KEY]: flag, ...rest } = news;
      if (flag === true) previewing = true;
      return impl.check(olds ?? {}, rest);
    },
  });
}

// Why a failure used to be printed twice: the dynamic provider host (@pulumi/pulumi's cmd/dynamic-provider) catches
// an error thrown by check, diff, read or delete, prints `${error}: ${error.stack}` on its stderr, and hands the
// error to the engine. The engine prints the message on the resource, and the host's stderr as well, under the
// stack: the message again, then a stack trace (into src/*.ts through the source maps). create and update only hand
// the error on. So the failures zoneguard reports on purpose are kept out of that stderr echo; the engine's own line
// on the resource stays. docs/failures.md shows what a user sees.

/** Set to 1 to see the host's echo, with the stack trace, of every failure again. */
export const DEBUG_VARIABLE = 'ZONEGUARD_DEBUG';

/**
 * The failures zoneguard reports on purpose, with a message that names the resource and what to do: the service's
 * refusals and network failures (the client's error tree), a provider's own refusals, missing or malformed settings.
 * Anything else (a TypeError, say) is a bug, and keeps its stack trace.
 */
export function isReportedFailure(error: unknown): boolean {
  return error instanceof ProviderError || error instanceof ZoneGuardError || error instanceof SettingsError;
}

/** What the host prints for an error it caught: exactly its format, so only that line is recognized. */
export function hostEcho(error: Error): string {
  return `${String(error)}: ${error.stack}`;
}

const expectedEchoes = new Set<string>();

/** The methods whose failures the host echoes (create and update only hand theirs on); configure runs inside them. */
const ECHOED = new Set(['configure', 'check', 'diff', 'read', 'delete']);

/**
 * The implementation with every method noting the echo of a reported failure before it reaches the host, so that
 * the filter installed by {@link quietHostEchoes} drops it. Nothing changes when ZONEGUARD_DEBUG is set.
 */
export function withQuietFailures(implementation: Implementation, env: Record<string, string | undefined> = process.env): Implementation {
  if (env[DEBUG_VARIABLE]) return implementation;
  const quiet = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(implementation) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    quiet[name] = async (...args: unknown[]) => {
      try {
        return await method.apply(implementation, args);
      } catch (error) {
        if (ECHOED.has(name) && error instanceof Error && isReportedFailure(error)) expectedEchoes.add(hostEcho(error));
        throw error;
      }
    };
  }
  return quiet as Implementation;
}

/**
 * Makes `target.error` (the host's console) drop the echo of a failure noted by {@link withQuietFailures}, once
 * each; everything else, our own notes and the echo of a bug included, is printed as before. Idempotent.
 */
export function quietHostEchoes(target: Pick<Console, 'error'> = console): void {
  const original = target.error as ((...args: unknown[]) => void) & { quiet?: true };
  if (original.quiet) return;
  const filtered = Object.assign(
    (...args: unknown[]) => {
      if (args.length === 1 && typeof args[0] === 'string' && expectedEchoes.delete(args[0])) return;
      original.apply(target, args);
    },
    { quiet: true as const },
  );
  target.error = filtered;
}

/** True in the dynamic provider host's process, the only one whose console gets {@link quietHostEchoes}. */
export function isDynamicProviderHost(argv: readonly string[] = process.argv): boolean {
  return /[\\/]cmd[\\/]dynamic-provider([\\/]index(\.js)?)?$/.test(argv[1] ?? '');
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
