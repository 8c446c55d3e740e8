import { PHASE_RULE_WIRE_FIELDS, bodyOf, omittedDefaultsOf, phaseRuleFromWire, phaseRuleToWire, defaultsOf, inputsOf, inputsOfOutputs, outputsOf, requestOf, wireFields, type KindDeclaration, type RuleOnWire } from '../../src/kinds';
import { FilterCreateSchema, FilterSchema } from '../../src/schemas/filters';
import { FirewallRuleCreateItemSchema, FirewallRuleSchema, FirewallRuleUpdateSchema } from '../../src/schemas/firewall-rules';
import { PageGuardSettingsUpdateSchema } from '../../src/schemas/page-guard';
import { CspPolicyCreateSchema } from '../../src/schemas/csp-policy';
import { RuleCreateSchema } from '../../src/schemas/rulesets';
import { CspPolicyKind, CustomRuleKind, FirewallFilterKind, FirewallRuleKind, FirewallRuleWithFilterKind, PageGuardSettingsKind, RateLimitRuleKind, WafMigrationKind } from '../../src/kinds';
import { NO_ADJUSTMENTS } from '../../src/migration/adjustments';
import { DEFAULT_WAIT } from '../../src/kinds/waf-migration';

// The wire of a kind derived from its field table (src/kinds/wire.ts): the bodies the providers send and the outputs
// they record, as the service's objects hold them. Pure: declarations and objects in, objects out.
const ZONE = '0123456789abcdef0123456789abcdef';
const FILTER = 'b0e7337e95bc424b303e1bd1243c6b44';
const RULE = 'c0e7337e95bc424b303e1bd1243c6b45';

const kind = (declaration: unknown) => declaration as KindDeclaration;

describe('bodyOf: the inputs at their wire names', () => {
  test.each([
    [
      'a filter: every field as declared',
      FirewallFilterKind,
      { zoneId: ZONE, expression: 'true', description: '', paused: false, ref: 'r', adoptFilterId: FILTER, takeOver: true },
      { expression: 'true', description: '', paused: false, ref: 'r' },
    ],
    [
      'a rule on a filter by id: the filter nested, products left out without bypass',
      FirewallRuleKind,
      { zoneId: ZONE, filterId: FILTER, action: 'block', paused: true, priority: null, description: 'd', ref: '', products: ['waf'] },
      { filter: { id: FILTER }, action: 'block', paused: true, priority: null, description: 'd', ref: '' },
    ],
    [
      'a rule with its filter: the expression nested, products with bypass',
      FirewallRuleWithFilterKind,
      { zoneId: ZONE, expression: 'true', action: 'bypass', paused: false, priority: 3, description: '', ref: '', products: ['waf', 'rateLimit'] },
      { filter: { expression: 'true' }, action: 'bypass', paused: false, priority: 3, description: '', ref: '', products: ['waf', 'rateLimit'] },
    ],
    ['settings: only the flags declared, in the service names', PageGuardSettingsKind, { zoneId: ZONE, enabled: false, useConnectionUrlPath: true }, { enabled: false, use_connection_url_path: true }],
  ])('%s', (_label, declaration, inputs, body) => {
    expect(bodyOf(kind(declaration), inputs)).toEqual(body);
  });

  test('only the inputs asked for', () => {
    expect(bodyOf(kind(CspPolicyKind), { action: 'log', expression: 'true', value: 'v', enabled: true, description: 'd' }, ['value', 'enabled'])).toEqual({ value: 'v', enabled: true });
  });

  test("a body's products are a copy: a change to the body leaves the inputs as declared", () => {
    const products = ['waf'];
    const body = bodyOf(kind(FirewallRuleKind), { filterId: FILTER, action: 'bypass', products });
    (body.products as string[]).push('bic');
    expect(products).toEqual(['waf']);
  });
});

