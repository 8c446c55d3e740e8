// The pure decisions of CustomRule and RateLimitRule's shared provider (src/providers/kit/phase-rule.ts), as tables:
// which rule a create made, whether an update moves the rule, the rule as the update writes it, the outputs of a
// found rule. No emulator, no network.
import { asWritten, createdRule, landingLine, moves, normalizeRuleField, outputsOfRule } from '../../src/providers/kit/phase-rule';
import { entitlementProblem, landingIndex, passedOver, rulesSharingName, type RulePlace } from '../../src/rulesets';
import type { RulesetRule, SavedRuleset } from '../../src/schemas';

const ZONE = 'a9b67e024b090640650f12971210b69b';
const rule = (id: string, ref: string, extra: Partial<RulesetRule> = {}): RulesetRule => ({ id: id.repeat(32), ref, action: 'log', expression: 'true', ...extra });
const ruleset = (...rules: RulesetRule[]): SavedRuleset => ({ id: 'e'.repeat(32), name: 'default', rules });

describe('createdRule', () => {
  const before = ruleset(rule('a', 'a'));
  test.each<[string, SavedRuleset | undefined, SavedRuleset, string, string | undefined]>([
    ['the one rule the answer adds', before, ruleset(rule('a', 'a'), rule('b', 'mine')), 'mine', 'b'],
    ['of the declared ref, when another writer added one too', before, ruleset(rule('a', 'a'), rule('b', 'mine'), rule('c', 'theirs')), 'mine', 'b'],
    ['the last one added, for a rule declared without a ref', before, ruleset(rule('a', 'a'), rule('b', 'b'), rule('c', 'c')), '', 'c'],
    ['the first rule of a new entry point', undefined, ruleset(rule('b', 'mine')), 'mine', 'b'],
    ['none, when the answer adds nothing', before, before, 'mine', undefined],
  ])('%s', (_why, previous, answer, ref, made) => {
    expect(createdRule(previous, answer, ref)?.id).toBe(made?.repeat(32));
  });
});

describe('moves', () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown>, boolean]>([
    ['no place declared: never', { position: { first: true } }, {}, false],
    ['the same place', { position: { after: 'x' } }, { position: { after: 'x' } }, false],
    ['another place', { position: { after: 'x' } }, { position: { before: 'x' } }, true],
    ['a place first declared', {}, { position: { last: true } }, true],
    ['a place a refresh read elsewhere (drift)', { position: { after: 'y' } }, { position: { first: true } }, true],
  ])('%s', (_why, olds, news, moved) => {
    expect(moves(olds, news)).toBe(moved);
  });
});

describe('asWritten', () => {
  test.each<[string, Record<string, unknown>, unknown, string]>([
    ['the ref with the marker', { ref: 'admin' }, 'zg:0123456789', 'admin zg:0123456789'],
    ['an empty ref: the marker alone', { ref: '' }, 'zg:0123456789', 'zg:0123456789'],
    ['no marker (no owner): the ref as declared', { ref: 'admin' }, undefined, 'admin'],
    ['an empty marker: the ref as declared', { ref: 'admin' }, '', 'admin'],
  ])('%s', (_why, news, marker, ref) => {
    expect(asWritten({ zoneId: ZONE, action: 'log', expression: 'true', ...news }, marker).ref).toBe(ref);
  });
});

