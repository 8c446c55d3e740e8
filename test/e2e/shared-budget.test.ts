import type { Stack } from '@pulumi/pulumi/automation';
import { CspPolicy } from '../../src/resources/csp-policy';
import { useRedisServer } from '../client/redis-server';
import { openSandbox, type EngineSandbox } from './harness';

// The shared rate budget (docs/many-stacks.md) through the real engine: two stacks with the
// same credentials, run at once (two engine processes, each with its own provider process), against the emulator's
// rate limit with each provider's budget set to that limit. With the store (a real redis-server) the two count
// together: no 429. Without it each keeps to the limit alone, so together they go over it: the control.
jest.setTimeout(300_000);

// 3 requests/s: slow enough that two engines creating at once go over it without the store (the control shows it).
const LIMIT = { requests: 12, windowMs: 4000 };
const PER_STACK = 20;
/** The requests of one stack's up: its creates, and the one list read of its zone's policies before them (docs/ownership.md#leftovers). */
const CALLS = PER_STACK + 1;
const redis = useRedisServer();
let sandbox: EngineSandbox;

beforeAll(async () => {
  sandbox = await openSandbox('shared-budget');
});
afterAll(() => sandbox?.close());

async function stackOf(name: string, shared: boolean): Promise<Stack> {
  const zone = await sandbox.emulator.admin.seedZone({ name: `${name}.example`, plan: 'enterprise' });
  const program = async () => {
    for (let n = 0; n < PER_STACK; n++) {
      new CspPolicy(`policy-${n}`, { zoneId: zone.id, action: 'log', expression: `http.host eq "p${n}.example.com"`, value: "script-src 'self'" });
    }
    return {};
  };
  return sandbox.stack(name, program, {
    'zoneguard:rateBudget': { value: `${LIMIT.requests}/${LIMIT.windowMs}` },
    ...(shared ? { 'zoneguard:rateBudgetStore': { value: redis().url } } : {}),
  });
}

/**
 * Both stacks' up at once; the statuses the emulator answered. `said`: the answers carry the service's Ratelimit
 * headers, which the budgets follow (docs/client.md#rate-budget); without them each budget knows only its own count.
 */
async function upTogether(stacks: Stack[], said = true): Promise<number[]> {
  await sandbox.emulator.admin.setFaults({ rateLimit: LIMIT, ...(said ? {} : { rateLimitHeaders: false }) });
  // A fresh window, so a run does not start on what the previous one counted.
  await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs));
  await sandbox.emulator.admin.clearRequests();
  const ups = await Promise.all(stacks.map((stack) => stack.up({ color: 'never' })));
  // Each stack creates its policies, the stack resource itself and its owner id.
  for (const up of ups) expect(up.summary.resourceChanges).toMatchObject({ create: PER_STACK + 2 });
  return (await sandbox.emulator.admin.requests()).map((request) => request.status);
}

test("without the store, two stacks that hear the service's Ratelimit headers get no 429", async () => {
  const statuses = await upTogether([await stackOf('said-a', false), await stackOf('said-b', false)]);
  expect(statuses.filter((status) => status === 429)).toEqual([]);
  expect(statuses.filter((status) => status === 200)).toHaveLength(2 * CALLS);
});

test('two stacks in two engine processes sharing the store get no 429', async () => {
  const statuses = await upTogether([await stackOf('shared-a', true), await stackOf('shared-b', true)]);
  expect(statuses).toHaveLength(2 * CALLS);
  expect(statuses.filter((status) => status === 429)).toEqual([]);
});

test('without the store and without the Ratelimit headers, the same two stacks each keep to the limit alone and together go over it (the control)', async () => {
  const statuses = await upTogether([await stackOf('own-a', false), await stackOf('own-b', false)], false);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  expect(statuses.filter((status) => status === 200)).toHaveLength(2 * CALLS);
});
