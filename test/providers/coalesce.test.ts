import { matchListed, planReads } from '../../src/providers/kit/coalesce';
import { cspPolicy } from '../../src/providers/csp-policy';
import { providerFixture, type ProviderFixture } from './support';

describe('planReads', () => {
  describe.each([
    // pending reads, calls of a list walk, served by
    [1, 1, 'single'],
    [2, 1, 'list'],
    [150, 1, 'list'],
    [3, 3, 'single'],
    [4, 3, 'list'],
  ] as const)('%i reads, a list of %i calls', (pending, listCalls, plan) => {
    it(`is served by ${plan} reads`, () => {
      expect(planReads(pending, listCalls)).toBe(plan);
    });
  });
});

describe('matchListed', () => {
  it('answers the listed ids and leaves the others to single reads', () => {
    const listed = new Map([
      ['a', 1],
      ['c', 3],
    ]);
    expect(matchListed(['a', 'b', 'c'], listed)).toEqual({ found: new Map([['a', 1], ['c', 3]]), unlisted: ['b'] });
  });
});

describe('CspPolicy reads arriving together, against the emulator', () => {
  let fx: ProviderFixture;
  let zoneId: string;
  beforeAll(async () => {
    fx = await providerFixture();
    zoneId = fx.zone('enterprise');
  });
  afterAll(() => fx.close());

  const declared = (n: number) => ({
    zoneId,
    action: 'log' as const,
    expression: `http.host eq "shop${n}.example.com"`,
    value: "script-src 'self'",
    description: `policy ${n}`,
    enabled: true,
  });

  it('are one list call plus a single read for the one gone, with the results of single reads', async () => {
    const created = [];
    for (let n = 0; n < 6; n++) created.push(await cspPolicy.create(declared(n)));
    const [changed, deleted] = [created[1]!, created[4]!];
    // Out of band: one changed, one deleted, the others untouched.
    await fx.client.policies.update({ zoneId, policyId: changed.id, enabled: false, description: 'changed by hand' });
    await fx.client.policies.delete({ zoneId, policyId: deleted.id });

    // One at a time: each read is alone in its window, so each is a single GET.
    await fx.requestsSince();
    const alone = [];
    for (const { id, outs } of created) alone.push(await cspPolicy.read!(id, outs));
    const singleCalls = await fx.requestsSince();
    expect(singleCalls).toHaveLength(created.length);

    // Together, as a refresh sends them.
    const together = await Promise.all(created.map(({ id, outs }) => cspPolicy.read!(id, outs)));
    const calls = await fx.requestsSince();
    expect(together).toEqual(alone);
    expect(together[4]).toEqual({ id: '' });
    expect(together[1]!.props).toMatchObject({ enabled: false, description: 'changed by hand' });
    expect(together[0]!.props).toEqual(created[0]!.outs);
    expect(calls.map((call) => `${call.method} ${call.path.replace(/\?.*$/, '')}`).sort()).toEqual(
      [`GET /client/v4/zones/${zoneId}/page_guard/policies`, `GET /client/v4/zones/${zoneId}/page_guard/policies/${deleted.id}`].sort(),
    );
  });
});
