// Bidirectional controls and zero-width characters in a resource's texts: refused in expressions (a block rule whose
// host string never matches behind a green preview), refs and every other text, and in descriptions but for the
// joiners of a language. One failure on the field, naming the character and its position.
import { checkWithSchema } from '../../src/providers/kit/check';
import { CspPolicyArgsSchema } from '../../src/providers/csp-policy';
import { FirewallRuleWithFilterArgsSchema } from '../../src/providers/firewall-rule-with-filter';
import { WafManagedRulesArgsSchema } from '../../src/providers/waf-managed-rules';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';

const zoneId = 'a'.repeat(32);
const refused = 'bidirectional controls and zero-width characters are not allowed: they make a text read otherwise than it is; remove it';
const execute = { execute: { rulesetId: MANAGED_RULESET_ID } };
const SCHEMAS = { CspPolicy: CspPolicyArgsSchema, FirewallRuleWithFilter: FirewallRuleWithFilterArgsSchema, WafManagedRules: WafManagedRulesArgsSchema };

describe.each<[keyof typeof SCHEMAS, string, Record<string, unknown>, string, string]>([
  ['FirewallRuleWithFilter', 'a zero width space inside the host string of a block rule', { zoneId, action: 'block', expression: 'http.host eq "exa\u200Bmple.com"' }, 'expression', `FirewallRuleWithFilter.expression: contains a zero width space (U+200B) at character 18; ${refused}`],
  ['FirewallRuleWithFilter', 'a right-to-left override in the description', { zoneId, action: 'block', expression: 'true', description: 'block \u202Eelif.exe' }, 'description', `FirewallRuleWithFilter.description: contains a right-to-left override (U+202E) at character 7; ${refused}`],
  ['FirewallRuleWithFilter', 'a zero width joiner in the ref', { zoneId, action: 'block', expression: 'true', ref: 'office\u200D' }, 'ref', `FirewallRuleWithFilter.ref: contains a zero width joiner (U+200D) at character 7; ${refused}`],
  ['CspPolicy', 'a left-to-right isolate in the expression', { zoneId, action: 'allow', expression: 'http.host eq "a\u2066b"', value: "script-src 'self'" }, 'expression', `CspPolicy.expression: contains a left-to-right isolate (U+2066) at character 16; ${refused}`],
  ['WafManagedRules', 'a word joiner in a ref', { zoneId, order: ['ma\u2060naged'], rules: { 'ma\u2060naged': execute } }, 'order', `WafManagedRules.order.0: contains a word joiner (U+2060) at character 3; ${refused}`],
  ['WafManagedRules', 'a right-to-left mark in a rule description', { zoneId, order: ['managed'], rules: { managed: { ...execute, description: 'x\u200F' } } }, 'rules', `WafManagedRules.rules.managed.description: contains a right-to-left mark (U+200F) at character 2; ${refused}`],
])('%s: %s', (kind, _name, inputs, field, reason) => {
  test('is one failure naming the field, the character and its position', () => {
    const result = checkWithSchema(SCHEMAS[kind], inputs, kind, { multiline: ['expression'] });
    expect(result.failures.filter((failure) => failure.property.split('.')[0] === field).map((failure) => failure.reason)).toEqual([reason]);
  });
});

describe.each<[keyof typeof SCHEMAS, string, Record<string, unknown>]>([
  ['FirewallRuleWithFilter', 'a Hebrew description', { zoneId, action: 'block', expression: 'true', description: 'חסימת בוטים' }],
  ['FirewallRuleWithFilter', 'a Persian description with its zero width non-joiner', { zoneId, action: 'block', expression: 'true', description: 'می\u200Cخواهم' }],
  ['CspPolicy', 'a Japanese description', { zoneId, action: 'allow', expression: 'true', value: "script-src 'self'", description: '決済ページ' }],
  ['WafManagedRules', 'an emoji sequence joined by zero width joiners', { zoneId, order: ['managed'], rules: { managed: { ...execute, description: '👨\u200D👩\u200D👧' } } }],
])('%s: %s', (kind, _name, inputs) => {
  test('is accepted', () => {
    expect(checkWithSchema(SCHEMAS[kind], inputs, kind, { multiline: ['expression'] }).failures).toEqual([]);
  });
});

// A host name in another script compared with http.host never matches (src/expression/hosts.ts): refused in every
// kind whose expression the providers check; a description in that script is prose, accepted.
describe.each<[keyof typeof SCHEMAS, Record<string, unknown>, string]>([
  [
    'FirewallRuleWithFilter',
    { zoneId, action: 'block', expression: 'http.host eq "\u0440\u0430ypal.com"', description: 'блокировать фишинг' },
    'FirewallRuleWithFilter.expression: line 1, column 14: the host name compared with http.host holds the character U+0440 at character 1 of the string',
  ],
  [
    'CspPolicy',
    { zoneId, action: 'allow', expression: 'http.host in {"\u0430.com"}', value: "script-src 'self'", description: 'политика' },
    'CspPolicy.expression: line 1, column 15: the host name compared with http.host holds the character U+0430 at character 1 of the string',
  ],
  [
    'WafManagedRules',
    { zoneId, order: ['office'], rules: { office: { expression: 'http.host eq "b\u0430nk.com"', skip: { ruleset: 'current' }, description: 'банк' } } },
    'WafManagedRules.rules.office.expression: line 1, column 14: the host name compared with http.host holds the character U+0430 at character 2 of the string',
  ],
])('%s: a look-alike host name', (kind, inputs, prefix) => {
  test('is one failure on the expression, the description in the same script accepted', () => {
    const reasons = checkWithSchema(SCHEMAS[kind], inputs, kind, { multiline: ['expression'] }).failures.map((failure) => failure.reason);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain(prefix);
  });
});
