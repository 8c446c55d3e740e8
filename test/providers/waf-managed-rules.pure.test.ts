// Pure parts of WafManagedRules: the input schema and its refusals, wire mapping, normalization, the diff by ref,
// the update body, and the refs the migration gives its rules.
import { PREVIEW_UNKNOWN, checkWithSchema } from '../../src/providers/kit/check';
import { withMigrationRefs } from '../../src/migration';
import { WafManagedRulesArgsSchema, changedRules, entrypointUpdate, holdsDeclared, migrationRefusal, orderFailures } from '../../src/providers/waf-managed-rules';
import { managedRuleToWire, normalizeRule, ruleFromWire, rulesByRef, rulesFromRuleset, type ManagedRuleWithRef } from '../../src/rulesets';
import { type EntrypointRuleset, type SavedRuleset } from '../../src/schemas';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';
import { OWASP_ANOMALY_SCORE_RULE_ID, OWASP_RULESET_ID } from '../../src/schemas/service';

const zoneId = 'a'.repeat(32);
const RULE = 'b'.repeat(32);

const office: ManagedRuleWithRef = { ref: 'office', expression: 'ip.src eq 192.0.2.1', skip: { ruleset: 'current' } };
const managed: ManagedRuleWithRef = { ref: 'managed', execute: { rulesetId: MANAGED_RULESET_ID } };
const owasp: ManagedRuleWithRef = {
  ref: 'owasp',
  description: 'OWASP',
  execute: {
    rulesetId: OWASP_RULESET_ID,
    categories: [{ category: 'paranoia-level-4', enabled: false }, { category: 'paranoia-level-3', enabled: false }],
    rules: [{ id: OWASP_ANOMALY_SCORE_RULE_ID, action: 'log', scoreThreshold: 25 }],
  },
};

/** The provider's inputs for a list of rules, checked by the schema. */
const check = (list: ManagedRuleWithRef[]) => {
  const inputs = { zoneId, ...rulesByRef(list) };
  const result = checkWithSchema(WafManagedRulesArgsSchema, inputs, 'WafManagedRules');
  return [...result.failures, ...orderFailures(result.failures.length > 0 ? inputs : (result.inputs ?? {}))].map((f) => f.reason);
};

