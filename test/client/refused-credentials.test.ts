import { AuthenticationError, ZoneGuardClient } from '../../src/client';
import type { StartedEmulator } from '../../src/emulator';
import { emulatorForFile, testClient, zoneOfPlan } from '../support/emulator';

// Refused credentials stop at once (src/client/refused-credentials.ts), against the emulator: its request log counts
// what reached the service. Each test uses credentials of its own, since the process remembers a refusal.

const emulator = emulatorForFile({ seed: 'demo' }, (e) => e.admin.reset());

/** The calls a refresh of many resources starts at once: reads of every zone's settings and policies, in parallel. */
function readsOf(client: ZoneGuardClient, zones: string[], perZone: number): Array<Promise<unknown>> {
  return zones.flatMap((zoneId) =>
    Array.from({ length: perZone }, (_, index) => (index % 2 === 0 ? client.pageGuard.get({ zoneId }) : client.cspPolicies.list({ zoneId }).toArray())),
  );
}

/** The refused requests the emulator logged, by zone. */
async function refusedByZone(e: StartedEmulator): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const entry of await e.admin.requests()) {
    if (entry.status === 403) counts[entry.zoneId ?? '-'] = (counts[entry.zoneId ?? '-'] ?? 0) + 1;
  }
  return counts;
}

async function failures(calls: Array<Promise<unknown>>): Promise<unknown[]> {
  return (await Promise.allSettled(calls)).map((result) => (result.status === 'rejected' ? result.reason : result.value));
}

test('a revoked token: 40 reads of two APIs over two zones send one request per API and zone, and every read fails with the refusal', async () => {
  const e = emulator();
  const { token } = await e.admin.addToken({});
  await e.admin.revokeToken(token);
  const zones = [zoneOfPlan(e, 'free'), zoneOfPlan(e, 'pro')];
  await e.admin.clearRequests();
  const results = await failures(readsOf(testClient(e, { credentials: { apiToken: token } }), zones, 20));
  // Page security settings and CSP policies: two APIs of each zone, each refused once.
  expect(await refusedByZone(e)).toEqual({ [zones[0]!]: 2, [zones[1]!]: 2 });
  expect(results).toHaveLength(40);
  for (const error of results) {
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 403, errors: [{ code: 10000, message: 'Authentication error: invalid API token' }] });
  }
  const notSent = results.filter((error) => (error as Error).message.includes('(not sent: '));
  expect(notSent).toHaveLength(36);
  expect((notSent[0] as Error).message).toMatch(
    /^GET \/zones\/[0-9a-f]{32}\/page_guard\S* failed: HTTP 403 Forbidden: 10000 Authentication error: invalid API token \(not sent: the service refused these credentials for the page_guard API of zone [0-9a-f]{32} earlier in this process\)$/,
  );
  expect(results.map((error) => (error as Error).message).join('\n')).not.toContain(token);
});

test('a token revoked in the middle of a run: the requests after the first refusal are not sent', async () => {
  const e = emulator();
  const { token } = await e.admin.addToken({});
  const zoneId = zoneOfPlan(e, 'free');
  const client = testClient(e, { credentials: { apiToken: token } });
  await client.pageGuard.get({ zoneId });
  await e.admin.revokeToken(token);
  await e.admin.clearRequests();
  for (let index = 0; index < 5; index += 1) await expect(client.pageGuard.get({ zoneId })).rejects.toBeInstanceOf(AuthenticationError);
  expect(await refusedByZone(e)).toEqual({ [zoneId]: 1 });
});

test("a zone's token on another zone stops that zone only: its own zone still answers", async () => {
  const e = emulator();
  const own = zoneOfPlan(e, 'free');
  const other = zoneOfPlan(e, 'business');
  const { token } = await e.admin.addToken({ zoneId: own });
  const client = testClient(e, { credentials: { apiToken: token } });
  await e.admin.clearRequests();
  const results = await failures(readsOf(client, [other], 10));
  for (const error of results) expect(error).toBeInstanceOf(AuthenticationError);
  expect(await client.pageGuard.get({ zoneId: own })).toMatchObject({ enabled: expect.any(Boolean) });
  expect(await refusedByZone(e)).toEqual({ [other]: 2 });
  const statuses = (await e.admin.requests()).map((entry) => `${entry.zoneId === own ? 'own' : 'other'} ${entry.status}`);
  expect(statuses).toEqual(['other 403', 'other 403', 'own 200']);
});

