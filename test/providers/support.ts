import { ZoneGuardClient } from '../../src/client';
import { startEmulator, type StartedEmulator, type ZoneSeed } from '../../src/emulator';
import { configure, resetContext } from '../../src/providers/kit/context';
import { zoneOfPlan } from '../support/emulator';
import { implementation } from '../../src/providers';
import { rulesByRef, type ManagedRuleWithRef } from '../../src/rulesets';

/** An emulator, the provider context configured against it, and a client for out-of-band changes. */
export interface ProviderFixture {
  emulator: StartedEmulator;
  client: ZoneGuardClient;
  /** The id of the emulator's zone of that plan. */
  zone(plan: 'free' | 'pro' | 'business' | 'enterprise'): string;
  /** A new zone (business plan unless `seed` says otherwise), so a test's counts and request log are its own. */
  freshZone(seed?: Partial<ZoneSeed>): Promise<string>;
  /** Requests the emulator received since the last call (or since start). */
  requestsSince(): Promise<Array<{ method: string; path: string; status: number }>>;
  /** The same, as `METHOD path` with the path below the zone: `POST /firewall/rules`. */
  apiCalls(): Promise<string[]>;
  /**
   * Starts the provider's next run, as the engine's next command starts a new provider process: a new client, so
   * nothing the last run saw (a zone's entry point, a refresh's walk, that it was a preview) is remembered.
   */
  newRun(): Promise<void>;
  close(): Promise<void>;
}

export async function providerFixture(): Promise<ProviderFixture> {
  const emulator = await startEmulator({ port: 0 });
  const settings: Record<string, string> = {
    'zoneguard:baseUrl': emulator.baseUrl,
    'zoneguard:apiToken': emulator.credentials.apiToken,
  };
  const newRun = async () => {
    resetContext();
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
  };
  await newRun();
  const client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  let seen = (await emulator.admin.requests()).length;
  let zones = 0;
  const requestsSince = async () => {
    const all = await emulator.admin.requests();
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh;
  };
  return {
    emulator,
    client,
    zone: (plan) => zoneOfPlan(emulator, plan),
    async freshZone(seed = {}) {
      zones += 1;
      return (await emulator.admin.seedZone({ name: `fresh-${zones}.example`, plan: 'business', ...seed })).id;
    },
    requestsSince,
    async apiCalls() {
      return (await requestsSince()).map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]+/, '')}`);
    },
    newRun,
    async close() {
      resetContext();
      await emulator.close();
    },
  };
}

/**
 * The provider fixture of a test file (or describe block): started before its tests, closed after them. Its members
 * are read when a test runs, so a `beforeAll` registered after this call may use them.
 */
export function useProviderFixture(): ProviderFixture {
  let started: ProviderFixture | undefined;
  beforeAll(async () => {
    started = await providerFixture();
  });
  afterAll(() => started?.close());
  const fx = (): ProviderFixture => {
    if (!started) throw new Error('the provider fixture is used outside the tests of its block');
    return started;
  };
  return {
    get emulator() {
      return fx().emulator;
    },
    get client() {
      return fx().client;
    },
    zone: (plan) => fx().zone(plan),
    freshZone: (seed) => fx().freshZone(seed),
    requestsSince: () => fx().requestsSince(),
    apiCalls: () => fx().apiCalls(),
    newRun: () => fx().newRun(),
    close: () => fx().close(),
  };
}

/** A provider's `check` of inputs that must pass: its checked inputs, after asserting it found no failure. */
export async function checkedBy(
  provider: { check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs?: unknown; failures?: unknown[] }> },
  news: Record<string, unknown>,
  olds: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = await provider.check(olds, news);
  expect(result.failures).toEqual([]);
  return result.inputs as Record<string, unknown>;
}

/**
 * WafManagedRules' checked inputs for a list of rules of `zoneId`, after asserting check found no failure. Rules read
 * through the client are parsed outside jest's sandbox (their arrays have another Array.prototype than check's own
 * shape test expects): a JSON copy, as the engine's own serialization would make.
 */
export async function checkedManagedRules(zoneId: string, list: ManagedRuleWithRef[], extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await implementation('WafManagedRules').check({}, JSON.parse(JSON.stringify({ zoneId, ...rulesByRef(list), ...extra })));
  expect(result.failures ?? []).toEqual([]);
  return result.inputs as Record<string, unknown>;
}

/** Asserts that `check` refuses `inputs` with exactly `failures`, and that nothing was sent to the emulator. */
export async function expectRefusedAtCheck(
  fx: ProviderFixture,
  provider: { check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ failures?: unknown[] }> },
  inputs: Record<string, unknown>,
  failures: unknown[],
): Promise<void> {
  await fx.requestsSince();
  expect((await provider.check({}, inputs)).failures).toEqual(failures);
  expect(await fx.requestsSince()).toEqual([]);
}

/** A new value for each of a firewall rule's own fields that change in place, whichever form holds the rule. */
export const RULE_FIELD_CHANGES = [
  ['action', 'managed_challenge'],
  ['paused', true],
  ['priority', 42],
  ['description', 'changed'],
  ['ref', 'CHG-1'],
] as const;

/** The requests of a log that change something (every method but GET). */
export const writesIn = <R extends { method: string }>(requests: R[]): R[] => requests.filter((request) => request.method !== 'GET');

/**
 * What the providers write to standard error (progress and skipped deletes, one line each), caught in each test of
 * the block and kept out of the output; `calls()` is what a test wrote, one array of arguments a line.
 */
export function useCaughtStderr(): { calls(): unknown[][] } {
  let spy: jest.SpyInstance | undefined;
  beforeEach(() => {
    spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => spy?.mockRestore());
  return { calls: () => spy?.mock.calls ?? [] };
}