describe('inputsOf and outputsOf: what an answer holds, in the inputs names', () => {
  test.each([
    [
      'a filter without description and ref: their defaults',
      FirewallFilterKind,
      { id: FILTER, expression: 'true', paused: true },
      FILTER,
      { zoneId: ZONE, expression: 'true', description: '', paused: true, ref: '', filterId: FILTER, adoptFilterId: FILTER },
    ],
    [
      'a rule on a filter: its filter id, no priority as null, an empty products list as none',
      FirewallRuleKind,
      { id: RULE, action: 'block', paused: false, priority: null, products: [], filter: { id: FILTER, expression: 'true', paused: false } },
      undefined,
      { zoneId: ZONE, filterId: FILTER, action: 'block', paused: false, priority: null, description: '', ref: '', ruleId: RULE },
    ],
    [
      "a rule with its filter: the filter's expression, and its id as the owned object's",
      FirewallRuleWithFilterKind,
      { id: RULE, action: 'bypass', paused: false, priority: 2, description: 'd', ref: 'x', products: ['waf'], filter: { id: FILTER, expression: 'true', paused: false } },
      undefined,
      { zoneId: ZONE, expression: 'true', action: 'bypass', paused: false, priority: 2, description: 'd', ref: 'x', products: ['waf'], ruleId: RULE, filterId: FILTER },
    ],
  ])('%s', (_label, declaration, object, adopted, outputs) => {
    expect(outputsOf(kind(declaration), ZONE, object, adopted)).toEqual(outputs);
  });

  test("settings: only the flags the service sent, no default filled in (a flag is managed only when declared)", () => {
    expect(inputsOf(kind(PageGuardSettingsKind), { enabled: true, use_vendor_reporting_endpoint: false, updated_at: 'now' })).toEqual({ enabled: true, useVendorReportingEndpoint: false });
  });

  test('the inputs among the outputs: all but the ids the service assigned, the adopt input kept', () => {
    const rule = { id: RULE, action: 'log', paused: false, filter: { id: FILTER, expression: 'true', paused: false } };
    expect(inputsOfOutputs(FirewallRuleWithFilterKind, outputsOf(FirewallRuleWithFilterKind, ZONE, rule, RULE))).toEqual({
      zoneId: ZONE,
      expression: 'true',
      action: 'log',
      paused: false,
      priority: null,
      description: '',
      ref: '',
      adoptRuleId: RULE,
    });
  });

  test('an answer read back is the body sent, for every wire field of a firewall rule', () => {
    const inputs = { filterId: FILTER, action: 'bypass', paused: true, priority: 5, description: 'd', ref: 'r', products: ['waf'] };
    expect(inputsOf(kind(FirewallRuleKind), { id: RULE, ...bodyOf(kind(FirewallRuleKind), inputs) })).toEqual(inputs);
  });
});

describe('defaultsOf: what the args fill in for an input left out', () => {
  test.each([
    ['a firewall rule', FirewallRuleKind, { paused: false, priority: null, description: '', ref: '' }],
    ['a CSP policy', CspPolicyKind, { description: '', enabled: true }],
    ['the WAF migration', WafMigrationKind, { adjustments: NO_ADJUSTMENTS, wait: DEFAULT_WAIT }],
    ['the settings', PageGuardSettingsKind, {}],
  ])('%s', (_label, declaration, defaults) => {
    expect(defaultsOf(kind(declaration))).toEqual(defaults);
  });
});

// The phase rules' wire (src/kinds/phase-rule-wire.ts) is their field tables': a field added to a table reaches the
// wire, and fails here until the declared rule (RuleOnWire, whose every key this literal must name) has it too.
test("a phase rule's wire fields are the declared rule's, every one", () => {
  const every: Required<RuleOnWire> = {
    action: 'block',
    expression: 'true',
    description: '',
    enabled: true,
    ref: '',
    response: { statusCode: 403, content: '' },
    skip: {},
    ratelimit: { characteristics: [], period: 60, requestsPerPeriod: 1, mitigationTimeout: 0 },
  };
  expect([...PHASE_RULE_WIRE_FIELDS].sort()).toEqual(Object.keys(every).sort());
});