test('a rotated key: the old key is refused once per API of the zone, a client with the new key is not held back', async () => {
  const e = emulator();
  const { apiEmail } = e.credentials;
  const { apiKey: oldKey } = await e.admin.rotateKey('zg-old-key-0123456789abcdef');
  const { apiKey: newKey } = await e.admin.rotateKey();
  const zoneId = zoneOfPlan(e, 'pro');
  await e.admin.clearRequests();
  const results = await failures(readsOf(testClient(e, { credentials: { apiEmail, apiKey: oldKey } }), [zoneId], 10));
  for (const error of results) expect(error).toBeInstanceOf(AuthenticationError);
  expect(await refusedByZone(e)).toEqual({ [zoneId]: 2 });
  await expect(testClient(e, { credentials: { apiEmail, apiKey: newKey } }).pageGuard.get({ zoneId })).resolves.toMatchObject({ enabled: expect.any(Boolean) });
});

test('a first request that meets a server error does not stop the zone: the next one is sent and answered', async () => {
  const e = emulator();
  const { token } = await e.admin.addToken({});
  const zoneId = zoneOfPlan(e, 'free');
  await e.admin.setFaults({ serverErrors: 1 });
  const client = testClient(e, { credentials: { apiToken: token }, retry: false });
  const results = await failures(readsOf(client, [zoneId], 4));
  expect(results.filter((result) => result instanceof Error)).toHaveLength(1);
  expect((await e.admin.requests()).map((entry) => entry.status).sort()).toEqual([200, 200, 200, 500]);
});

test('a token allowed custom rules but not page security: the rules are written, page security fails alone, with one line', async () => {
  const e = emulator();
  const zoneId = zoneOfPlan(e, 'pro');
  const { token } = await e.admin.addToken({ zoneId, apis: ['rulesets'] });
  const client = testClient(e, { credentials: { apiToken: token }, retry: false });
  const phase = 'http_request_firewall_custom';
  await e.admin.clearRequests();
  // A stack's calls in the order a run makes them: the page security read is refused first, the rules still go.
  const refused = await client.pageGuard.get({ zoneId }).then(() => undefined, (error: unknown) => error);
  const created = await client.rulesets.updateEntrypoint({
    zoneId,
    phase,
    ruleset: { name: 'default', rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1', description: 'first' }] },
  });
  const added = await client.rulesets.createRule({ zoneId, rulesetId: created.id, rule: { action: 'log', expression: 'ip.src eq 192.0.2.2', description: 'second' } });
  expect(added.rules.map((rule) => rule.description)).toEqual(['first', 'second']);
  expect((await client.rulesets.getEntrypoint({ zoneId, phase })).rules).toHaveLength(2);
  expect(refused).toBeInstanceOf(AuthenticationError);
  const line = (refused as Error).message;
  expect(line).not.toContain('\n');
  expect(line).toBe(`GET /zones/${zoneId}/page_guard failed: HTTP 403 Forbidden: 10000 Authentication error: the API token is not allowed the page_guard API of zone ${zoneId}`);
  // Page security stays stopped, without a request: the refusal is remembered for that API of the zone only.
  const again = await client.pageGuard.get({ zoneId }).then(() => undefined, (error: unknown) => error);
  expect((again as Error).message).toBe(
    `GET /zones/${zoneId}/page_guard failed: HTTP 403 Forbidden: 10000 Authentication error: the API token is not allowed the page_guard API of zone ${zoneId} (not sent: the service refused these credentials for the page_guard API of zone ${zoneId} earlier in this process)`,
  );
  expect((await e.admin.requests()).map((entry) => `${entry.method} ${entry.status}`)).toEqual(['GET 403', 'PUT 200', 'POST 200', 'GET 200']);
});
