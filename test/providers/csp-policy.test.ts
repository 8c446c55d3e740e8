import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import { cspPolicy, policyUpdateBody } from '../../src/providers/csp-policy';
import { checkedBy, useProviderFixture } from './support';

const fx = useProviderFixture();
let zoneId: string;
beforeAll(() => {
  zoneId = fx.zone('enterprise');
});

const declared = (overrides: Record<string, unknown> = {}) => ({
  zoneId,
  action: 'log',
  expression: 'http.host eq "shop.example.com"',
  value: "script-src 'self' https://cdn.example.com",
  description: 'shop scripts',
  enabled: true,
  ...overrides,
});

const checked = (news: Record<string, unknown>) => checkedBy(cspPolicy, news);

describe('check', () => {
  test('fills defaults and passes unknown values during preview', async () => {
    const inputs = await checked({ zoneId, action: 'allow', expression: PREVIEW_UNKNOWN, value: "script-src 'self'" });
    expect(inputs).toEqual({ zoneId, action: 'allow', expression: PREVIEW_UNKNOWN, value: "script-src 'self'", description: '', enabled: true });
  });

  test.each([
    ['zoneId', { zoneId: 'zone-1' }, 'CspPolicy.zoneId: must be a zone id: 32 lowercase hexadecimal characters'],
    ['action', { action: 'block' }, 'CspPolicy.action: must be one of "log", "allow", "add_reporting_directives"'],
    ['expression', { expression: '' }, 'CspPolicy.expression: must not be empty'],
    ['enabled', { enabled: 'yes' }, 'CspPolicy.enabled: must be true or false'],
    ['value', { value: 'script-src self' }, "CspPolicy.value: script-src: keyword self must be quoted: 'self'"],
    // Over the service's 500 or only over what the owner marker leaves: one refusal, naming the limit a program can use.
    ['description', { description: 'x'.repeat(501) }, "CspPolicy.description: must be at most 486 characters: zoneguard keeps 14 of the service's 500 for its owner marker (docs/ownership.md)"],
    ['description', { description: 'x'.repeat(487) }, "CspPolicy.description: must be at most 486 characters: zoneguard keeps 14 of the service's 500 for its owner marker (docs/ownership.md)"],
    ['adoptPolicyId', { adoptPolicyId: 'abc' }, 'CspPolicy.adoptPolicyId: must be an identifier: 32 lowercase hexadecimal characters'],
  ])('a bad %s fails with a reason and sends nothing', async (property, bad, reason) => {
    await fx.requestsSince();
    const result = await cspPolicy.check({}, declared(bad));
    expect(result.failures).toEqual([{ property, reason }]);
    expect(await fx.requestsSince()).toEqual([]);
  });
});

