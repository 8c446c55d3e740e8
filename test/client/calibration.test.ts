import { ZONE, clientOf, useClientZones } from './harness';

// The budget calibrated by the service's word (src/client/rate-budget.ts, docs/client.md#rate-budget), against the
// emulator's limit counted per user across that user's tokens and key, with its Ratelimit headers on every answer.

const emulator = useClientZones();
const LIMIT = { requests: 8, windowMs: 2000 };

async function statuses(): Promise<number[]> {
  return (await emulator().admin.requests()).map((entry) => entry.status);
}

it('two tokens of one user, each with a budget of the whole limit: the service word slows them down, no 429', async () => {
  await emulator().admin.setFaults({ rateLimit: LIMIT });
  const { token } = await emulator().admin.addToken({});
  // Retries off: a single 429 fails a call.
  const a = clientOf(emulator(), { retry: false, rateBudget: LIMIT });
  const b = clientOf(emulator(), { retry: false, rateBudget: LIMIT, credentials: { apiToken: token } });
  const reads = (client: typeof a) => Array.from({ length: 10 }, () => client.pageGuard.get({ zoneId: ZONE }));
  const results = await Promise.allSettled([...reads(a), ...reads(b)]);
  expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
  const seen = await statuses();
  expect(seen).toHaveLength(20);
  expect(seen.filter((status) => status === 429)).toEqual([]);
});

it('the same two tokens without the service word (the control): their budgets together pass the limit', async () => {
  await emulator().admin.setFaults({ rateLimit: LIMIT, rateLimitHeaders: false });
  const { token } = await emulator().admin.addToken({});
  const a = clientOf(emulator(), { retry: false, rateBudget: LIMIT });
  const b = clientOf(emulator(), { retry: false, rateBudget: LIMIT, credentials: { apiToken: token } });
  await Promise.allSettled([a, b].flatMap((client) => Array.from({ length: 10 }, () => client.pageGuard.get({ zoneId: ZONE }))));
  expect((await statuses()).filter((status) => status === 429).length).toBeGreaterThan(0);
});

it('a raised limit is used: 16 reads with a budget of 4 per 2 s take under 3 s (not 6 s) when the service says 40', async () => {
  await emulator().admin.setFaults({ rateLimit: { requests: 40, windowMs: 2000 } });
  const { token } = await emulator().admin.addToken({});
  const client = clientOf(emulator(), { retry: false, rateBudget: { requests: 4, windowMs: 2000 }, credentials: { apiToken: token } });
  const started = Date.now();
  await Promise.all(Array.from({ length: 16 }, () => client.pageGuard.get({ zoneId: ZONE })));
  // At 4 per 2 s the last 4 would start after three windows (6 s).
  expect(Date.now() - started).toBeLessThan(3000);
  expect((await statuses()).filter((status) => status === 429)).toEqual([]);
});
