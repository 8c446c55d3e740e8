import { z } from 'zod';
import { compiledCheck } from '../../src/client/compiled-check';
import {
  ConnectionSchema,
  CookieSchema,
  CspPolicySchema,
  FilterSchema,
  FirewallRuleSchema,
  ScriptSchema,
  WafOverrideSchema,
  WafPackageSchema,
} from '../../src/schemas';

// The list walk checks items with a compiled check and hands them out uncopied (docs/client.md#list-walk-cost).
// It must accept exactly what zod accepts, and leave a valid item as zod's parse would return it.

const ID = '0123456789abcdef0123456789abcdef';
const script = {
  id: ID,
  url: 'https://cdn.example/widget.js',
  host: 'www.example.com',
  added_at: '2026-01-01T00:00:00Z',
  first_seen_at: '2026-01-01T00:00:00.123Z',
  last_seen_at: '2026-01-02T10:00:00+02:00',
  status: 'active',
  domain_reported_malicious: false,
  malicious_url_categories: ['Malware'],
  js_integrity_score: 70,
  hash: 'ab'.repeat(32),
};
const rule = {
  id: ID,
  paused: false,
  action: 'block',
  priority: null,
  products: ['waf'],
  filter: { id: ID, expression: 'http.host eq "a"', deleted: false },
};
const override = { id: ID, description: null, urls: ['example.com/*'], groups: { ea8687e59929c1fd05ba97574ad43f77: 'default' } };

/** Every list schema the check serves, with a valid item and variants of it. */
const cases: Array<[string, z.ZodType, Record<string, unknown>, Array<[string, unknown, boolean?]>]> = [
  [
    'ScriptSchema',
    ScriptSchema,
    script,
    [
      ['an id in capitals', { ...script, id: ID.toUpperCase() }],
      ['an id too short', { ...script, id: ID.slice(1) }],
      ['a timestamp without seconds', { ...script, added_at: '2026-01-01T00:00Z' }],
      ['a timestamp without a zone', { ...script, added_at: '2026-01-01T00:00:00' }],
      ['the 30th of February', { ...script, added_at: '2026-02-30T00:00:00Z' }],
      ['a score that is not whole', { ...script, js_integrity_score: 70.5 }],
      ['a score past the safe integers', { ...script, js_integrity_score: 2 ** 53 }],
      ['an infinite score (1e999 in the JSON)', { ...script, js_integrity_score: Infinity }],
      ['a score as text', { ...script, js_integrity_score: '70' }],
      ['a status the enum does not know', { ...script, status: 'quarantined' }, true],
      ['a status that is a number', { ...script, status: 3 }],
      ['no url', { ...script, url: undefined }],
      ['a null host', { ...script, host: null }],
      ['a category that is not text', { ...script, malicious_url_categories: ['Malware', 7] }],
      ['an array instead of the item', [script]],
      ['null', null],
    ],
  ],
  ['ConnectionSchema', ConnectionSchema, { id: ID, url: 'https://api.example/x', host: 'www.example.com', status: 'inactive' }, [['a boolean as text', { id: ID, url: 'u', host: 'h', status: 'active', url_reported_malicious: 'false' }]]],
  [
    'CookieSchema',
    CookieSchema,
    { id: ID, type: 'first_party', name: 'session', host: 'www.example.com', max_age_attribute: null, page_urls: ['https://www.example.com/'] },
    [
      ['a max age that is not whole', { id: ID, type: 't', name: 'n', host: 'h', max_age_attribute: 1.5 }],
      ['no name', { id: ID, type: 't', host: 'h' }],
    ],
  ],
  [
    'FirewallRuleSchema',
    FirewallRuleSchema,
    rule,
    [
      ['a filter without its id', { ...rule, filter: { expression: 'true' } }],
      ['a filter that is null', { ...rule, filter: null }],
      ['a priority as text', { ...rule, priority: '1' }],
      ['paused missing', { ...rule, paused: undefined }],
    ],
  ],
  ['FilterSchema', FilterSchema, { id: ID, expression: 'http.host eq "a"', paused: false }, [['an expression that is a number', { id: ID, expression: 1, paused: false }]]],
  [
    'WafOverrideSchema',
    WafOverrideSchema,
    override,
    [
      ['a group set to a number', { ...override, groups: { a: 1 } }],
      ['urls as text', { ...override, urls: 'example.com/*' }],
    ],
  ],
  [
    'WafPackageSchema',
    WafPackageSchema,
    { id: ID, zone_id: ID, name: 'OWASP ModSecurity Core Rule Set', description: null, detection_mode: 'anomaly', sensitivity: 'low' },
    [
      ['a detection mode the enum does not know', { id: ID, zone_id: ID, name: 'n', detection_mode: 'learning' }],
      ['a sensitivity the enum does not know', { id: ID, zone_id: ID, name: 'n', detection_mode: 'anomaly', sensitivity: 'extreme' }],
    ],
  ],
];

describe.each(cases)('%s', (_name, schema, valid, variants) => {
  const check = compiledCheck(schema)!;

  it('is compiled (the schema only validates)', () => {
    expect(check).toBeInstanceOf(Function);
  });

  it('accepts a valid item, leaves it as zod returns it and drops the keys the schema does not know', () => {
    const item = structuredClone({ ...valid, unknown_field: 'x', another: { nested: true } });
    const expected = schema.parse(structuredClone(item));
    expect(check(item)).toBe(true);
    expect(item).toEqual(expected);
    expect(item).not.toHaveProperty('unknown_field');
  });

  // Each variant is invalid unless its row says true; the check and zod both give that answer.
  it.each(variants)('agrees with zod on %s', (_label, value, valid = false) => {
    expect([check(structuredClone(value)), schema.safeParse(structuredClone(value)).success]).toEqual([valid, valid]);
  });
});

describe('schemas left to zod', () => {
  it.each<[string, z.ZodType]>([
    ['a transform (CspPolicySchema reads enabled "true" as true)', CspPolicySchema],
    ['a default', z.object({ a: z.array(z.string()).default([]) })],
    ['a refinement', z.object({ a: z.string().refine((s) => s !== 'x') })],
    ['a strict object (zod refuses unknown keys)', z.object({ a: z.string() }).strict()],
    ['a passthrough object (zod keeps unknown keys)', z.object({ a: z.string() }).passthrough()],
    ['a coercion', z.object({ a: z.coerce.number() })],
    ['a pattern with a flag', z.object({ a: z.string().regex(/^abc$/i) })],
    ['a bound on a string length (code points against UTF-16 units)', z.object({ a: z.string().max(2) })],
    ['a format zod checks by more than a pattern', z.object({ a: z.url() })],
    ['a union of objects (unknown keys stripped inside a failing branch)', z.union([z.object({ a: z.string() }), z.object({ b: z.number() })])],
    ['a nullable object', z.object({ a: z.object({ b: z.string() }).nullable() })],
  ])('%s', (_label, schema) => {
    expect(compiledCheck(schema)).toBeUndefined();
  });
});
