import { KINDS } from '../../src/kinds';
import { implementation } from '../../src/providers';

// The engine may hand check no inputs (`check(olds, null)`); every kind answers one failure, never a TypeError.
describe.each(KINDS.map((declaration) => declaration.kind))('%s check without inputs', (kind) => {
  test.each([
    ['null', null, 'missing'],
    ['undefined', undefined, 'missing'],
    ['a string', 'zone', 'a string, not a record of inputs'],
    ['an array', [], 'an array, not a record of inputs'],
  ])('news %s', async (_name, news, got) => {
    const result = await implementation(kind).check({}, news as never);
    expect(result).toEqual({
      inputs: {},
      failures: [{ property: '', reason: `${kind}: the inputs are ${got}; pass the resource's arguments as an object` }],
    });
  });

  test('olds null and news null', async () => {
    const result = await implementation(kind).check(null as never, null as never);
    expect(result.failures).toHaveLength(1);
    expect(result.failures?.[0]?.reason).toBe(`${kind}: the inputs are missing; pass the resource's arguments as an object`);
  });
});
