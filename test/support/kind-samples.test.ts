// The failing-test half of test/support/kind-samples.ts: every kind of the registry has its row in every table, and
// every sample passes its provider's check and creates against the emulator, so a per-kind test that iterates the
// registry runs a valid row per kind.
import { RESOURCE_KINDS } from '../../src/kinds';
import { implementation } from '../../src/providers';
import { useProviderFixture } from '../providers/support';
import { CLASSES, createSample, SAMPLES, sampleInputs } from './kind-samples';

jest.setTimeout(60_000);

const fx = useProviderFixture();

test('every kind of the registry has its class exported by the package, and the sample rows are of kinds of the registry', () => {
  expect(Object.entries(CLASSES).filter(([, Class]) => typeof Class !== 'function')).toEqual([]);
  expect(Object.keys(SAMPLES).filter((kind) => !(RESOURCE_KINDS as readonly string[]).includes(kind))).toEqual([]);
});

test.each(RESOURCE_KINDS)("the %s sample passes its provider's check with no request", async (kind) => {
  const zoneId = await fx.freshZone();
  await fx.requestsSince();
  expect((await implementation(kind).check({}, sampleInputs(kind, zoneId))).failures).toEqual([]);
  expect(await fx.requestsSince()).toEqual([]);
});

test.each(RESOURCE_KINDS)('the %s sample creates in a zone of its own, and its id is in its outputs', async (kind) => {
  const created = await createSample(kind, fx.client, await fx.freshZone());
  expect(created.id).toMatch(/^[0-9a-f]{32}$/);
  expect(Object.values(created.outs)).toContain(created.id);
});
