import { ZoneGuardClient } from '../../src/client';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { configure, resetContext } from '../../src/providers/kit/context';
import { zoneOfPlan } from '../support/emulator';

/** An emulator, the provider context configured against it, and a client for out-of-band changes. */
export interface ProviderFixture {
  emulator: StartedEmulator;
  client: ZoneGuardClient;
  /** The id of the emulator's zone of that plan. */
  zone(plan: 'free' | 'pro' | 'business' | 'enterprise'): string;
  /** Requests the emulator received since the last call (or since start). */
  requestsSince(): Promise<Array<{ method: string; path: string }>>;
  close(): Promise<void>;
}

export async function providerFixture(): Promise<ProviderFixture> {
  const emulator = await startEmulator({ port: 0 });
  const settings: Record<string, string> = {
    'zoneguard:baseUrl': emulator.baseUrl,
    'zoneguard:apiToken': emulator.credentials.apiToken,
  };
  await configure({
    config: {
      get: (key) => settings[key],
      require: (key) => {
        const value = settings[key];
        if (value === undefined) throw new Error(`missing ${key}`);
        return value;
      },
    },
  });
  const client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  let seen = (await emulator.admin.requests()).length;
  return {
    emulator,
    client,
    zone: (plan) => zoneOfPlan(emulator, plan),
    async requestsSince() {
      const all = await emulator.admin.requests();
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh;
    },
    async close() {
      resetContext();
      await emulator.close();
    },
  };
}
