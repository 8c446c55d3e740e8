import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { ZoneGuardClient } from '../../client';
import { resolveSettings, type ClientSettings } from '../../client/settings';
import { PREVIEW_KEY } from '../../unknown';
import { label, type ResourceKind } from '../../kinds';
import { nameOf } from './ownership';

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
export function assertConfigured(): void {
  getClient();
}

/**
 * The process's client, built on first use from the config, or the environment when the config is silent; the
 * settings are resolved again only after a `configure`.
 */
export function getClient(): ZoneGuardClient {
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
 * What every handler of a kind is given with its call (kit/implementation.ts `implementationOf`), in place of reading
 * the process's state itself: the client, whether the run is a preview, and how a message names the resource.
 */
export interface Context {
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

/** For tests: forget the configured client so the next call reads the config or environment again, and that a preview was seen. */
export function resetContext(): void {
  previewing = false;
  lookup = () => undefined;
  settings = undefined;
  client = undefined;
  clientSettings = undefined;
}