describe('lifecycle against the emulator', () => {
  test('create, no-op diff, each field diff, update, drift, delete', async () => {
    const inputs = await checked(declared());
    const { id, outs } = await cspPolicy.create(inputs);
    expect(outs).toEqual({ ...declared(), policyId: id });
    const { zoneId: _zone, ...fields } = declared();
    expect(await fx.client.cspPolicies.get({ zoneId, policyId: id })).toEqual({ id, ...fields });

    expect(await cspPolicy.diff(id, outs, inputs)).toMatchObject({ changes: false, replaces: [] });

    for (const [field, value] of [
      ['description', 'other'],
      ['action', 'allow'],
      ['expression', 'http.host eq "other.example.com"'],
      ['enabled', false],
      ['value', "script-src 'none'"],
    ] as const) {
      const diff = await cspPolicy.diff(id, outs, await checked(declared({ [field]: value })));
      expect(diff).toMatchObject({ changes: true, changed: [field], replaces: [] });
    }
    const otherZone = await cspPolicy.diff(id, outs, await checked(declared({ zoneId: fx.zone('pro') })));
    expect(otherZone).toMatchObject({ changes: true, replaces: ['zoneId'] });

    const next = await checked(declared({ enabled: false, value: "script-src 'self' https://static.example.com" }));
    const updated = await cspPolicy.update(id, outs, next);
    expect(updated.outs).toEqual({ ...next, policyId: id });
    expect(await fx.client.cspPolicies.get({ zoneId, policyId: id })).toMatchObject({ enabled: false, value: next.value });

    // Drift: changed out of band, found by read, shown by the next diff against the program.
    await fx.client.cspPolicies.update({ zoneId, policyId: id, action: 'allow' });
    const read = await cspPolicy.read(id, updated.outs as Record<string, unknown>);
    expect(read.props).toMatchObject({ action: 'allow' });
    expect(read.inputs).toEqual({ ...next, action: 'allow' });
    expect(await cspPolicy.diff(id, read.props as Record<string, unknown>, next)).toMatchObject({ changed: ['action'] });

    await cspPolicy.delete(id, read.props as Record<string, unknown>);
    await expect(fx.client.cspPolicies.get({ zoneId, policyId: id })).rejects.toThrow(/404/);
    // Deleting what is already gone succeeds; reading it takes it out of the state.
    await expect(cspPolicy.delete(id, read.props as Record<string, unknown>)).resolves.toBeUndefined();
    expect(await cspPolicy.read(id, read.props as Record<string, unknown>)).toEqual({ id: '' });
  });

  test('adoption takes over an existing policy instead of duplicating it', async () => {
    const existing = await fx.client.cspPolicies.create({
      zoneId, action: 'log', expression: 'true', value: "script-src 'self'", description: 'made by hand', enabled: false,
    });
    const before = await collect(fx.client.cspPolicies.list({ zoneId }));
    const inputs = await checked(declared({ adoptPolicyId: existing.id }));
    const { id, outs } = await cspPolicy.create(inputs);
    expect(id).toBe(existing.id);
    expect(outs).toEqual({ ...declared(), adoptPolicyId: existing.id, policyId: existing.id });
    expect((await collect(fx.client.cspPolicies.list({ zoneId }))).length).toBe(before.length);
  });

  test('adopting a policy already as declared only reads it', async () => {
    const { zoneId: _zone, ...fields } = declared();
    const existing = await fx.client.cspPolicies.create({ zoneId, ...(fields as typeof fields & { action: 'log' }) });
    await fx.requestsSince();
    const { id } = await cspPolicy.create(await checked(declared({ adoptPolicyId: existing.id })));
    expect(id).toBe(existing.id);
    expect((await fx.requestsSince()).map((r) => r.method)).toEqual(['GET']);
  });

  test('two identical declarations get a policy each, one POST per create and nothing else', async () => {
    const inputs = await checked(declared({ description: 'declared twice' }));
    await fx.requestsSince();
    const first = await cspPolicy.create(inputs);
    const second = await cspPolicy.create(inputs);
    expect(second.id).not.toBe(first.id);
    expect((await fx.requestsSince()).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /client/v4/zones/${zoneId}/page_guard/policies`,
      `POST /client/v4/zones/${zoneId}/page_guard/policies`,
    ]);
    // Deleting one leaves the other.
    await cspPolicy.delete(first.id, first.outs as Record<string, unknown>);
    expect(await fx.client.cspPolicies.get({ zoneId, policyId: second.id })).toMatchObject({ id: second.id, description: 'declared twice' });
  });

  test('adopting an id the zone does not have says what to do', async () => {
    const inputs = await checked(declared({ adoptPolicyId: 'f'.repeat(32) }));
    await expect(cspPolicy.create(inputs)).rejects.toThrow(
      `CspPolicy in zone ${zoneId}: adoptPolicyId ${'f'.repeat(32)} names no policy of this zone; ` +
        'check the id (zoneguard export lists them), or remove adoptPolicyId to create a new policy',
    );
  });
});

test('policyUpdateBody sends only what differs', () => {
  const current = { description: 'a', action: 'log' as const, expression: 'true', enabled: true, value: "script-src 'self'" };
  expect(policyUpdateBody(current, { ...current, zoneId: 'z', enabled: false })).toEqual({ enabled: false });
  expect(policyUpdateBody(current, { ...current, zoneId: 'z' })).toEqual({});
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
