// The declared form of custom and rate limiting rules, without the emulator or a provider: the wire mapping both
// ways, how a diff compares it, and where a rule runs among the others (placeHolds, observedPlace, positionOf).
import {
  comparedRule,
  declaredRulePath,
  observedPlace,
  placeHolds,
  positionOf,
  rulesNamed,
  rulesSharingName,
  type DeclaredRule,
  type RulePlace,
} from '../../src/rulesets';
import { phaseRuleFromWire, phaseRuleToWire } from '../../src/kinds';
import type { RulesetRule } from '../../src/schemas';
import { PREVIEW_UNKNOWN } from '../../src/unknown';

const rules: RulesetRule[] = ['a', 'b', 'c'].map((ref) => ({ id: `${ref}`.repeat(32), ref, action: 'log', expression: 'true' }));
const id = (ref: string) => ref.repeat(32);

describe('placeHolds', () => {
  test.each<[string, string, RulePlace, boolean]>([
    ['first, at the top', 'a', { first: true }, true],
    ['first, second', 'b', { first: true }, false],
    ['last, at the end', 'c', { last: true }, true],
    ['before a later rule, by ref', 'a', { before: 'c' }, true],
    ['before an earlier rule, by id', 'c', { before: id('a') }, false],
    ['after an earlier rule, not next to it', 'c', { after: 'a' }, true],
    ['after a rule that is gone', 'c', { after: 'gone' }, false],
    ['after itself', 'b', { after: 'b' }, false],
  ])('%s', (_why, ref, place, holds) => {
    expect(placeHolds(rules, id(ref), place)).toBe(holds);
  });
});

describe('observedPlace', () => {
  test.each<[string, string, RulePlace | undefined, RulePlace | undefined]>([
    ['none declared: none read', 'c', undefined, undefined],
    ['a place that holds reads as declared', 'c', { after: 'a' }, { after: 'a' }],
    ['moved from the top: after the rule before it', 'b', { first: true }, { after: 'a' }],
    ['moved to the top', 'a', { after: 'c' }, { first: true }],
    ['not last any more', 'b', { last: true }, { after: 'a' }],
  ])('%s', (_why, ref, declared, observed) => {
    expect(observedPlace(rules, id(ref), declared)).toEqual(observed);
  });

  test('the rule before it is named by its own ref, without an owner marker', () => {
    const marked = rules.map((rule) => (rule.ref === 'a' ? { ...rule, ref: 'a zg:0123456789' } : rule));
    expect(observedPlace(marked, id('b'), { first: true })).toEqual({ after: 'a' });
  });
});

describe('a place names one rule, or nothing', () => {
  // "office" is carried by this stack's rule (with its marker) and by a rule made by hand; "other" by one rule only.
  const shared: RulesetRule[] = [
    { id: id('a'), ref: 'office zg:0123456789', action: 'skip', expression: 'true' },
    { id: id('b'), ref: 'office', action: 'log', expression: 'true' },
    { id: id('c'), ref: 'other zg:abcdefabcd', action: 'log', expression: 'true' },
    { id: id('d'), ref: id('d'), action: 'log', expression: 'true' },
  ];
  test.each<[string, string, string[]]>([
    ['a ref two rules carry, whole or before a marker: both', 'office', [id('a'), id('b')]],
    ['a ref one rule carries before its marker: that one', 'other', [id('c')]],
    ['a whole ref with its marker: that one', 'office zg:0123456789', [id('a')]],
    ['an id: that rule', id('b'), [id('b')]],
    ['a ref nobody carries: none', 'nobody', []],
  ])('rulesNamed: %s', (_why, name, ids) => {
    expect(rulesNamed(shared, name).map((rule) => rule.id)).toEqual(ids);
  });

  test.each<[string, RulePlace, string[]]>([
    ['after a shared ref: both, to be refused', { after: 'office' }, [id('a'), id('b')]],
    ['before a ref one rule carries: none', { before: 'other' }, []],
    ['by id: none', { after: id('b') }, []],
    ['first: none', { first: true }, []],
  ])('rulesSharingName: %s', (_why, place, ids) => {
    expect(rulesSharingName(shared, place).map((rule) => rule.id)).toEqual(ids);
  });

  test('a shared ref names no rule: a place by it neither holds nor gives a position; a read names the rule before by its id', () => {
    expect(placeHolds(shared, id('c'), { after: 'office' })).toBe(false);
    expect(positionOf(shared, { before: 'office' }, false)).toEqual({ missing: 'office' });
    expect(observedPlace(shared, id('c'), { first: true })).toEqual({ after: id('b') });
    expect(observedPlace(shared, id('b'), { first: true })).toEqual({ after: id('a') });
    expect(observedPlace(shared, id('d'), { first: true })).toEqual({ after: 'other' });
  });
});

