import type { Stack } from '@pulumi/pulumi/automation';
import type { FaultSpec } from '../../src/emulator';
import { openSandbox, type EngineSandbox } from '../e2e/harness';
import { convergenceProblems, engine, fleet, freshZone, programOf, upOrThrow, type EngineRun } from './support';

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

function expectClearFailure(run: EngineRun): void {
  // A failed run says which resource failed and why: never only the stack's "update failed".
  expect(run.resourceErrors.length).toBeGreaterThan(0);
  for (const { message } of run.resourceErrors) expect(message).toMatch(CLEAR);
}

interface Scenario {
  name: string;
  label: string;
  faults: (zonePath: string) => FaultSpec | FaultSpec[];
  /** Faults the client must absorb entirely (retried and waited out): the run may not fail. */
  absorbed: boolean;
  /** Latency leaves no mark in the request log: the run must have taken at least this long instead. */
  minMs?: number;
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
  { name: 'a latency spike', label: 'latency', faults: (pathPrefix) => ({ latencyMs: 1500, match: { pathPrefix } }), absorbed: true, minMs: 1500 },
];

describe.each(scenarios)('$name', ({ label, faults, absorbed, minMs }) => {
  let zoneId: string;
  let stack: Stack;
  const declared = fleet(label);

  beforeAll(async () => {
    zoneId = await freshZone(sandbox.emulator, label);
    stack = await sandbox.stack(label, programOf(zoneId, () => declared));
  });

  /** Checks that the faults reached the run: requests a fault answered, or the run slowed by the latency. */
  const expectEngaged = async (run: EngineRun) => {
    const requests = (await sandbox.emulator.admin.requests()).filter((entry) => entry.zoneId === zoneId);
    if (minMs !== undefined) {
      expect(requests.length).toBeGreaterThan(0);
      expect(run.ms).toBeGreaterThanOrEqual(minMs);
    } else {
      expect(requests.filter((entry) => entry.fault !== undefined).length).toBeGreaterThan(0);
    }
  };

  test('during up: the run completes or fails clearly, and the next up converges with no duplicate and no orphan', async () => {
    await sandbox.emulator.admin.clearRequests();
    await sandbox.emulator.admin.setFaults(faults(`/zones/${zoneId}`));
    const first = await engine((opts) => stack.up(opts));
    await sandbox.emulator.admin.clearFaults();
    await expectEngaged(first);
    if (absorbed) expect(first).toMatchObject({ ok: true, resourceErrors: [] });
    if (!first.ok) expectClearFailure(first);

    await upOrThrow(stack);
    expect(convergenceProblems(await sandbox.emulator.admin.inventory(zoneId), declared)).toEqual([]);
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('during destroy: the run completes or fails clearly, and the next destroy leaves the zone as it was', async () => {
    await sandbox.emulator.admin.clearRequests();
    await sandbox.emulator.admin.setFaults(faults(`/zones/${zoneId}`));
    const first = await engine((opts) => stack.destroy(opts));
    await sandbox.emulator.admin.clearFaults();
    await expectEngaged(first);
    if (absorbed) expect(first).toMatchObject({ ok: true, resourceErrors: [] });
    if (!first.ok) expectClearFailure(first);

    const second = await engine((opts) => stack.destroy(opts));
    expect(second.error).toBeUndefined();
    const inventory = await sandbox.emulator.admin.inventory(zoneId);
    expect(inventory.counts).toMatchObject({ policies: 0, firewallRules: 0, filters: 0 });
    // PageGuardSettings' delete puts back the settings the zone had before the stack took them over.
    expect(inventory.settings).toMatchObject({ enabled: false, use_connection_url_path: false });
  });
});
