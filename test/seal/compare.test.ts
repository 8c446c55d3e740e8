import { PREVIEW_AGAIN, fieldChanges, landingAmong, landingRefusal, liveRefusal, sealedFields, stackRefusal, uncoveredRefusal } from '../../src/seal/compare';
import type { RulesetRule } from '../../src/schemas';

// The up's comparisons against a seal (docs/sealed-previews.md): pure tables, no service.

describe('sealedFields: the fields whose change a diff reports, the owner marker out of the marked field', () => {
  test.each([
    ['a policy: its description without the marker, the zone and computed outputs left out', 'CspPolicy' as const,
      { zoneId: 'z1', policyId: 'p1', description: 'shop zg:0123456789', action: 'log', enabled: true, expression: 'true', value: "script-src 'self'" },
      { description: 'shop', action: 'log', enabled: true, expression: 'true', value: "script-src 'self'" }],
    ['a rule: its ref without the marker, an absent or null field absent, a marker alone as no ref', 'CustomRule' as const,
      { zoneId: 'z1', ruleId: 'r1', ref: 'zg:0123456789', action: 'block', expression: 'true', description: null, enabled: true },
      { action: 'block', expression: 'true', enabled: true }],
  ])('%s', (_case, kind, outputs, fields) => {
    expect(sealedFields(kind, outputs)).toEqual(fields);
  });
});

test('fieldChanges names each field that differs, with its sealed and current value', () => {
  expect(fieldChanges({ action: 'block', enabled: true, ref: 'a' }, { action: 'log', enabled: true, description: 'x' })).toEqual([
    { field: 'action', sealed: 'block', now: 'log' },
    { field: 'ref', sealed: 'a', now: undefined },
    { field: 'description', sealed: undefined, now: 'x' },
  ]);
});

const rule = (id: string, ref: string): RulesetRule => ({ id, ref, action: 'block', expression: 'true' }) as RulesetRule;
const rules = [rule('r1', 'first zg:0000000001'), rule('r2', 'second zg:0000000002'), rule('r3', 'by hand')];

describe('landingAmong: the rules just before and after a create', () => {
  test.each([
    ['last', undefined, { id: 'r3', ref: 'by hand', marker: null }, null],
    ['first', { first: true as const }, null, { id: 'r1', ref: 'first', marker: 'zg:0000000001' }],
    ['after a ref', { after: 'first' }, { id: 'r1', ref: 'first', marker: 'zg:0000000001' }, { id: 'r2', ref: 'second', marker: 'zg:0000000002' }],
    ['before an id', { before: 'r3' }, { id: 'r2', ref: 'second', marker: 'zg:0000000002' }, { id: 'r3', ref: 'by hand', marker: null }],
  ])('%s', (_case, place, before, after) => {
    expect(landingAmong('http_request_firewall_custom', rules, place)).toEqual({ phase: 'http_request_firewall_custom', before, after });
  });

  test('a place naming no rule has no landing (the create refuses it)', () => {
    expect(landingAmong('http_request_firewall_custom', rules, { after: 'gone' })).toBeUndefined();
  });
});

test("landingRefusal: the same neighbours pass; another rule between them is named by ref, id and marker", () => {
  const sealed = landingAmong('http_request_firewall_custom', rules, { after: 'first' })!;
  expect(landingRefusal('CustomRule \'middle\' in zone z1', sealed, sealed)).toBeUndefined();
  const moved = landingAmong('http_request_firewall_custom', [rules[0]!, rule('x9', 'intruder zg:00000000ff'), rules[1]!], { after: 'first' })!;
  expect(landingRefusal("CustomRule 'middle' in zone z1", sealed, moved)).toBe(
    "CustomRule 'middle' in zone z1: the zone's http_request_firewall_custom phase changed since the sealed preview: the create now lands between " +
      'rule "first" (id r1, marker zg:0000000001) and rule "intruder" (id x9, marker zg:00000000ff), where the preview showed it between ' +
      `rule "first" (id r1, marker zg:0000000001) and rule "second" (id r2, marker zg:0000000002); ${PREVIEW_AGAIN}`,
  );
});

test("landingRefusal: a rule without a ref of its own (the service's default is its id) is named by its id once", () => {
  const sealed = landingAmong('http_request_firewall_custom', rules, { after: 'first' })!;
  const moved = landingAmong('http_request_firewall_custom', [rules[0]!, rule('x9', 'x9'), rules[1]!], { after: 'first' })!;
  expect(landingRefusal("CustomRule 'middle' in zone z1", sealed, moved)).toContain(
    'lands between rule "first" (id r1, marker zg:0000000001) and rule x9 (unmarked: made by hand or by another tool), where',
  );
});

test('the refusals are one line each, naming the resource, what changed and "preview again"', () => {
  const lines = [
    liveRefusal("CustomRule 'first' r1 in zone z1", [{ field: 'action', sealed: 'block', now: 'log' }], { id: 'r1', ref: 'first', marker: 'zg:0000000001' }),
    uncoveredRefusal("CspPolicy 'shop' in zone z1", 'create', undefined),
    uncoveredRefusal("CspPolicy 'shop' p1 in zone z1", 'delete', 'update'),
    stackRefusal({ project: 'shop', stack: 'ci', ownerId: 'aaaa' }, 'seal.json', 'bbbb')!,
  ];
  expect(lines).toEqual([
    `CustomRule 'first' r1 in zone z1 (the rule "first" (id r1, marker zg:0000000001)): changed on the service since the sealed preview: action "block" → "log"; ${PREVIEW_AGAIN}`,
    `CspPolicy 'shop' in zone z1: the sealed preview did not show this create (it showed no change of it); ${PREVIEW_AGAIN}`,
    `CspPolicy 'shop' p1 in zone z1: the sealed preview did not show this delete (it showed an update); ${PREVIEW_AGAIN}`,
    "zoneguard: the seal seal.json is of another stack's preview (shop/ci, owner id aaaa), not of this stack (owner id bbbb); nothing was written: keep the seal this stack's preview wrote",
  ]);
  expect(stackRefusal({ project: 'shop', stack: 'ci', ownerId: 'aaaa' }, 'seal.json', 'aaaa')).toBeUndefined();
});
