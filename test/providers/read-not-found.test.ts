// "Only not found means gone": every kind's read against the emulator over loopback HTTP. The service's own 404
// (code 10013) takes a resource out of the state (a WafMigration excepted); a route 404 from a wrong base URL fails
// the read naming zoneguard:baseUrl, whatever the kind.
import { configure } from '../../src/providers/kit/context';
import { RESOURCE_KINDS } from '../../src/kinds';
import { implementation } from '../../src/providers';
import { createSample } from '../support/kind-samples';
import { useCaughtStderr, useProviderFixture } from './support';

const fx = useProviderFixture();
useCaughtStderr();

/** Points the providers at `baseUrl`, as a stack config of `zoneguard:baseUrl` would. */
async function useBaseUrl(baseUrl: string): Promise<void> {
  const settings: Record<string, string> = { 'zoneguard:baseUrl': baseUrl, 'zoneguard:apiToken': fx.emulator.credentials.apiToken };
  await configure({ config: { get: (key: string) => settings[key], require: (key: string) => settings[key]! } });
}

/** One resource of each kind of the registry, each in a zone of its own; answers each kind's id and outputs. */
async function deployed(): Promise<Array<Awaited<ReturnType<typeof createSample>>>> {
  const created = [];
  for (const kind of RESOURCE_KINDS) {
    const zone = await fx.emulator.admin.seedZone({ name: `read-${kind.toLowerCase()}-${Date.now()}.example`, plan: 'pro', hosts: ['read.example'] });
    created.push(await createSample(kind, fx.client, zone.id));
  }
  return created;
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

test("the service's own not found (10013) takes every kind out of the state, but never the migration", async () => {
  await useBaseUrl(fx.emulator.baseUrl);
  const resources = await deployed();
  for (const { outs } of resources) await fx.emulator.admin.removeZone(String(outs.zoneId));
  const reads = await Promise.all(resources.map(({ kind, id, outs }) => implementation(kind).read(id, outs).then((r) => r.id, (e: Error) => e.message)));
  const migrationZone = String(resources.find((r) => r.kind === 'WafMigration')!.outs.zoneId);
  expect(Object.fromEntries(resources.map(({ kind }, i) => [kind, reads[i]]))).toEqual({
    ...Object.fromEntries(RESOURCE_KINDS.map((kind) => [kind, ''])),
    WafMigration: expect.stringMatching(new RegExp(`^WafMigration of zone ${migrationZone}: the service does not know the zone \\(.*10013.*\\); the resource stays in the state`)),
  });
});
