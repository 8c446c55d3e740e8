// "Only not found means gone": every kind's read against the emulator over loopback HTTP. The service's own 404
// (code 10013) takes a resource out of the state (a WafMigration excepted); a route 404 from a wrong base URL fails
// the read naming zoneguard:baseUrl, whatever the kind.
import { configure } from '../../src/providers/kit/context';
import { implementation, NAME_KEY } from '../../src/providers';
import { providerFixture, type ProviderFixture } from './support';

let fx: ProviderFixture;
let stderr: jest.SpyInstance;
beforeAll(async () => {
  fx = await providerFixture();
});
afterAll(() => fx.close());
beforeEach(() => {
  stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => stderr.mockRestore());

/** Points the providers at `baseUrl`, as a stack config of `zoneguard:baseUrl` would. */
async function useBaseUrl(baseUrl: string): Promise<void> {
  const settings: Record<string, string> = { 'zoneguard:baseUrl': baseUrl, 'zoneguard:apiToken': fx.emulator.credentials.apiToken };
  await configure({ config: { get: (key: string) => settings[key], require: (key: string) => settings[key]! } });
}

type Props = Record<string, unknown>;

/** One resource of each kind, created in a zone of its own; answers each kind's id and outputs. */
async function deployed(): Promise<Array<{ kind: 'PageGuardSettings' | 'CspPolicy' | 'FirewallRuleWithFilter' | 'WafMigration'; id: string; outs: Props }>> {
  const zone = await fx.emulator.admin.seedZone({ name: `read-${Date.now()}.example`, plan: 'pro', hosts: ['read.example'] });
  const zoneId = zone.id;
  const create = async (kind: 'PageGuardSettings' | 'CspPolicy' | 'FirewallRuleWithFilter' | 'WafMigration', news: Props) => {
    const provider = implementation(kind);
    const { inputs } = await provider.check({}, { zoneId, [NAME_KEY]: kind.toLowerCase(), ...news });
    const { id, outs } = await provider.create(inputs as Props);
    return { kind, id, outs: outs as Props };
  };
  return [
    await create('PageGuardSettings', { enabled: true }),
    await create('CspPolicy', { action: 'log', expression: 'http.host eq "read.example"', value: "script-src 'self'" }),
    await create('FirewallRuleWithFilter', { expression: '(http.request.uri.path eq "/read")', action: 'block' }),
    await create('WafMigration', { mode: 'direct', wait: { timeoutSeconds: 5, pollIntervalSeconds: 0.02 } }),
  ];
}

test.each([
  ['a retired API version', (base: string) => base.replace('/client/v4', '/client/v3')],
  ['the bare origin', (base: string) => new URL(base).origin],
  ['an extra segment', (base: string) => `${base}/extra`],
])('through %s, every read fails naming zoneguard:baseUrl and nothing is read as deleted', async (_case, wrong) => {
  await useBaseUrl(fx.emulator.baseUrl);
  const resources = await deployed();
  await useBaseUrl(wrong(fx.emulator.baseUrl));
  for (const { kind, id, outs } of resources) {
    await expect(implementation(kind).read(id, outs)).rejects.toThrow(
      /failed: HTTP 404 Not Found: 7000 .*; check zoneguard:baseUrl \(or ZONEGUARD_BASE_URL\): it must be the service's base URL, ending in \/client\/v4\. Nothing was read as deleted$/,
    );
  }
});

test("the service's own not found (10013) takes a policy, a rule and the settings out of the state, but never the migration", async () => {
  await useBaseUrl(fx.emulator.baseUrl);
  const resources = await deployed();
  const zoneId = String(resources[0]!.outs.zoneId);
  await fx.emulator.admin.removeZone(zoneId);
  const reads = await Promise.all(resources.map(({ kind, id, outs }) => implementation(kind).read(id, outs).then((r) => r.id, (e: Error) => e.message)));
  expect(reads.slice(0, 3)).toEqual(['', '', '']);
  expect(reads[3]).toMatch(new RegExp(`^WafMigration of zone ${zoneId}: the service does not know the zone \\(.*10013.*\\); the resource stays in the state`));
});