describe('where a rule lands (landingIndex, passedOver, landingLine)', () => {
  const rules = [rule('a', 'alpha zg:0123456789'), rule('b', 'by-hand'), rule('c', 'gamma')];
  test.each<[string, RulePlace | undefined, number | { missing: string }, string[]]>([
    ['no place: last, ahead of none', undefined, 3, []],
    ['last', { last: true }, 3, []],
    ['first: ahead of all', { first: true }, 0, ['a', 'b', 'c']],
    ['before a rule by its own ref (its marker left out)', { before: 'alpha' }, 0, ['a', 'b', 'c']],
    ['after a rule by id', { after: 'b'.repeat(32) }, 2, ['c']],
    ['a name no rule has', { after: 'nobody' }, { missing: 'nobody' }, []],
  ])('a create, %s', (_why, place, index, passed) => {
    expect(landingIndex(rules, place)).toEqual(index);
    expect(passedOver(rules, undefined, place).map((r) => r.id![0])).toEqual(passed);
  });

  test.each<[string, string, RulePlace, string[]]>([
    ['the last rule moved first passes over the others', 'c', { first: true }, ['a', 'b']],
    ['the first moved after the last passes over the others', 'a', { after: 'gamma' }, ['b', 'c']],
    ['a rule already in its place passes over none', 'b', { after: 'alpha' }, []],
    ['a rule the phase does not hold: none', 'z', { first: true }, []],
  ])('a move: %s', (_why, id, place, passed) => {
    expect(passedOver(rules, id.repeat(32), place).map((r) => r.id![0])).toEqual(passed);
  });

  test('the line names each rule by its own ref and what its marker says, ten at most', () => {
    const many = Array.from({ length: 12 }, (_, i) => rule(String.fromCharCode(97 + i), i % 2 ? `r${i}` : `r${i} zg:0123456789`));
    const line = landingLine("CustomRule 'office' in zone z", { change: 'create', phase: 'http_request_firewall_custom', at: 0, total: 13, place: { first: true } }, many);
    expect(line).toBe(
      `zoneguard: CustomRule 'office' in zone z: the up creates it at 1 of 13 in the zone's http_request_firewall_custom phase (position {"first":true}), ahead of 12 rules of other owners, which then run after it: ` +
        '"r0" (marker zg:0123456789), "r1" (unmarked), "r2" (marker zg:0123456789), "r3" (unmarked), "r4" (marker zg:0123456789), "r5" (unmarked), ' +
        '"r6" (marker zg:0123456789), "r7" (unmarked), "r8" (marker zg:0123456789), "r9" (unmarked) and 2 more',
    );
    expect(landingLine('x', { change: 'move', phase: 'p', at: 2, total: 3, place: undefined }, [rule('a', '')])).toBe(
      `zoneguard: x: the up moves it to 3 of 3 in the zone's p phase (position last), past 1 rule of other owners, whose order against it changes: "${'a'.repeat(32)}" (unmarked)`,
    );
  });
});

describe('rulesSharingName', () => {
  const rules = [rule('a', 'admin zg:0123456789'), rule('b', 'admin zg:abcdefabcd'), rule('c', 'api zg:0123456789'), rule('d', 'solo')];
  test.each<[string, RulePlace | undefined, string[]]>([
    ['an own ref two owners declared', { after: 'admin' }, ['a', 'b']],
    ['the same, before', { before: 'admin' }, ['a', 'b']],
    ['a whole ref, marker and all: one rule', { after: 'admin zg:abcdefabcd' }, []],
    ['an id', { after: 'a'.repeat(32) }, []],
    ['an own ref one rule carries', { after: 'api' }, []],
    ['first, last, none', { first: true }, []],
  ])('%s', (_why, place, ids) => {
    expect(rulesSharingName(rules, place).map((r) => r.id![0])).toEqual(ids);
  });
});

describe('entitlementProblem', () => {
  test.each<[string, string[], string, string | undefined]>([
    ['a bot management field off the enterprise plan', ['ip.src', 'cf.bot_management.score'], 'pro', 'cf.bot_management.score needs Bot Management, an add-on of the enterprise plan; this zone is on the pro plan'],
    ['the same on the enterprise plan', ['cf.bot_management.score'], 'enterprise', undefined],
    ['no such field', ['ip.src', 'cf.client.bot'], 'free', undefined],
  ])('%s', (_why, fields, plan, problem) => {
    expect(entitlementProblem(fields, plan)).toBe(problem);
  });
});

describe('normalizeRuleField', () => {
  test('absent and null are nothing; objects compare without their undefined keys', () => {
    expect(normalizeRuleField('response', undefined)).toBeUndefined();
    expect(normalizeRuleField('response', null)).toBeUndefined();
    expect(normalizeRuleField('ratelimit', { period: 60, countingExpression: undefined })).toEqual({ period: 60 });
  });
});

describe('outputsOfRule', () => {
  test('the declared place while it holds, where the rule runs once moved, and the ids', () => {
    const saved = ruleset(rule('a', 'a'), rule('b', 'b zg:0123456789'));
    const found = { id: 'b'.repeat(32), rule: saved.rules[1]!, ruleset: saved };
    expect(outputsOfRule(ZONE, found, { position: { after: 'a' } })).toEqual({
      zoneId: ZONE,
      action: 'log',
      expression: 'true',
      description: '',
      enabled: true,
      ref: 'b zg:0123456789',
      position: { after: 'a' },
      ruleId: 'b'.repeat(32),
      rulesetId: 'e'.repeat(32),
    });
    expect(outputsOfRule(ZONE, found, { position: { first: true } }).position).toEqual({ after: 'a' });
  });
});