describe('check refuses what the service would refuse, one failure per field naming the ref', () => {
  test.each<[string, ManagedRuleWithRef[], string[]]>([
    ['an unknown ruleset id', [{ ref: 'x', execute: { rulesetId: 'c'.repeat(32) } }], [`WafManagedRules.rules.x.execute.rulesetId: unknown managed ruleset "${'c'.repeat(32)}"`]],
    [
      'a duplicate ref',
      [managed, { ...owasp, ref: 'managed' }],
      ['WafManagedRules.order.1: ref "managed" is declared twice (rules 0 and 1); refs must be unique'],
    ],
    [
      'a skip after everything it would skip',
      [managed, office],
      ['WafManagedRules.rules.office.skip: the rule skips the rest of the entry point, but no rule after it executes a managed ruleset'],
    ],
    [
      'a skip of a ruleset not executed after it',
      [{ ref: 'no-owasp', skip: { rulesets: [OWASP_RULESET_ID] } }, managed, owasp],
      [],
    ],
    [
      'a skip of a ruleset executed only before it',
      [owasp, { ref: 'no-owasp', skip: { rulesets: [OWASP_RULESET_ID] } }, managed],
      [`WafManagedRules.rules.no-owasp.skip: the rule skips ${OWASP_RULESET_ID} (Cloudflare OWASP Core Ruleset), but no rule after it executes it`],
    ],
    ['an override action', [{ ref: 'm', execute: { rulesetId: MANAGED_RULESET_ID, action: 'allow' as never } }], ['WafManagedRules.rules.m.execute.action: must be one of block']],
    [
      'a rule override that sets nothing, and a malformed rule id',
      [{ ref: 'm', execute: { rulesetId: MANAGED_RULESET_ID, rules: [{ id: RULE }, { id: 'nope', enabled: false }] } }],
      ['WafManagedRules.rules.m.execute.rules.0: must set at least one of action, enabled, scoreThreshold', 'WafManagedRules.rules.m.execute.rules.1.id:'],
    ],
    [
      'a category overridden twice',
      [{ ref: 'm', execute: { rulesetId: MANAGED_RULESET_ID, categories: [{ category: 'wordpress', enabled: false }, { category: 'wordpress', action: 'log' }] } }],
      ['WafManagedRules.rules.m.execute.categories.1: category wordpress appears again (already at 0); merge the two'],
    ],
    ['a bad expression', [{ ref: 'm', expression: 'ip.src eq', execute: { rulesetId: MANAGED_RULESET_ID } }], ['WafManagedRules.rules.m.expression: line 1, column']],
    ['neither execute nor skip', [{ ref: 'm' }], ['WafManagedRules.rules.m: must set exactly one of execute, skip']],
    ['a skip of two kinds', [{ ref: 's', skip: { ruleset: 'current', rulesets: [MANAGED_RULESET_ID] } }, managed], ['WafManagedRules.rules.s.skip: must set exactly one of ruleset: "current", rulesets, rules']],
    // Check reads the order's failures from the raw inputs when the schema refused them: a malformed skip is the schema's to name.
    ['a skip whose rulesets is no list (a program without the types)', [{ ref: 's', skip: { rulesets: MANAGED_RULESET_ID as never } }, managed], ['WafManagedRules.rules.s.skip.rulesets: ']],
    ['an empty ref', [{ ...managed, ref: '' }], ['WafManagedRules.order.0: must not be empty (a rule needs a ref)']],
    [
      'a ref with a dot',
      [{ ...managed, ref: 'eu.managed' }],
      ['WafManagedRules.order.0: ref "eu.managed" must not contain a dot: failures name a rule as rules.<ref>.<field>, so a dot would make them ambiguous'],
    ],
    ['the migrated configuration', [office, managed, owasp], []],
    ['a 100,000-character ref', [{ ...managed, ref: 'r'.repeat(100_000) }], ['WafManagedRules.order.0: must be at most 50 characters (a ref)', ': the key must be at most 50 characters (a ref)']],
    ['a 1 MB description', [{ ...managed, description: 'd'.repeat(1_000_000) }], ['WafManagedRules.rules.managed.description: must be at most 500 characters']],
    ['a rule whose ref is named like a member of Object.prototype', [office, { ...managed, ref: 'toString' }, { ...owasp, ref: 'constructor' }], []],
    [
      'more rules than the cap',
      Array.from({ length: 1001 }, (_, index) => ({ ...managed, ref: `r${index}` })),
      ['WafManagedRules.order: must hold at most 1000 rules; split them over fewer, broader rules'],
    ],
  ])('%s', (_name, list, expected) => {
    const reasons = check(list);
    expect(reasons).toHaveLength(expected.length);
    expected.forEach((prefix, index) => expect(reasons[index]).toContain(prefix));
  });

  test.each(['toString', 'constructor', 'hasOwnProperty', '__defineGetter__'])('a ref %s in order without its rule names no rule', (ref) => {
    const { rules } = rulesByRef([managed]);
    expect(orderFailures({ order: [ref, 'managed'], rules }).map((f) => f.reason)).toEqual([`WafManagedRules.order.0: ref "${ref}" names no rule`]);
  });

  test('a rule added under a ref named like a member of Object.prototype is a change', () => {
    const before = rulesByRef([managed]);
    expect(changedRules(before, rulesByRef([managed, { ...owasp, ref: 'toString' }]))).toEqual(['rules.toString', 'order']);
    expect(changedRules(rulesByRef([managed, { ...owasp, ref: 'toString' }]), before)).toEqual(['rules.toString', 'order']);
  });

  test('values not known yet (preview) are let through', () => {
    expect(orderFailures({ order: PREVIEW_UNKNOWN, rules: PREVIEW_UNKNOWN })).toEqual([]);
    const result = checkWithSchema(WafManagedRulesArgsSchema, { zoneId, order: PREVIEW_UNKNOWN, rules: PREVIEW_UNKNOWN }, 'WafManagedRules');
    expect(result.failures).toEqual([]);
  });
});

