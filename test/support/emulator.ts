import { ZoneGuardClient, type ZoneGuardClientOptions } from '../../src/client';
import { startEmulator, type StartEmulatorOptions, type StartedEmulator } from '../../src/emulator';

// The one emulator fixture of the tests: every suite that talks to the emulator over loopback starts it here, so
// how it is started, reseeded, reached and stopped is written once. The suites' helpers add their own seeds.

/**
 * Starts one emulator for the test file (beforeAll on a free port) and closes it after (afterAll); `beforeEachTest`
 * runs before every test, for suites that reseed. Returns a getter, valid inside tests and hooks.
 */
export function emulatorForFile(
  options: StartEmulatorOptions = {},
  beforeEachTest?: (emulator: StartedEmulator) => Promise<void>,
): () => StartedEmulator {
  let emulator: StartedEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  if (beforeEachTest) beforeEach(() => beforeEachTest(emulator!));
  return () => emulator!;
}

/** The id of the emulator's zone of that plan (the demo seed has one of each). */
export function zoneOfPlan(emulator: StartedEmulator, plan: string): string {
  const zone = emulator.zones.find((z) => z.plan === plan);
  if (!zone) throw new Error(`the emulator serves no ${plan} zone`);
  return zone.id;
}

/** A client of the emulator with the account token; no rate budget and quick retries unless a test asks otherwise. */
export function testClient(emulator: StartedEmulator, options: Partial<ZoneGuardClientOptions> = {}): ZoneGuardClient {
  return new ZoneGuardClient({
    baseUrl: emulator.baseUrl,
    credentials: { apiToken: emulator.credentials.apiToken },
    rateBudget: false,
    retry: { baseDelayMs: 5 },
    ...options,
  });
}
