// The rules grammar as structured problems, without the emulator or a provider: what each caller words in its own
// texts (the emulator's messages are asserted in test/emulator/ruleset-rules.test.ts and rulesets.test.ts).
import { phaseQuota, ratelimitProblems, ruleActionProblems, rulesetProblems, within, type RuleProblem } from '../../src/rulesets';
import { placeRule } from '../../src/emulator/rulesets';
import type { RulesetRule } from '../../src/schemas';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';

const CUSTOM = 'http_request_firewall_custom';
const RATELIMIT = 'http_ratelimit';
const MANAGED = 'http_request_firewall_managed';
const limit = { characteristics: ['cf.colo.id'], period: 60, requests_per_period: 10, mitigation_timeout: 0 };

describe('ruleActionProblems', () => {
  test.each<[string, Pick<RulesetRule, 'action' | 'action_parameters'>, string, RuleProblem[]]>([
    ['an execute of a managed ruleset', { action: 'execute', action_parameters: { id: MANAGED_RULESET_ID } }, MANAGED, []],
    ['an execute without its ruleset', { action: 'execute' }, MANAGED, [{ kind: 'parameterRequired', path: ['action_parameters', 'id'], action: 'execute', phase: MANAGED }]],
    ['block in the managed phase', { action: 'block' }, MANAGED, [{ kind: 'action', path: ['action'], action: 'block', phase: MANAGED, allowed: ['execute', 'skip'] }]],
    [
      'a managed skip of rulesets and the rest at once',
      { action: 'skip', action_parameters: { ruleset: 'current', rulesets: [MANAGED_RULESET_ID] } },
      MANAGED,
      [{ kind: 'skipTargetsCombined', path: ['action_parameters'], targets: ['ruleset', 'rulesets'] }],
    ],
    ['a custom skip of phases and products together', { action: 'skip', action_parameters: { ruleset: 'current', phases: ['http_ratelimit'], products: ['waf'] } }, CUSTOM, []],
    [
      'a custom skip of a phase it cannot skip',
      { action: 'skip', action_parameters: { phases: ['http_request_firewall_custom'] } },
      CUSTOM,
      [{ kind: 'notOneOf', path: ['action_parameters', 'phases', 0], value: 'http_request_firewall_custom', allowed: ['http_ratelimit', 'http_request_firewall_managed', 'http_request_sbfm'] }],
    ],
    ['a repeated product', { action: 'skip', action_parameters: { products: ['waf', 'waf'] } }, CUSTOM, [{ kind: 'duplicate', path: ['action_parameters', 'products', 1], value: 'waf', first: ['action_parameters', 'products', 0] }]],
    ['a block with its response', { action: 'block', action_parameters: { response: { status_code: 429, content: 'slow down', content_type: 'text/plain' } } }, RATELIMIT, []],
    ['a block response without content', { action: 'block', action_parameters: { response: { status_code: 403 } } }, CUSTOM, [{ kind: 'required', path: ['action_parameters', 'response', 'content'], what: 'the body of the answer' }]],
    ['an execute parameter on a log', { action: 'log', action_parameters: { id: MANAGED_RULESET_ID } }, CUSTOM, [{ kind: 'parameterRefused', path: ['action_parameters', 'id'], action: 'log' }]],
  ])('%s', (_name, rule, phase, expected) => {
    expect(ruleActionProblems(rule, phase)).toEqual(expected);
  });
});