describe('wire mapping', () => {
  test.each<[string, ManagedRuleWithRef]>([
    ['a skip of the rest', office],
    ['a bare execute', managed],
    ['an execute with overrides', owasp],
    ['a skip of named rules', { ref: 'r', description: '', expression: 'true', enabled: false, skip: { rules: { [MANAGED_RULESET_ID]: [RULE] } } }],
  ])('%s goes to the wire and back unchanged (normalized)', (_name, { ref, ...rule }) => {
    const wire = managedRuleToWire(ref, normalizeRule(rule), 'f'.repeat(32));
    expect(wire).toMatchObject({ id: 'f'.repeat(32), ref, action: rule.execute ? 'execute' : 'skip' });
    const { ref: back, ...again } = ruleFromWire(wire);
    expect(back).toBe(ref);
    expect(normalizeRule(again)).toEqual(normalizeRule(rule));
  });

  test('the execute rule carries its overrides in the service names', () => {
    const { ref, ...rule } = owasp;
    expect(managedRuleToWire(ref, normalizeRule(rule)).action_parameters).toEqual({
      id: OWASP_RULESET_ID,
      overrides: {
        categories: [{ category: 'paranoia-level-3', enabled: false }, { category: 'paranoia-level-4', enabled: false }],
        rules: [{ id: OWASP_ANOMALY_SCORE_RULE_ID, action: 'log', score_threshold: 25 }],
      },
    });
  });
});

describe('normalization', () => {
  test.each<[string, object, object]>([
    ['defaults filled', { execute: { rulesetId: MANAGED_RULESET_ID } }, { description: '', expression: 'true', enabled: true, execute: { rulesetId: MANAGED_RULESET_ID } }],
    ['empty override lists dropped', { execute: { rulesetId: MANAGED_RULESET_ID, rules: [], categories: [] } }, { execute: { rulesetId: MANAGED_RULESET_ID } }],
    [
      'overrides sorted by rule id',
      { execute: { rulesetId: MANAGED_RULESET_ID, rules: [{ id: RULE, enabled: false }, { id: 'a'.repeat(32), action: 'log' }] } },
      { execute: { rulesetId: MANAGED_RULESET_ID, rules: [{ id: 'a'.repeat(32), action: 'log' }, { id: RULE, enabled: false }] } },
    ],
    ['skipped rulesets sorted', { skip: { rulesets: [OWASP_RULESET_ID, MANAGED_RULESET_ID] } }, { skip: { rulesets: [OWASP_RULESET_ID, MANAGED_RULESET_ID].sort() } }],
  ])('%s', (_name, rule, expected) => {
    expect(normalizeRule(rule)).toMatchObject(expected);
  });
});

