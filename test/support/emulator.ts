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

/** How `writesOf` words each write. */
export interface WritesWording {
  /** The path whole (the default), below its zone (`/firewall/rules/<id>`), or below the API's prefix (`/zones/<id>/...`). */
  path?: 'whole' | 'belowZone' | 'belowApi';
  /** Every id (32 hexadecimal characters) of the path as `:id`. */
  ids?: boolean;
  /** Dry runs (`?dry_run=true`, which save nothing) kept as writes (the default), left out, or marked `(dry run)` after the method. */
  dryRuns?: 'kept' | 'leftOut' | 'marked';
  /** The query after the path, when there is one. */
  query?: boolean;
}

/** The writes (every request but GET) of the emulator's request log since it was last cleared, in order, as `METHOD path`. */
export async function writesOf(emulator: StartedEmulator, wording: WritesWording = {}): Promise<string[]> {
  const below = { whole: /^$/, belowZone: /^.*\/zones\/[0-9a-f]+/, belowApi: /^\/client\/v4/ }[wording.path ?? 'whole'];
  return (await emulator.admin.requests())
    .filter((request) => request.method !== 'GET' && !(wording.dryRuns === 'leftOut' && request.query.dry_run === 'true'))
    .map((request) => {
      const dryRun = wording.dryRuns === 'marked' && request.query.dry_run === 'true' ? ' (dry run)' : '';
      const path = request.path.replace(below, '');
      const query = wording.query && Object.keys(request.query).length > 0 ? `?${new URLSearchParams(request.query as Record<string, string>)}` : '';
      return `${request.method}${dryRun} ${wording.ids ? path.replace(/[0-9a-f]{32}/g, ':id') : path}${query}`;
    });
}
