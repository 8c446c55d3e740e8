import '../node-version'; // first: an unsupported Node fails here, saying what to install
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { EmulatorAdmin } from './admin-client';
import type { EmulatorCredentials } from './credentials';
import { describeCredentials } from './admin';
import { isLoopbackAddress } from './admin-guard';
import { ADMIN_PREFIX, API_PREFIX, EmulatorContext } from './context';
import { demoSeed } from './demo';
import { applySeedFile, type SeedFile } from './seed';
import { buildServer } from './server';
import { EmulatorState, loadStateFile, type Plan } from './state';

export { EmulatorAdmin, EmulatorAdminError, type AdminZone, type ZoneInventory } from './admin-client';
export type { EmulatorCredentials } from './credentials';
export type { TokenGrant } from './credentials';
export type { RequestCounters, RequestLogEntry } from './context';
export type { FaultSpec } from './faults';
export { SeedFileSchema, ZoneSeedSchema, type SeedFile, type ZoneSeed } from './seed';
export type { Plan } from './state';

/** Options of `startEmulator`. */
export interface StartEmulatorOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on; defaults to 127.0.0.1. */
  host?: string;
  /** The starting state: the built-in demo (default), no zone at all, or a seed file's content. */
  seed?: 'demo' | 'empty' | SeedFile;
  /** A state file: loaded at start if it exists (the seed is then ignored), written after every change. */
  statePath?: string;
  /** fastify's request logging; off by default. */
  logger?: boolean;
  /**
   * A token the admin API requires (`Authorization: Bearer`). Off loopback one is always required: generated when
   * not given. On loopback none is required unless given; the admin API then answers its own `Host` only.
   */
  adminToken?: string;
}

/** A zone the emulator serves. */
export interface EmulatorZone {
  id: string;
  name: string;
  plan: Plan;
}

/** A running emulator. */
export interface StartedEmulator {
  /** The service's base URL, ending in /client/v4. */
  baseUrl: string;
  /** The admin API's base URL, ending in /__admin. */
  adminUrl: string;
  admin: EmulatorAdmin;
  /** The admin API's token, when one is required (always off loopback); `admin` already sends it. */
  adminToken?: string;
  /** The credentials accepted at start (seeding a zone later adds its token: see `admin.info()`). */
  credentials: EmulatorCredentials;
  /** The zones served at start. */
  zones: EmulatorZone[];
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

function seedOf(seed: StartEmulatorOptions['seed']): SeedFile {
  if (seed === undefined || seed === 'demo') return demoSeed();
  if (seed === 'empty') return { zones: [] };
  return seed;
}

/** Starts the service emulator on loopback; resolves once it listens. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<StartedEmulator> {
  const state = new EmulatorState();
  const seed = seedOf(options.seed);
  const reseed = () => applySeedFile(state, seed);
  if (options.statePath !== undefined && existsSync(options.statePath)) state.restore(loadStateFile(options.statePath));
  else reseed();
  const context = new EmulatorContext(state, reseed, options.statePath);
  const failure = context.persist();
  if (failure !== undefined) throw new Error(failure);

  const listenHost = options.host ?? '127.0.0.1';
  const adminToken = options.adminToken ?? (isLoopbackAddress(listenHost) ? undefined : randomBytes(24).toString('base64url'));
  const app = buildServer(context, { logger: options.logger ?? false, adminToken });
  await app.listen({ port: options.port ?? 0, host: listenHost });
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  const adminUrl = `${origin}${ADMIN_PREFIX}`;
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    adminUrl,
    admin: new EmulatorAdmin(adminUrl, adminToken !== undefined ? { token: adminToken } : {}),
    ...(adminToken !== undefined ? { adminToken } : {}),
    credentials: describeCredentials(state),
    zones: [...state.zones.values()].map(({ id, name, plan }) => ({ id, name, plan })),
    close: () => app.close(),
  };
}