describe('diff by ref', () => {
  const before = rulesByRef([office, managed, owasp]);
  test.each<[string, ManagedRuleWithRef[], string[]]>([
    ['nothing changed', [office, managed, owasp], []],
    ['an exception added first', [{ ref: 'partner', expression: 'ip.src eq 198.51.100.7', skip: { ruleset: 'current' } }, office, managed, owasp], ['rules.partner', 'order']],
    ['a category override changed', [office, managed, { ...owasp, execute: { ...owasp.execute!, categories: [{ category: 'paranoia-level-4', enabled: false }] } }], ['rules.owasp']],
    ['two rules reordered', [office, owasp, managed], ['order']],
    ['one removed', [office, owasp], ['rules.managed', 'order']],
    ['overrides listed in another order (the service keeps them)', [office, managed, { ...owasp, execute: { ...owasp.execute!, categories: [...owasp.execute!.categories!].reverse() } }], []],
  ])('%s', (_name, list, expected) => {
    expect(changedRules(before, rulesByRef(list))).toEqual(expected);
  });

  test('an unknown value (preview) is a change', () => {
    expect(changedRules(before, { order: PREVIEW_UNKNOWN, rules: PREVIEW_UNKNOWN })).toEqual(['rules']);
  });

  test('ids, versions and times the service assigns are ignored', () => {
    const saved = (version: string): SavedRuleset => ({
      id: 'e'.repeat(32),
      name: 'default',
      version,
      rules: [office, managed].map(({ ref, ...rule }, index) => ({
        ...managedRuleToWire(ref, normalizeRule(rule), String(index).repeat(32)),
        version,
        last_updated: `2026-01-0${version}T00:00:00.000Z`,
      })),
    });
    expect(holdsDeclared(saved('1'), rulesByRef([office, managed]) as never)).toBe(true);
    expect(holdsDeclared(saved('2'), rulesByRef([managed, office]) as never)).toBe(false);
  });
});

describe('the update body', () => {
  const current: EntrypointRuleset = {
    name: 'default',
    rules: [
      { ...managedRuleToWire('office', normalizeRule(office)), id: '1'.repeat(32) },
      { ...managedRuleToWire('managed', normalizeRule(managed)), id: '2'.repeat(32) },
    ],
  };
  test('unchanged rules keep their id, a new ref is sent without one, a removed one is left out', () => {
    const body = entrypointUpdate(current, rulesByRef([owasp, managed]) as never);
    expect(body.rules.map((rule) => [rule.ref, rule.id])).toEqual([
      ['owasp', ''],
      ['managed', '2'.repeat(32)],
    ]);
    expect(body.name).toBe('default');
  });
});

describe('create before the migration', () => {
  test.each([
    ['start', "has not migrated to the new WAF managed rules (migration_state start). Declare a WafMigration with mode: 'direct'"],
    ['validation', 'is in validation mode, where its WafMigration resource owns the new WAF configuration'],
  ])('%s is refused naming WafMigration and dependsOn', (state, message) => {
    const refusal = migrationRefusal(zoneId, state);
    expect(refusal).toContain(message);
    expect(refusal).toContain('dependsOn: [thatMigration]');
  });
  test.each(['pending', 'complete'])('%s is managed', (state) => expect(migrationRefusal(zoneId, state)).toBeUndefined());
});

describe('the refs the migration gives its rules', () => {
  test('execute rules by ruleset, exceptions numbered in order, a given ref kept', () => {
    const converted: EntrypointRuleset = {
      name: 'default',
      rules: [
        { id: '', action: 'skip', expression: 'ip.src eq 192.0.2.1', ref: '', action_parameters: { ruleset: 'current' } },
        { id: '', action: 'skip', expression: 'ip.src eq 192.0.2.2', ref: 'mine', action_parameters: { ruleset: 'current' } },
        { id: '', action: 'skip', expression: 'ip.src eq 192.0.2.3', ref: '', action_parameters: { ruleset: 'current' } },
        { id: '', action: 'execute', expression: 'true', ref: '', action_parameters: { id: MANAGED_RULESET_ID } },
        { id: '', action: 'execute', expression: 'true', ref: '', action_parameters: { id: OWASP_RULESET_ID } },
      ],
    };
    const refs = withMigrationRefs(converted).rules.map((rule) => rule.ref);
    expect(refs).toEqual(['exception-1', 'mine', 'exception-2', 'managed-ruleset', 'owasp-core-ruleset']);
    expect(rulesFromRuleset(withMigrationRefs(converted)).map((rule) => rule.ref)).toEqual(refs);
  });
});