describe('positionOf', () => {
  test.each<[string, RulePlace | undefined, boolean, unknown]>([
    ['no place: the service places it last', undefined, false, undefined],
    ['first: index 1', { first: true }, false, { index: 1 }],
    ['last at create: the default', { last: true }, false, undefined],
    ['last on a move: after every other rule', { last: true }, true, { index: 4 }],
    ['before a rule by ref: by its id', { before: 'b' }, false, { before: id('b') }],
    ['after a rule by id', { after: id('c') }, false, { after: id('c') }],
    ['a rule not in the phase', { after: 'gone' }, false, { missing: 'gone' }],
  ])('%s', (_why, place, moving, position) => {
    expect(positionOf(rules, place, moving)).toEqual(position);
  });
});

describe('the wire mapping', () => {
  const declared: Array<[string, Pick<DeclaredRule, 'action' | 'expression' | 'description' | 'enabled' | 'ref' | 'response' | 'skip' | 'ratelimit'>]> = [
    ['a block with its answer', { action: 'block', expression: 'true', description: 'd', enabled: true, ref: 'r', response: { statusCode: 403, content: '{}', contentType: 'application/json' } }],
    ['a skip of products and phases', { action: 'skip', expression: 'true', description: '', enabled: false, ref: 'r', skip: { products: ['waf'], phases: ['http_ratelimit'] } }],
    [
      'a rate limit counting responses',
      {
        action: 'block',
        expression: 'true',
        description: '',
        enabled: true,
        ref: '',
        ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 5, mitigationTimeout: 600, countingExpression: 'http.response.code eq 401' },
      },
    ],
  ];
  test.each(declared)('%s reads back as declared', (_why, rule) => {
    expect(phaseRuleFromWire({ ...phaseRuleToWire(rule), id: 'f'.repeat(32) })).toEqual(rule);
  });

  test('a ref the service defaulted to the id reads as empty; an empty action_parameters as none', () => {
    expect(phaseRuleFromWire({ id: id('a'), ref: id('a'), action: 'log', expression: 'true', action_parameters: {} })).toEqual({ action: 'log', expression: 'true', description: '', enabled: true, ref: '' });
  });

  test.each([
    [['action_parameters', 'response', 'status_code'], ['response', 'statusCode']],
    [['action_parameters', 'products', 0], ['skip', 'products', 0]],
    [['ratelimit', 'requests_per_period'], ['ratelimit', 'requestsPerPeriod']],
    [['expression'], ['expression']],
  ])('%j is named %j', (wire, declaredPath) => {
    expect(declaredRulePath(wire)).toEqual(declaredPath);
  });
});

describe('comparedRule', () => {
  const response = { statusCode: 403, content: 'no' };
  test.each([
    ['a block without a response: none, so one added by hand is drift', { action: 'block' }, { action: 'block', response: null, skip: null }],
    ['a block with its response, kept', { action: 'block', response }, { action: 'block', response, skip: null }],
    ['a skip with what it skips, kept', { action: 'skip', skip: { products: ['waf'] } }, { action: 'skip', response: null, skip: { products: ['waf'] } }],
    ['a value unknown in a preview, kept', { action: 'block', response: PREVIEW_UNKNOWN }, { action: 'block', response: PREVIEW_UNKNOWN, skip: null }],
  ])('%s', (_why, news, compared) => {
    expect(comparedRule(news)).toEqual(compared);
  });
});
