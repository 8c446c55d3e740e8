import { z } from 'zod';
import { MAX_INPUT_DEPTH, PREVIEW_UNKNOWN, boundedReason, checkWithSchema, containsUnknown } from '../../src/providers/kit/check';
import { diffFields } from '../../src/providers/kit/diff';

const Schema = z
  .object({ zoneId: z.string().regex(/^[0-9a-f]{32}$/, 'must be a zone id'), count: z.number().int().default(1), tags: z.array(z.string()).optional() })
  .strict();
const zone = 'a'.repeat(32);

describe('checkWithSchema', () => {
  test.each([
    ['valid inputs get defaults', { zoneId: zone }, { zoneId: zone, count: 1 }, []],
    ['an unknown value passes through unvalidated', { zoneId: PREVIEW_UNKNOWN }, { zoneId: PREVIEW_UNKNOWN, count: 1 }, []],
    ['an array holding an unknown passes through', { zoneId: zone, tags: ['a', PREVIEW_UNKNOWN] }, { zoneId: zone, count: 1, tags: ['a', PREVIEW_UNKNOWN] }, []],
    ['__provider is kept and never validated', { zoneId: zone, __provider: 'code' }, { zoneId: zone, count: 1, __provider: 'code' }, []],
  ])('%s', (_name, news, inputs, failures) => {
    expect(checkWithSchema(Schema, news, 'Thing')).toEqual({ inputs, failures });
  });

  test('one failure per bad field, naming the resource and field', () => {
    const result = checkWithSchema(Schema, { zoneId: 'nope', count: 1.5 }, 'Thing');
    expect(result.failures).toEqual([
      { property: 'zoneId', reason: 'Thing.zoneId: must be a zone id' },
      { property: 'count', reason: 'Thing.count: must be a whole number' },
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

  /** `{ x: { x: ... } }` nested `levels` deep under `tags`. */
  const nested = (levels: number) => {
    let value: unknown = 'leaf';
    for (let i = 0; i < levels; i += 1) value = { x: value };
    return value;
  };

  describe.each([
    ['a __proto__ key (own, as JSON.parse makes it)', JSON.parse(`{"zoneId":"${zone}","__proto__":{"count":2}}`), [
      { property: '__proto__', reason: 'Thing: unknown input "__proto__"; a "__proto__" key is not allowed, remove it' },
    ]],
    ['a __proto__ key set as the prototype (as a deserializer assigning keys makes it)', Object.assign(Object.create({ count: 2 }), { zoneId: zone }), [
      { property: '__proto__', reason: 'Thing: unknown input "__proto__"; a "__proto__" key is not allowed, remove it' },
    ]],
    ['a __proto__ key inside an input', { zoneId: zone, tags: JSON.parse('[{"__proto__":{"a":1}}]') }, [
      { property: 'tags.0', reason: 'Thing.tags.0: a "__proto__" key is not allowed; remove it' },
    ]],
    [`nesting of ${MAX_INPUT_DEPTH + 1} levels`, { zoneId: zone, tags: nested(MAX_INPUT_DEPTH + 1) }, [
      { property: 'tags', reason: `Thing.tags: nested more than ${MAX_INPUT_DEPTH} levels deep; no input of Thing nests that deep` },
    ]],
    ['nesting of 100000 levels, without overflowing the stack', { zoneId: zone, tags: nested(100_000) }, [
      { property: 'tags', reason: `Thing.tags: nested more than ${MAX_INPUT_DEPTH} levels deep; no input of Thing nests that deep` },
    ]],
    ['a 10 MB unknown input name, quoted in part', { zoneId: zone, ['k'.repeat(10_000_000)]: 1 }, [
      { property: `${'k'.repeat(60)}…`, reason: `Thing: unknown input "${'k'.repeat(60)}…" (10000000 characters); remove it or check its spelling` },
    ]],
  ])('%s', (_name, news, failures) => {
    test('is refused before the schema, naming where', () => {
      expect(checkWithSchema(Schema, news as Record<string, unknown>, 'Thing')).toEqual({ inputs: news, failures });
    });
  });

  test(`nesting of ${MAX_INPUT_DEPTH} levels reaches the schema`, () => {
    const Deep = z.object({ tags: z.unknown() }).strict();
    expect(checkWithSchema(Deep, { tags: nested(MAX_INPUT_DEPTH - 1) }, 'Thing').failures).toEqual([]);
  });

  test('a 10 MB value the schema quotes comes back as an excerpt', () => {
    const Quoting = z.object({ value: z.string().refine((v) => v.length < 10, { error: (issue) => `${JSON.stringify(issue.input)} is too long` }) }).strict();
    expect(checkWithSchema(Quoting, { value: 'v'.repeat(10_000_000) }, 'Thing').failures).toEqual([
      { property: 'value', reason: `Thing.value: "${'v'.repeat(60)}…" (10000000 characters) is too long` },
    ]);
  });

  test.each([
    ['a short quote stays whole', 'x: "abc" is wrong', 'x: "abc" is wrong'],
    ['an escaped quote inside a literal', `x: ${JSON.stringify(`a"${'b'.repeat(100)}`)}`, `x: "a\\"${'b'.repeat(58)}…" (102 characters)`],
    ['an unclosed quote is cut with the reason', `x: "${'y'.repeat(1000)}`, `x: "${'y'.repeat(496)}… (1004 characters)`],
  ])('boundedReason: %s', (_name, reason, bounded) => {
    expect(boundedReason(reason)).toBe(bounded);
  });

  test('containsUnknown looks into objects and arrays', () => {
    expect(containsUnknown({ a: [{ b: PREVIEW_UNKNOWN }] })).toBe(true);
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
    ['an unknown new value is a change', { zoneId: 'z', name: 'a' }, { zoneId: 'z', name: PREVIEW_UNKNOWN }, ['name'], []],
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
