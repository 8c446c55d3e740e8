import { fieldTableBlocks, renderPulumiProgram, type ZoneSnapshot } from '../../src/insights/export';
import { declarationOf, RESOURCE_KINDS, type ObjectType, type ResourceKind } from '../../src/kinds';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';

// Every kind of the registry is exported, and every object of a zone by exactly one kind, even where two kinds hold
// one object type (src/insights/export-kinds.ts, objectsOf in src/insights/zone-snapshot.ts). Pure: snapshots in,
// program text out; the export of the emulator's zones is test/insights/export.test.ts.
const ZONE = '0123456789abcdef0123456789abcdef';
const id = (n: number) => n.toString(16).padStart(32, 'a');

/** A zone holding at least one object of every kind: a filter shared by two rules, one no rule uses, one rule's own. */
const everything: ZoneSnapshot = {
  zoneId: ZONE,
  settings: { enabled: true },
  cspPolicies: [{ id: id(1), description: 'Login', action: 'log', expression: 'true', enabled: true, value: "script-src 'self'" }],
  firewallRules: [
    { id: id(2), paused: false, action: 'block', description: 'Own filter', filter: { id: id(3), expression: 'ip.src eq 192.0.2.1', paused: false } },
    { id: id(4), paused: false, action: 'block', filter: { id: id(5), expression: 'http.user_agent contains "sqlmap"', paused: false } },
    { id: id(6), paused: false, action: 'log', filter: { id: id(5), expression: 'http.user_agent contains "sqlmap"', paused: false } },
  ],
  filters: [
    { id: id(3), expression: 'ip.src eq 192.0.2.1', paused: false },
    { id: id(5), expression: 'http.user_agent contains "sqlmap"', paused: false },
    { id: id(7), expression: 'ip.src eq 198.51.100.1', paused: true },
  ],
  migrationState: 'complete',
  wafRules: { id: id(8), name: 'default', rules: [{ id: id(9), action: 'execute', expression: 'true', ref: 'managed', enabled: true, action_parameters: { id: MANAGED_RULESET_ID } }] },
  customRules: { id: id(10), name: 'default', rules: [{ id: id(11), action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'admin' }] },
  rateLimitRules: {
    id: id(12),
    name: 'default',
    rules: [{ id: id(13), action: 'block', expression: '(http.request.uri.path eq "/login")', ref: 'login', ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 10, mitigation_timeout: 600 } }],
  },
};

/** The objects of many per zone each kind should declare: the shared and unused filters, each rule once. */
const OWN: Partial<Record<ResourceKind, string[]>> = {
  CspPolicy: [id(1)],
  FirewallRuleWithFilter: [id(2)],
  FirewallFilter: [id(5), id(7)],
  FirewallRule: [id(4), id(6)],
  CustomRule: [id(11)],
  RateLimitRule: [id(13)],
};

/** The ids a program adopts, in order. */
const adopted = (text: string) => [...text.matchAll(/^ {2}adopt\w+: '([0-9a-f]{32})',$/gm)].map((match) => match[1]!);

test('the program of a zone holding every kind declares every kind of the registry', () => {
  const program = renderPulumiProgram(everything);
  expect(RESOURCE_KINDS.filter((kind) => !program.includes(`= new ${kind}(`))).toEqual([]);
});

test('the program adopts each object once, by the kind that holds it', () => {
  const program = renderPulumiProgram(everything);
  expect(adopted(program).sort()).toEqual(Object.values(OWN).flat().sort());
  for (const [kind, ids] of Object.entries(OWN)) {
    const blocks = program.split('\n\n').filter((text) => text.includes(`= new ${kind}(`));
    expect([kind, blocks.flatMap(adopted).sort()]).toEqual([kind, [...ids].sort()]);
  }
});

// Were a kind's entry in EXPORTS missing and the kind exported from its field table alone, what it declares is still
// its own share of its object type: no object twice.
describe.each(RESOURCE_KINDS.filter((kind) => OWN[kind]).map((kind) => [kind]))('%s from its field table alone', (kind) => {
  test('declares its own objects, none another kind of its type holds', () => {
    expect(fieldTableBlocks(kind, everything).flatMap((block) => adopted(block.text)).sort()).toEqual([...OWN[kind]!].sort());
  });
});

test('the kinds of one object type declare, from their field tables alone, each object of the type once', () => {
  const byType = new Map<ObjectType, string[]>();
  for (const kind of RESOURCE_KINDS) {
    const type = declarationOf(kind).identity.object;
    byType.set(type, [...(byType.get(type) ?? []), ...fieldTableBlocks(kind, everything).flatMap((block) => adopted(block.text))]);
  }
  const declaredTwice = [...byType.values()].flatMap((ids) => ids.filter((one, index) => ids.indexOf(one) !== index));
  expect(declaredTwice).toEqual([]);
  expect(byType.get('rulesetRule')?.sort()).toEqual([id(11), id(13)]);
  expect(byType.get('firewallRule')?.sort()).toEqual([id(2), id(4), id(6)]);
});
