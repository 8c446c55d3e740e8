import { bodyOf, defaultsOf, inputsOf, inputsOfOutputs, outputsOf, requestOf, wireFields, type KindDeclaration } from '../../src/kinds';
import { FilterCreateSchema } from '../../src/schemas/filters';
import { FirewallRuleCreateItemSchema, FirewallRuleUpdateSchema } from '../../src/schemas/firewall-rules';
import { PageGuardSettingsUpdateSchema } from '../../src/schemas/page-guard';
import { CspPolicyCreateSchema } from '../../src/schemas/csp-policy';
import { CspPolicyKind, FirewallFilterKind, FirewallRuleKind, FirewallRuleWithFilterKind, PageGuardSettingsKind, WafMigrationKind } from '../../src/kinds';
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
])('%s: the body of its example', (_label, declaration, schema, overrides) => {
  test('is what the request schema takes, field for field', () => {
    const inputs = kind(declaration).args.parse({ zoneId: ZONE, ...kind(declaration).example, ...overrides }) as Record<string, unknown>;
    const body = requestOf(schema, kind(declaration), inputs);
    expect(Object.keys(body).length).toBeGreaterThan(0);
    expect(schema.parse(body)).toEqual(body);
  });
});
