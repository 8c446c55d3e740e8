// The pure decisions of CustomRule and RateLimitRule's shared provider (src/providers/kit/phase-rule.ts), as tables:
// which rule a create made, whether an update moves the rule, the rule as the update writes it, the outputs of a
// found rule. No emulator, no network.
import { MARKER_KEY } from '../../src/kinds/marker';
import { asWritten, createdRule, moves, normalizeRuleField, outputsOfRule } from '../../src/providers/kit/phase-rule';
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
  test.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ['the ref with the marker the state records', { ref: 'admin' }, { [MARKER_KEY]: 'zg:0123456789' }, 'admin zg:0123456789'],
    ['an empty ref: the marker alone', { ref: '' }, { [MARKER_KEY]: 'zg:0123456789' }, 'zg:0123456789'],
    ['no marker recorded (no owner): the ref as declared', { ref: 'admin' }, {}, 'admin'],
  ])('%s', (_why, news, olds, ref) => {
    expect(asWritten({ zoneId: ZONE, action: 'log', expression: 'true', ...news }, olds).ref).toBe(ref);
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