describe("a phase rule's wire, by its kinds' field tables", () => {
  test.each([
    [
      'a block: its answer, an empty content type and a missing status as the declared defaults; a ref of its id as none',
      { id: RULE, ref: RULE, action: 'block', expression: 'true', enabled: false, action_parameters: { response: { content: 'no', content_type: '' } } },
      { action: 'block', expression: 'true', description: '', enabled: false, ref: '', response: { statusCode: 0, content: 'no' } },
    ],
    [
      'a rate limit: an empty counting expression as none, missing numbers as 0, parameters of another action as none',
      { id: RULE, ref: 'r', action: 'log', expression: 'true', action_parameters: { response: { content: 'x' } }, ratelimit: { characteristics: ['ip.src'], period: 10, counting_expression: '' } },
      { action: 'log', expression: 'true', description: '', enabled: true, ref: 'r', ratelimit: { characteristics: ['ip.src'], period: 10, requestsPerPeriod: 0, mitigationTimeout: 0 } },
    ],
    ['a skip without parameters: an empty skip', { id: RULE, action: 'skip', expression: 'true' }, { action: 'skip', expression: 'true', description: '', enabled: true, ref: '', skip: {} }],
  ])('read: %s', (_label, rule, declared) => {
    expect(phaseRuleFromWire(rule)).toEqual(declared);
  });

  test.each([
    ['no parameters: an empty action_parameters, to clear a former one', { action: 'log', expression: 'true', description: '', enabled: true, ref: '' }, { action_parameters: {} }],
    [
      'a skip that also declares a response: what it skips only',
      { action: 'skip', expression: 'true', skip: { ruleset: 'current' as const }, response: { statusCode: 403, content: '' } },
      { action_parameters: { ruleset: 'current' } },
    ],
    ['a skip declared on a block: the answer only', { action: 'block', expression: 'true', skip: { products: ['waf'] }, response: { statusCode: 403, content: '' } }, { action_parameters: { response: { status_code: 403, content: '' } } }],
    ['an empty counting expression: none', { action: 'block', expression: 'true', ratelimit: { characteristics: ['ip.src'], period: 10, requestsPerPeriod: 5, mitigationTimeout: 0, countingExpression: '' } }, { ratelimit: { characteristics: ['ip.src'], period: 10, requests_per_period: 5, mitigation_timeout: 0 } }],
  ])('write: %s', (_label, rule, wire) => {
    const body = phaseRuleToWire(rule) as Record<string, unknown>;
    expect(Object.fromEntries(Object.keys(wire).map((key) => [key, body[key]]))).toEqual(wire);
    expect(RuleCreateSchema.parse(body)).toEqual(body);
  });
});

// What a diff compares a value absent from a state as (kit/firewall.ts normalizeFieldOf): the defaults of the fields
// the service's answer may leave out; `paused`, which every answer holds, has none.
describe('omittedDefaultsOf: the defaults of what an answer may leave out', () => {
  test.each([
    ['a firewall rule', FirewallRuleKind, FirewallRuleSchema, { priority: null, description: '', ref: '' }],
    ['a firewall rule with its filter', FirewallRuleWithFilterKind, FirewallRuleSchema, { priority: null, description: '', ref: '' }],
    ['a filter', FirewallFilterKind, FilterSchema, { description: '', ref: '' }],
  ])('%s', (_label, declaration, answer, defaults) => {
    expect(omittedDefaultsOf(kind(declaration), answer)).toEqual(defaults);
  });
});

test("wireFields: a kind's own fields on the wire, not its zone, adoption or state", () => {
  expect(wireFields(kind(WafMigrationKind)).map((field) => field.input)).toEqual(['mode']);
  expect(wireFields(kind(FirewallRuleKind)).map((field) => field.input)).toEqual(['filterId', 'action', 'paused', 'priority', 'description', 'ref', 'products']);
});

// The bodies of every kind whose requests the field table builds, from its example as check makes it: what the
// service's request schema takes, each field where the schema has it (a field the schema does not know is stripped,
// so the parse would differ from the body).
describe.each([
  ['FirewallFilter', FirewallFilterKind, FilterCreateSchema, {}],
  ['FirewallRule', FirewallRuleKind, FirewallRuleCreateItemSchema, {}],
  ['FirewallRule (update, bypass)', FirewallRuleKind, FirewallRuleUpdateSchema, { action: 'bypass', products: ['waf'] }],
  ['FirewallRuleWithFilter', FirewallRuleWithFilterKind, FirewallRuleCreateItemSchema, { action: 'bypass', products: ['waf'], priority: 4 }],
  ['PageGuardSettings', PageGuardSettingsKind, PageGuardSettingsUpdateSchema, { useVendorReportingEndpoint: false }],
  ['CspPolicy', CspPolicyKind, CspPolicyCreateSchema, {}],
  ['CustomRule', CustomRuleKind, RuleCreateSchema, {}],
  ['CustomRule (a block with its answer)', CustomRuleKind, RuleCreateSchema, { response: { statusCode: 429, content: 'no', contentType: 'text/plain' } }],
  ['CustomRule (a skip)', CustomRuleKind, RuleCreateSchema, { action: 'skip', skip: { products: ['waf'], phases: ['http_ratelimit'] } }],
  ['RateLimitRule', RateLimitRuleKind, RuleCreateSchema, {}],
])('%s: the body of its example', (_label, declaration, schema, overrides) => {
  test('is what the request schema takes, field for field', () => {
    const inputs = kind(declaration).args.parse({ zoneId: ZONE, ...kind(declaration).example, ...overrides }) as Record<string, unknown>;
    const body = requestOf(schema, kind(declaration), inputs);
    expect(Object.keys(body).length).toBeGreaterThan(0);
    expect(schema.parse(body)).toEqual(body);
  });
});
