import type { Stack } from '@pulumi/pulumi/automation';
import type { FaultSpec } from '../../src/emulator';
import { openSandbox, type EngineSandbox } from '../e2e/harness';
import { convergenceProblems, engine, fleet, freshZone, programOf, unique, upOrThrow, type EngineRun } from './support';

// Faults injected by the emulator during a real `pulumi up` and `pulumi destroy` of a stack of the three kinds
// (page security settings, two CSP policies, three firewall rules): each run completes or fails with a clear error,
// and the next run, faults gone, converges: every declared object once, no filter without its rule, nothing else.
jest.setTimeout(240_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('resilience-faults');
});
afterAll(() => sandbox?.close());

/**
 * A clear error names the resource kind and its zone, what it was doing, the API call and what went wrong with it
 * (the status and the service's code, or the connection failure): the first line of the engine's diagnostic.
 */
const CLEAR =
  /^(PageGuardSettings|CspPolicy|FirewallRuleWithFilter)\b[^\n]* zone [0-9a-f]{32}: [a-z][^\n:]*: (GET|POST|PUT|DELETE) \/zones\/[0-9a-f]{32}\S* failed: (HTTP (429|5\d\d)\b[^\n]*\b(971|10001)\b|[^\n]*\b(ECONNRESET|socket hang up|connection)\b)/i;

/**
 * What is wrong with how a run ended under faults, or nothing: a run may fail only when its faults are not ones the
 * client must absorb, and then clearly: each failed resource says which it is and why, never only the stack's
 * "update failed".
 */
function failureProblems(run: EngineRun, absorbed: boolean): string[] {
  if (run.ok) return [];
  if (absorbed) return [`the run failed although the client must absorb these faults: ${run.resourceErrors.map((e) => e.message).join(' | ')}`];
  if (run.resourceErrors.length === 0) return ['the run failed without naming a resource'];
  return run.resourceErrors.filter(({ message }) => !CLEAR.test(message)).map(({ message }) => `not a clear error: ${message}`);
}

interface Scenario {
  name: string;
  label: string;
  faults: (zonePath: string) => FaultSpec | FaultSpec[];
  /** Faults the client must absorb entirely (retried and waited out): the run may not fail. */
  absorbed: boolean;
  /**
   * Latency leaves no mark in the request log: instead, the page security settings' operation (a GET then a PUT on
   * create, one PUT on delete) must have taken at least this long, where it takes milliseconds without the fault.
   */
  minSettingsMs?: { up: number; destroy: number };
}

const scenarios: Scenario[] = [
  { name: 'a burst of 5xx', label: 'burst', faults: (pathPrefix) => ({ serverErrors: 4, serverErrorStatus: 503, match: { pathPrefix } }), absorbed: false },
  {
    name: '5xx on a third of the requests',
    label: 'rate',
    // The first request fails for certain, so the fault always engages; a third of the others at random.
    faults: (pathPrefix) => [
      { serverErrors: 1, match: { pathPrefix } },
      { serverErrorRate: 0.34, match: { pathPrefix } },
    ],
    absorbed: false,
  },
  {
    name: 'a 429 storm with Retry-After',
    label: 'storm',
    faults: (pathPrefix) => ({ tooManyRequests: { count: 12, retryAfterSeconds: 1 }, match: { pathPrefix } }),
    absorbed: true,
  },
  { name: 'connection resets', label: 'resets', faults: (pathPrefix) => ({ resetConnections: 4, match: { pathPrefix } }), absorbed: false },
  { name: 'a latency spike', label: 'latency', faults: (pathPrefix) => ({ latencyMs: 1500, match: { pathPrefix } }), absorbed: true, minSettingsMs: { up: 3000, destroy: 1500 } },
];

describe.each(scenarios)('$name', ({ label, faults, absorbed, minSettingsMs }) => {
  /** Checks that the faults reached the run: requests a fault answered, or the run slowed by the latency. */
  const expectEngaged = async (zoneId: string, run: EngineRun, step: 'up' | 'destroy') => {
    const requests = (await sandbox.emulator.admin.requests()).filter((entry) => entry.zoneId === zoneId);
    const faulted = requests.filter((entry) => entry.fault !== undefined).length;
    const engaged = minSettingsMs === undefined ? faulted > 0 : requests.length > 0 && (run.opMs.settings ?? 0) >= minSettingsMs[step];
    expect({ engaged, requests: requests.length, faulted, settingsMs: run.opMs.settings }).toMatchObject({ engaged: true });
  };

  /** Runs `command` under the faults: it completes, or fails clearly; absorbed faults may not fail it. */
  const underFaults = async (zoneId: string, step: 'up' | 'destroy', command: () => Promise<EngineRun>) => {
    await sandbox.emulator.admin.clearRequests();
    await sandbox.emulator.admin.setFaults(faults(`/zones/${zoneId}`));
    const run = await command().finally(() => sandbox.emulator.admin.clearFaults());
    await expectEngaged(zoneId, run, step);
    expect(failureProblems(run, absorbed)).toEqual([]);
  };

  test('up completes or fails clearly and the next up converges (no duplicate, no orphan); destroy the same, leaving the zone as it was', async () => {
    const zoneId = await freshZone(sandbox.emulator, label);
    const declared = fleet(label);
    const stack: Stack = await sandbox.stack(unique(label), programOf(zoneId, () => declared));

    await underFaults(zoneId, 'up', () => engine((opts) => stack.up(opts)));
    await upOrThrow(stack);
    expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
    await stack.preview({ expectNoChanges: true, color: 'never' });

    await underFaults(zoneId, 'destroy', () => engine((opts) => stack.destroy(opts)));
    const second = await engine((opts) => stack.destroy(opts));
    expect(second.error).toBeUndefined();
    const inventory = await sandbox.emulator.admin.inventory(zoneId);
    expect(inventory.counts).toMatchObject({ cspPolicies: 0, firewallRules: 0, filters: 0 });
    // PageGuardSettings' delete puts back the settings the zone had before the stack took them over.
    expect(inventory.pageGuard).toMatchObject({ enabled: false, use_connection_url_path: false });
  });
});
