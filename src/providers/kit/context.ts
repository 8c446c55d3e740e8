import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { ZoneGuardClient } from '../../client';
import { resolveSettings, type ClientSettings } from '../../client/settings';

// State of the provider process: the stack config handed to `configure`, and one client built from it. The
// implementation modules live once per process, so every resource of every type shares the client and thus the
// client's rate budget.
let lookup: (key: string) => string | undefined = () => undefined;
/** The settings resolved from `lookup`, once per `configure`: every API call asks for the client. */
let settings: ClientSettings | undefined;
let client: ZoneGuardClient | undefined;
/** The settings `client` was built from: a `configure` with equal ones keeps it. */
let clientSettings: ClientSettings | undefined;

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

/** For tests: forget the configured client so the next call reads the config or environment again. */
export function resetContext(): void {
  lookup = () => undefined;
  settings = undefined;
  client = undefined;
  clientSettings = undefined;
}