describe('ratelimitProblems', () => {
  test.each<[string, Pick<RulesetRule, 'action' | 'ratelimit'>, string, RuleProblem['kind'][]]>([
    ['a challenge that lasts until passed', { action: 'managed_challenge', ratelimit: limit }, RATELIMIT, []],
    ['a block for ten minutes', { action: 'block', ratelimit: { ...limit, mitigation_timeout: 600 } }, RATELIMIT, []],
    ['a challenge with a timeout', { action: 'js_challenge', ratelimit: { ...limit, mitigation_timeout: 600 } }, RATELIMIT, ['timeoutWithChallenge']],
    ['no rate limit in its phase', { action: 'block' }, RATELIMIT, ['required']],
    ['a rate limit elsewhere', { action: 'block', ratelimit: limit }, CUSTOM, ['notInPhase']],
    ['no characteristics', { action: 'block', ratelimit: { ...limit, characteristics: [] } }, RATELIMIT, ['emptyList']],
    ['a period and timeout off the lists', { action: 'log', ratelimit: { ...limit, period: 61, mitigation_timeout: 5 } }, RATELIMIT, ['notOneOf', 'notOneOf']],
    ['a fractional request count', { action: 'log', ratelimit: { ...limit, requests_per_period: 1.5 } }, RATELIMIT, ['atLeast']],
  ])('%s', (_name, rule, phase, kinds) => {
    expect(ratelimitProblems(rule, phase).map((problem) => problem.kind)).toEqual(kinds);
  });
});

describe('rulesetProblems', () => {
  test('paths from the ruleset, the expression check the caller\'s, then repeated ids and refs', () => {
    const rules: RulesetRule[] = [
      { action: 'block', expression: 'bad', ref: 'r' },
      { action: 'log', expression: 'true', ref: 'r', id: 'x' },
    ];
    const problems = rulesetProblems(rules, { knownIds: new Set(), expressionProblem: (text) => (text === 'bad' ? 'not an expression' : undefined), phase: CUSTOM });
    expect(problems).toEqual([
      { kind: 'expression', path: ['rules', 0, 'expression'], problem: 'not an expression' },
      { kind: 'ruleIdFormat', path: ['rules', 1, 'id'] },
      { kind: 'duplicate', path: ['rules', 1, 'ref'], value: 'r', first: ['rules', 0, 'ref'] },
    ]);
  });

  test('a request phase asks the checker for request fields only; the counting expression may read the response', () => {
    const asked: [string, boolean][] = [];
    rulesetProblems([{ action: 'block', expression: 'true', ratelimit: { ...limit, counting_expression: 'http.response.code eq 401' } }], {
      knownIds: new Set(),
      expressionProblem: (text, { responseFields }) => {
        asked.push([text, responseFields]);
        return undefined;
      },
      phase: RATELIMIT,
    });
    expect(asked).toEqual([
      ['true', false],
      ['http.response.code eq 401', true],
    ]);
  });

  test('within moves a repeat\'s first place too', () => {
    expect(within(['rules', 2], { kind: 'duplicate', path: ['ref'], value: 'a', first: ['ref'] })).toEqual({ kind: 'duplicate', path: ['rules', 2, 'ref'], value: 'a', first: ['rules', 2, 'ref'] });
  });
});

describe('phaseQuota', () => {
  test.each([
    [CUSTOM, 'free', 5],
    [CUSTOM, 'enterprise', 1000],
    [RATELIMIT, 'pro', 2],
    [MANAGED, 'free', undefined],
  ])('%s on %s: %s', (phase, plan, quota) => expect(phaseQuota(phase, plan)).toBe(quota));
});

describe('placeRule', () => {
  const rules: RulesetRule[] = ['a', 'b', 'c'].map((id) => ({ id, action: 'log', expression: 'true' }));
  const ids = (result: RulesetRule[] | string) => (typeof result === 'string' ? result : result.map((rule) => rule.id));
  const n: RulesetRule = { id: 'n', action: 'log', expression: 'true' };
  test.each<[string, Parameters<typeof placeRule>[2], string[] | string]>([
    ['last by default', undefined, ['a', 'b', 'c', 'n']],
    ['before a rule', { before: 'b' }, ['a', 'n', 'b', 'c']],
    ['after the last rule', { after: 'c' }, ['a', 'b', 'c', 'n']],
    ['at the first index', { index: 1 }, ['n', 'a', 'b', 'c']],
    ['at the place after the last', { index: 4 }, ['a', 'b', 'c', 'n']],
    ['past the end', { index: 5 }, 'position.index: must be between 1 and 4 (the places of this ruleset)'],
    ['before a rule it does not hold', { before: 'z' }, 'position.before: the ruleset has no rule z; name a rule of this ruleset, or use { index: n }'],
  ])('%s', (_name, position, expected) => expect(ids(placeRule(rules, n, position))).toEqual(expected));
});
