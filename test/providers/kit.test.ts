import { z } from 'zod';
import { UNKNOWN, checkWithSchema, containsUnknown } from '../../src/providers/kit/check';
import { diffFields } from '../../src/providers/kit/diff';

const Schema = z
  .object({ zoneId: z.string().regex(/^[0-9a-f]{32}$/, 'must be a zone id'), count: z.number().int().default(1), tags: z.array(z.string()).optional() })
  .strict();
const zone = 'a'.repeat(32);

describe('checkWithSchema', () => {
  test.each([
    ['valid inputs get defaults', { zoneId: zone }, { zoneId: zone, count: 1 }, []],
    ['an unknown value passes through unvalidated', { zoneId: UNKNOWN }, { zoneId: UNKNOWN, count: 1 }, []],
    ['an array holding an unknown passes through', { zoneId: zone, tags: ['a', UNKNOWN] }, { zoneId: zone, count: 1, tags: ['a', UNKNOWN] }, []],
    ['__provider is kept and never validated', { zoneId: zone, __provider: 'code' }, { zoneId: zone, count: 1, __provider: 'code' }, []],
  ])('%s', (_name, news, inputs, failures) => {
    expect(checkWithSchema(Schema, news, 'Thing')).toEqual({ inputs, failures });
  });

  test('one failure per bad field, naming the resource and field', () => {
    const result = checkWithSchema(Schema, { zoneId: 'nope', count: 1.5 }, 'Thing');
    expect(result.failures).toEqual([
      { property: 'zoneId', reason: 'Thing.zoneId: must be a zone id' },
      { property: 'count', reason: 'Thing.count: Invalid input: expected int, received number' },
    ]);
  });

  test('an unknown input name is refused with the name', () => {
    const result = checkWithSchema(Schema, { zoneId: zone, colour: 'red' }, 'Thing');
    expect(result.failures).toEqual([
      { property: 'colour', reason: 'Thing: unknown input "colour"; remove it or check its spelling' },
    ]);
  });

  test('an unknown key inside an input names that input', () => {
    const Nested = z.object({ wait: z.object({ seconds: z.number() }).strict() }).strict();
    expect(checkWithSchema(Nested, { wait: { seconds: 1, secs: 2 } }, 'Thing').failures).toEqual([
      { property: 'wait', reason: 'Thing.wait: unknown key "secs"; remove it or check its spelling' },
    ]);
  });

  test('containsUnknown looks into objects and arrays', () => {
    expect(containsUnknown({ a: [{ b: UNKNOWN }] })).toBe(true);
    expect(containsUnknown({ a: [{ b: 'x' }] })).toBe(false);
  });
});

describe('diffFields', () => {
  const plan = { fields: ['zoneId', 'name', 'size'] as const, replace: ['zoneId'] as const };
  test.each([
    ['no change', { zoneId: 'z', name: 'a', size: 1 }, { zoneId: 'z', name: 'a', size: 1 }, [], []],
    ['an in-place change', { zoneId: 'z', name: 'a', size: 1 }, { zoneId: 'z', name: 'b', size: 1 }, ['name'], []],
    ['a replacing change', { zoneId: 'z', name: 'a' }, { zoneId: 'y', name: 'a' }, ['zoneId'], ['zoneId']],
    ['an absent new field is unmanaged', { zoneId: 'z', name: 'a', size: 1 }, { zoneId: 'z', name: 'a' }, [], []],
    ['an unknown new value is a change', { zoneId: 'z', name: 'a' }, { zoneId: 'z', name: UNKNOWN }, ['name'], []],
    ['outputs beyond the fields are ignored', { zoneId: 'z', name: 'a', updatedAt: 't1' }, { zoneId: 'z', name: 'a' }, [], []],
  ])('%s', (_name, olds, news, changed, replaces) => {
    const result = diffFields(olds, news, plan);
    expect(result.changed).toEqual(changed);
    expect(result.replaces).toEqual(replaces);
    expect(result.changes).toBe(changed.length > 0);
  });

  test('normalization applies to both sides', () => {
    const result = diffFields({ v: 'A ' }, { v: 'a' }, { fields: ['v'] }, (_f, value) => String(value).trim().toLowerCase());
    expect(result.changes).toBe(false);
  });
});
