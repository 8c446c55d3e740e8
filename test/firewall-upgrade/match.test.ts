import { holderOf, holderText, isConversion, matchConversions, ruleNotes } from '../../src/firewall-upgrade/match';
import { convertedRule } from '../../src/rulesets';
import type { FirewallRuleWire, RulesetRule } from '../../src/schemas';

const legacy = (id: string, fields: Partial<FirewallRuleWire> = {}, expression = 'ip.src eq 192.0.2.1', filterPaused = false): FirewallRuleWire => ({
  id,
  paused: false,
  action: 'block',
  filter: { id: `f${id}`, expression, paused: filterPaused },
  ...fields,
});

describe('which custom rule is a legacy rule conversion, without ids', () => {
  const want = convertedRule(legacy('a', { action: 'allow', description: 'office', ref: 'office zg:00000000aa' }));

  test.each<[string, Partial<RulesetRule>, boolean]>([
    ['the same rule, a new id', { id: 'n1' }, true],
    ['the ref defaulted to the id (taken at conversion)', { id: 'n1', ref: 'n1' }, true],
    ['another expression', { expression: 'ip.src eq 192.0.2.2' }, false],
    ['another action', { action: 'block', action_parameters: undefined }, false],
    ['a skip of something else', { action_parameters: { products: ['waf'] } }, false],
    ['another description', { description: 'office 2' }, false],
    ['another ref of its own', { id: 'n1', ref: 'other' }, false],
    ['disabled since (still its conversion: enabled is not compared)', { enabled: false }, true],
  ])('%s: %s', (_name, change, expected) => {
    expect(isConversion(want, { ...want, ...change })).toBe(expected);
  });

  test('two legacy rules of one conversion take one custom rule each, in order', () => {
    const twins = [legacy('a'), legacy('b')];
    const custom = [{ ...convertedRule(legacy('x')), id: 'c1' }, { action: 'log', expression: 'true', id: 'other' }, { ...convertedRule(legacy('y')), id: 'c2' }];
    expect(matchConversions(twins, custom)).toEqual([0, 2]);
    expect(matchConversions([...twins, legacy('c')], custom)).toEqual([0, 2, undefined]);
  });
});

describe('who holds a rule', () => {
  const holders = { held: new Set(['legacy-1']), markers: new Map([['zg:00000000aa', 'urn:pulumi:dev::p::zoneguard:FirewallRule::office']]) };
  test.each<[string, (string | undefined)[], string | undefined, string]>([
    ['its marker is a resource of the given stacks', ['x'], 'zg:00000000aa', 'this stack (urn:pulumi:dev::p::zoneguard:FirewallRule::office)'],
    ['a resource of the stacks holds its id (made before markers)', ['legacy-1'], undefined, 'this stack'],
    ['a marker no given stack records', ['x'], 'zg:00000000bb', 'another owner (marker zg:00000000bb)'],
    ['neither', ['x'], undefined, 'nobody (made by hand, or before owner markers)'],
  ])('%s', (_name, ids, marker, expected) => {
    expect(holderText(holderOf(ids, marker, holders))).toBe(expected);
  });
});

describe('what a rule alone says of its conversion', () => {
  test('a rule on a paused filter, and a tie of js_challenge with managed_challenge at one priority', () => {
    const rules = [legacy('p', {}, 'true', true), legacy('j', { action: 'js_challenge', priority: 5 }), legacy('m', { action: 'managed_challenge', priority: 5 })];
    expect(ruleNotes(rules[0]!, rules)).toEqual(['its filter is paused, so it did not run; converted, it is enabled and runs (docs/service.md#legacy-paused)']);
    expect(ruleNotes(rules[1]!, rules)).toEqual([
      'ties with m (managed_challenge) at equal priority and precedence: no order is published; the conversion puts them in the order the API lists them',
    ]);
  });
});
