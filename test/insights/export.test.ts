import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { exportZoneProgram } from '../../src/insights';
import { fieldTableBlocks, readZoneSnapshot, renderPulumiProgram, slug, standaloneFilterIds, tsLiteral, tsString, type ZoneSnapshot } from '../../src/insights/export';
import { readMigrationPlan } from '../../src/migration';
import { type FirewallRuleWire } from '../../src/schemas';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';
import { OWASP_RULESET_ID } from '../../src/schemas/service';
import { EMPTY_ZONE, useInsightEmulator } from './helpers';

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

describe('tsString', () => {
  test.each([
    ['plain', "'plain'"],
    ["script-src 'self'", `"script-src 'self'"`],
    ['http.host eq "a"', `'http.host eq "a"'`],
    [`both ' and "`, `'both \\' and "'`],
    ['back\\slash', "'back\\\\slash'"],
    ['line\nbreak\r\ttab', "'line\\nbreak\\r\\ttab'"],
    ['nul\u0000 and \u2028', "'nul\\u0000 and \\u2028'"],
    ['ünïcode ✓', "'ünïcode ✓'"],
    ['admin\u202Egnp.exe', "'admin\\u202egnp.exe'"],
    ['a\u200Bb\u200Dc\uFEFFd\u2066e\u2069', "'a\\u200bb\\u200dc\\ufeffd\\u2066e\\u2069'"],
    ['mark\u200E\u200F', "'mark\\u200e\\u200f'"],
  ])('%j → %s', (text, literal) => {
    expect(tsString(text)).toBe(literal);
    // What the literal evaluates to is the text itself.
    expect(new Function(`return ${literal};`)()).toBe(text);
    // No character that changes how the program reads is written raw.
    expect(literal).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/u);
  });
});

describe('tsLiteral', () => {
  test.each([
    ['a string', "it's", `"it's"`],
    ['numbers, booleans and null', [1, true, null], '[1, true, null]'],
    ['empty containers', { a: [], b: {} }, '{ a: [], b: {} }'],
    ['keys that are not identifiers are quoted', { ok: 1, 'paranoia-level': 2, '4814384a': 3 }, "{ ok: 1, 'paranoia-level': 2, '4814384a': 3 }"],
    ['undefined fields are left out', { a: 1, b: undefined }, '{ a: 1 }'],
    [
      'past 100 columns, one item a line, indented',
      { description: 'x'.repeat(60), execute: { rulesetId: 'y'.repeat(32) } },
      `{\n  description: '${'x'.repeat(60)}',\n  execute: { rulesetId: '${'y'.repeat(32)}' },\n}`,
    ],
  ])('%s', (_what, value, literal) => {
    expect(tsLiteral(value)).toBe(literal);
    // What the literal evaluates to is the value (undefined fields aside).
    expect(new Function(`return ${literal};`)()).toEqual(JSON.parse(JSON.stringify(value)));
  });
});

describe('slug', () => {
  test.each([
    ['Report scripts outside the approved list', 'report-scripts-outside-the-approved-list'],
    ['  Sanctioned countries (KP/IR) on /login!  ', 'sanctioned-countries-kp-ir-on-login'],
    ['Déjà vu', 'deja-vu'],
    ['', ''],
    ['!!!', ''],
    ['a'.repeat(60), 'a'.repeat(48)],
    ['one two three four five six seven eight nine ten eleven', 'one-two-three-four-five-six-seven-eight-nine-ten'],
  ])('%j → %j', (text, expected) => {
    expect(slug(text)).toBe(expected);
  });
});

const ZONE = '0123456789abcdef0123456789abcdef';
const snapshot: ZoneSnapshot = {
  zoneId: ZONE,
  settings: { enabled: true, use_vendor_reporting_endpoint: false, use_connection_url_path: true },
  cspPolicies: [
    { id: 'bbbbbbbb000000000000000000000002', description: 'Same name', action: 'log', expression: 'http.host eq "b.example"', enabled: true, value: "script-src 'self'" },
    { id: 'aaaaaaaa000000000000000000000001', description: 'Same name', action: 'allow', expression: 'http.host eq "a.example"', enabled: false, value: "script-src 'self' https://cdn.example" },
    { id: 'cccccccc000000000000000000000003', description: '', action: 'log', expression: 'true', enabled: true, value: 'script-src https:' },
  ],
  firewallRules: [
    {
      id: 'dddddddd000000000000000000000004',
      paused: false,
      action: 'bypass',
      priority: null,
      products: ['waf'],
      description: "Ops' \\ health",
      filter: { id: 'eeeeeeee000000000000000000000005', expression: '(http.request.uri.path eq "/health")', paused: false },
    },
    {
      id: '11111111000000000000000000000006',
      paused: true,
      action: 'block',
      priority: 7,
      ref: 'JIRA-1',
      filter: { id: '22222222000000000000000000000007', expression: 'ip.src in {192.0.2.0/24}' },
    },
  ],
  filters: [
    { id: 'eeeeeeee000000000000000000000005', expression: '(http.request.uri.path eq "/health")', paused: false },
    { id: '22222222000000000000000000000007', expression: 'ip.src in {192.0.2.0/24}', paused: false },
  ],
};

/** The two-call form: filter 3333… shared by two rules, filter 4444… used by none, next to the fixture's rules. */
const SHARED = '33333333000000000000000000000008';
const UNUSED = '44444444000000000000000000000009';
const twoCall: ZoneSnapshot = {
  ...snapshot,
  cspPolicies: [],
  firewallRules: [
    ...snapshot.firewallRules,
    { id: '55555555000000000000000000000010', paused: false, action: 'block', description: 'Scanners', filter: { id: SHARED, expression: 'http.user_agent contains "sqlmap"', paused: false } },
    { id: '66666666000000000000000000000011', paused: false, action: 'log', filter: { id: SHARED, expression: 'http.user_agent contains "sqlmap"', paused: false } },
  ],
  filters: [
    ...snapshot.filters,
    { id: SHARED, expression: 'http.user_agent contains "sqlmap"', paused: false, description: 'Scanner agents' },
    { id: UNUSED, expression: 'ip.src eq 198.51.100.1', paused: true, ref: 'SPARE' },
  ],
};

/** A zone that migrated: its entry point, as the service saves what WafMigration submitted (ids, versions). */
const migrated: ZoneSnapshot = {
  ...snapshot,
  cspPolicies: [],
  firewallRules: [],
  filters: [],
  wafRules: {
    id: 'ffffffff000000000000000000000012',
    name: 'default',
    version: '2',
    rules: [
      {
        id: 'aaaa0000000000000000000000000013',
        version: '1',
        action: 'skip',
        expression: 'ip.src in {192.0.2.0/24}',
        description: 'Migrated from firewall rule dddddddd000000000000000000000004',
        ref: 'exception-1',
        enabled: true,
        action_parameters: { ruleset: 'current' },
      },
      { id: 'bbbb0000000000000000000000000014', version: '1', action: 'execute', expression: 'true', description: 'Cloudflare Managed Ruleset', ref: 'managed-ruleset', enabled: true, action_parameters: { id: MANAGED_RULESET_ID } },
      {
        id: 'cccc0000000000000000000000000015',
        version: '1',
        action: 'execute',
        expression: 'true',
        description: 'Cloudflare OWASP Core Ruleset',
        ref: 'owasp-core-ruleset',
        enabled: true,
        action_parameters: {
          id: OWASP_RULESET_ID,
          overrides: { categories: [{ category: 'paranoia-level-2', enabled: false }], rules: [{ id: '6179ae15870a4bb7b2d480d4843b323c', action: 'log', score_threshold: 25 }] },
        },
      },
    ],
  },
};

describe('renderPulumiProgram', () => {
  test('a migrated zone: its entry point as a WafManagedRules with the refs and order it holds, without the ids', () => {
    const text = renderPulumiProgram(migrated);
    expect(text).toContain("import { PageGuardSettings, WafManagedRules } from 'pulumi-zoneguard';");
    expect(text.slice(text.indexOf('// The new WAF'))).toBe(`// The new WAF: the zone migrated, and its managed rules entry point holds these rules, in this order. Declared
// with the refs the zone holds, so the first \`pulumi up\` takes them over with one write (its owner marker); delete puts them back
// (docs/firewall-and-migration.md, "Then manage it").
export const wafManagedRules = new WafManagedRules('waf-managed-rules', {
  zoneId,
  rules: [
    {
      ref: 'exception-1',
      description: 'Migrated from firewall rule dddddddd000000000000000000000004',
      expression: 'ip.src in {192.0.2.0/24}',
      enabled: true,
      skip: { ruleset: 'current' },
    },
    {
      ref: 'managed-ruleset',
      description: 'Cloudflare Managed Ruleset',
      expression: 'true',
      enabled: true,
      execute: { rulesetId: '${MANAGED_RULESET_ID}' },
    },
    {
      ref: 'owasp-core-ruleset',
      description: 'Cloudflare OWASP Core Ruleset',
      expression: 'true',
      enabled: true,
      execute: {
        rulesetId: '${OWASP_RULESET_ID}',
        categories: [{ category: 'paranoia-level-2', enabled: false }],
        rules: [{ id: '6179ae15870a4bb7b2d480d4843b323c', action: 'log', scoreThreshold: 25 }],
      },
    },
  ],
});
`);
  });

  test('declares every object with its adoption input, sorted by id, names unique and stable', () => {
    expect(renderPulumiProgram(snapshot)).toBe(`// Page security of zone ${ZONE}, generated by \`zoneguard export\`.
// Every resource declares what the zone holds now and adopts the existing object (the settings, and each
// policy and rule by id), so the first \`pulumi up\` takes them over without creating anything. Review the
// declarations, then edit them like any other code: later runs update the zone to match.
import { CspPolicy, FirewallRuleWithFilter, PageGuardSettings } from 'pulumi-zoneguard';

const zoneId = '${ZONE}';

// The page security settings (one per zone).
export const pageGuard = new PageGuardSettings('page-guard', {
  zoneId,
  enabled: true,
  useVendorReportingEndpoint: false,
  useConnectionUrlPath: true,
});

// CSP policy aaaaaaaa000000000000000000000001.
export const cspSameNameAaaaaaaa = new CspPolicy('same-name-aaaaaaaa', {
  zoneId,
  adoptPolicyId: 'aaaaaaaa000000000000000000000001',
  description: 'Same name',
  action: 'allow',
  expression: 'http.host eq "a.example"',
  enabled: false,
  value: "script-src 'self' https://cdn.example",
});

// CSP policy bbbbbbbb000000000000000000000002.
export const cspSameNameBbbbbbbb = new CspPolicy('same-name-bbbbbbbb', {
  zoneId,
  adoptPolicyId: 'bbbbbbbb000000000000000000000002',
  description: 'Same name',
  action: 'log',
  expression: 'http.host eq "b.example"',
  enabled: true,
  value: "script-src 'self'",
});

// CSP policy cccccccc000000000000000000000003.
export const cspCspPolicyCccccccc = new CspPolicy('csp-policy-cccccccc', {
  zoneId,
  adoptPolicyId: 'cccccccc000000000000000000000003',
  description: '',
  action: 'log',
  expression: 'true',
  enabled: true,
  value: 'script-src https:',
});

// Firewall rule 11111111000000000000000000000006 with its filter 22222222000000000000000000000007.
export const ruleFirewallRule11111111 = new FirewallRuleWithFilter('firewall-rule-11111111', {
  zoneId,
  adoptRuleId: '11111111000000000000000000000006',
  expression: 'ip.src in {192.0.2.0/24}',
  action: 'block',
  paused: true,
  priority: 7,
  ref: 'JIRA-1',
});

// Firewall rule dddddddd000000000000000000000004 with its filter eeeeeeee000000000000000000000005.
export const ruleOpsHealth = new FirewallRuleWithFilter('ops-health', {
  zoneId,
  adoptRuleId: 'dddddddd000000000000000000000004',
  description: "Ops' \\\\ health",
  expression: '(http.request.uri.path eq "/health")',
  action: 'bypass',
  paused: false,
  products: ['waf'],
});
`);
  });

  describe.each([
    ['"A1" and "A 1" (names a1 and a-1, one camel-case variable)', ['A1', 'A 1'], ['cspA1Aaaaaaaa', 'cspA1Bbbbbbbb']],
    ['"a-b" and "A B" (one name)', ['a-b', 'A B'], ['cspABAaaaaaaa', 'cspABBbbbbbbb']],
    ['"Web 2" and "Web2" and "web 2.0"', ['Web 2', 'Web2', 'web 2.0'], ['cspWeb2Aaaaaaaa', 'cspWeb2Bbbbbbbb', 'cspWeb20']],
    ['distinct descriptions keep their plain names', ['Login', 'Checkout'], ['cspLogin', 'cspCheckout']],
  ])('descriptions %s', (_name, descriptions, variables) => {
    test('get distinct variables, so the program compiles', () => {
      const ids = ['aaaaaaaa', 'bbbbbbbb', 'cccccccc'].map((prefix) => `${prefix}${'0'.repeat(24)}`);
      const policies = descriptions.map((description, i) => ({ ...snapshot.cspPolicies[0]!, id: ids[i]!, description }));
      const text = renderPulumiProgram({ ...snapshot, cspPolicies: policies, firewallRules: [], filters: [] });
      expect([...text.matchAll(/^export const (\w+) = new CspPolicy/gm)].map((m) => m[1])).toEqual(variables);
    });
  });

  test.each([
    ['one rule on it', [{ filter: { id: SHARED } }], []],
    ['two rules on it', [{ filter: { id: SHARED } }, { filter: { id: SHARED } }], [SHARED]],
    ['no rule on it', [], [SHARED]],
  ])('a filter with %s is standalone: %j', (_what, rules, expected) => {
    const filters = [{ id: SHARED, expression: 'true', paused: false }];
    expect([...standaloneFilterIds(rules as unknown as FirewallRuleWire[], filters)]).toEqual(expected);
  });

  test('a filter shared by several rules or by none is a FirewallFilter its rules reference; one rule\'s filter stays with it', () => {
    const text = renderPulumiProgram(twoCall);
    expect(text).toContain("import { FirewallFilter, FirewallRule, FirewallRuleWithFilter, PageGuardSettings } from 'pulumi-zoneguard';");
    expect(text).toContain(
      `// Filter ${SHARED}, shared by 2 rules.\nexport const filterScannerAgents = new FirewallFilter('scanner-agents', {\n  zoneId,\n  adoptFilterId: '${SHARED}',\n` +
        `  description: 'Scanner agents',\n  expression: 'http.user_agent contains "sqlmap"',\n  paused: false,\n});`,
    );
    expect(text).toContain(
      `// Filter ${UNUSED}, used by no rule.\nexport const filterFilter44444444 = new FirewallFilter('filter-44444444', {\n  zoneId,\n  adoptFilterId: '${UNUSED}',\n` +
        `  expression: 'ip.src eq 198.51.100.1',\n  paused: true,\n  ref: 'SPARE',\n});`,
    );
    expect(text).toContain(
      `export const ruleScanners = new FirewallRule('scanners', {\n  zoneId,\n  adoptRuleId: '55555555000000000000000000000010',\n  description: 'Scanners',\n` +
        `  filterId: filterScannerAgents.id,\n  action: 'block',\n  paused: false,\n});`,
    );
    expect(text).toContain("export const ruleFirewallRule66666666 = new FirewallRule('firewall-rule-66666666', {\n  zoneId,\n  adoptRuleId: '66666666000000000000000000000011',\n  filterId: filterScannerAgents.id,");
    // The fixture's rules, one per filter, keep the single-call form.
    expect(text.match(/new FirewallRuleWithFilter\(/g)).toHaveLength(2);
    expect(text.match(/new FirewallRule\(/g)).toHaveLength(2);
  });

  test.each([
    ['validation', 'validation'],
    ['pending', 'direct'],
    ['complete', 'direct'],
  ])('a zone whose migration is %p declares a WafMigration of mode %p, before its managed rules', (migrationState, mode) => {
    const text = renderPulumiProgram({ ...migrated, migrationState });
    const declared = `export const wafMigration = new WafMigration('waf-migration', {\n  zoneId,\n  mode: '${mode}',\n});`;
    expect(text).toContain(declared);
    expect(text).toContain('import { PageGuardSettings, WafManagedRules, WafMigration } from ');
    expect(text.indexOf(declared)).toBeLessThan(text.indexOf('new WafManagedRules('));
  });

  test.each([['start'], [undefined]])('a zone whose migration is %p declares no WafMigration', (migrationState) => {
    expect(renderPulumiProgram({ ...snapshot, ...(migrationState ? { migrationState } : {}) })).not.toContain('WafMigration');
  });

  test('the same zone in another order renders the same text', () => {
    const reversed = { ...snapshot, cspPolicies: [...snapshot.cspPolicies].reverse(), firewallRules: [...snapshot.firewallRules].reverse() };
    expect(renderPulumiProgram(reversed)).toBe(renderPulumiProgram(snapshot));
  });

  test('a zone with settings only imports only PageGuardSettings; optional flags absent stay undeclared', () => {
    const text = renderPulumiProgram({ zoneId: ZONE, settings: { enabled: false }, cspPolicies: [], firewallRules: [], filters: [] }, { packageName: '@acme/zoneguard' });
    expect(text).toContain("import { PageGuardSettings } from '@acme/zoneguard';");
    expect(text).toContain("export const pageGuard = new PageGuardSettings('page-guard', {\n  zoneId,\n  enabled: false,\n});\n");
    expect(text).not.toContain('CspPolicy');
    expect(text).not.toContain('FirewallRuleWithFilter');
  });
});

describe('objects with an owner marker (docs/ownership.md)', () => {
  const marked: ZoneSnapshot = {
    ...twoCall,
    cspPolicies: [{ ...snapshot.cspPolicies[0]!, description: 'Same name zg:0123456789' }],
    firewallRules: twoCall.firewallRules.map((rule) => (rule.id === '11111111000000000000000000000006' ? { ...rule, ref: 'JIRA-1 zg:abcdefabcd' } : rule)),
  };
  const program = renderPulumiProgram(marked);

  test('the program declares the texts without the marker, named as without it', () => {
    const unmarked = renderPulumiProgram({ ...twoCall, cspPolicies: [snapshot.cspPolicies[0]!] });
    expect(program.split('\n').filter((line) => !NOTE.includes(line)).join('\n')).toBe(unmarked);
    expect(program.split('\n').filter((line) => line.includes('zg:') && !line.startsWith('//'))).toEqual([]);
  });

  test('each marked object says that adopting it needs takeOver, and no other does', () => {
    expect(program.split('\n').filter((line) => line.includes('takeOver'))).toEqual(NOTE);
  });
});

const NOTE = [
  '// Marked zg:0123456789 by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).',
  '// Marked zg:abcdefabcd by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).',
];

// A kind exported from its declaration alone, in the registry's words (fieldTableBlocks without its EXPORTS entry),
// tried on kinds whose entry words them otherwise.
describe('fieldTableBlocks', () => {
  test('a kind of many objects: each object by id, with its adopt input and the inputs its field table reads from the wire', () => {
    const filters = [...twoCall.filters].filter((f) => f.id === UNUSED || f.id === SHARED);
    expect(fieldTableBlocks('FirewallFilter', { ...twoCall, filters }).map((b) => b.text)).toEqual([
      [
        `// Filter ${SHARED}.`,
        "export const firewallFilterScannerAgents = new FirewallFilter('scanner-agents', {",
        '  zoneId,',
        `  adoptFilterId: '${SHARED}',`,
        `  expression: 'http.user_agent contains "sqlmap"',`,
        "  description: 'Scanner agents',",
        '  paused: false,',
        '});',
      ].join('\n'),
      [
        `// Filter ${UNUSED}.`,
        "export const firewallFilterFirewallFilter44444444 = new FirewallFilter('firewall-filter-44444444', {",
        '  zoneId,',
        `  adoptFilterId: '${UNUSED}',`,
        "  expression: 'ip.src eq 198.51.100.1',",
        '  paused: true,',
        "  ref: 'SPARE',",
        '});',
      ].join('\n'),
    ]);
  });

  test('a kind of one object per zone: one declaration, named after the kind, absent fields left out', () => {
    const settings = { ...snapshot, settings: { enabled: true, use_vendor_reporting_endpoint: false } };
    expect(fieldTableBlocks('PageGuardSettings', settings).map((b) => b.text)).toEqual([
      [
        `// The page security settings of zone ${ZONE}.`,
        "export const pageGuardSettings = new PageGuardSettings('page-guard-settings', {",
        '  zoneId,',
        '  enabled: true,',
        '  useVendorReportingEndpoint: false,',
        '});',
      ].join('\n'),
    ]);
  });

  test('nothing for a kind whose object the zone does not hold', () => {
    expect(fieldTableBlocks('WafMigration', { ...snapshot, migrationState: 'start' })).toEqual([]);
    expect(fieldTableBlocks('CspPolicy', { ...snapshot, cspPolicies: [] })).toEqual([]);
  });
});

describe('exportZoneProgram (emulator)', () => {
  const h = useInsightEmulator();

  /** What WafMigration of mode direct does: the converted configuration submitted as final. */
  async function migrateDirectly(zoneId: string): Promise<void> {
    const plan = await readMigrationPlan(h.client, zoneId);
    await h.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
  }

  test('reads the demo enterprise zone with GETs only and declares everything it holds', async () => {
    const zoneId = h.demoZone('enterprise');
    await h.emulator.admin.clearRequests();
    const { program, snapshot: read } = await exportZoneProgram({ client: h.client, zoneId });
    const requests = await h.emulator.admin.requests();
    expect(new Set(requests.map((r) => r.method))).toEqual(new Set(['GET']));
    expect(requests.map((r) => r.path).sort()).toEqual(
      [
        `/zones/${zoneId}/filters`,
        `/zones/${zoneId}/firewall/rules`,
        `/zones/${zoneId}/page_guard`,
        `/zones/${zoneId}/page_guard/policies`,
        `/zones/${zoneId}/waf_migration/status`,
        `/zones/${zoneId}/rulesets/phases/http_request_firewall_custom/entrypoint`,
        `/zones/${zoneId}/rulesets/phases/http_ratelimit/entrypoint`,
      ]
        .map((p) => `/client/v4${p}`)
        .sort(),
    );
    expect(read.cspPolicies).toHaveLength(2);
    expect(read.firewallRules).toHaveLength(4);
    for (const policy of read.cspPolicies) expect(program).toContain(`adoptPolicyId: '${policy.id}'`);
    for (const rule of read.firewallRules) expect(program).toContain(`adoptRuleId: '${rule.id}'`);
    expect(program).toContain("export const cspReportScriptsOutsideTheApprovedList = new CspPolicy('report-scripts-outside-the-approved-list', {");
    expect(program).toContain("  value: \"script-src 'self' https://js.stripe.com https://www.googletagmanager.com\",");
    expect(program).toContain("  products: ['waf', 'rateLimit'],");
    expect(program).toContain('  priority: 10,');
    expect(program).toBe(renderPulumiProgram(await readZoneSnapshot({ client: h.client, zoneId })));
  });

  test('a zone migrated directly: the entry point is read too, and declared as the migration left it', async () => {
    const zoneId = h.demoZone('pro');
    await migrateDirectly(zoneId);
    await h.emulator.admin.clearRequests();
    const { program, snapshot: read } = await exportZoneProgram({ client: h.client, zoneId });
    const requests = await h.emulator.admin.requests();
    expect(new Set(requests.map((r) => r.method))).toEqual(new Set(['GET']));
    expect(requests.map((r) => r.path)).toEqual(
      expect.arrayContaining([`/client/v4/zones/${zoneId}/waf_migration/status`, `/client/v4/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`]),
    );
    expect(read.wafRules?.rules.map((rule) => rule.ref)).toEqual(['managed-ruleset', 'owasp-core-ruleset']);
    expect(program).toContain("export const wafManagedRules = new WafManagedRules('waf-managed-rules', {");
    expect(program).toContain("      ref: 'owasp-core-ruleset',");
  });

  /** Custom and rate limiting rules on a zone, as a stack and a person at the dashboard make them. */
  async function addPhaseRules(zoneId: string): Promise<void> {
    const custom = await h.client.rulesets.updateEntrypoint({
      zoneId,
      phase: 'http_request_firewall_custom',
      ruleset: { name: 'default', rules: [{ action: 'skip', expression: 'ip.src in {192.0.2.0/24}', ref: 'office zg:0123456789', action_parameters: { ruleset: 'current' } }] },
    });
    await h.client.rulesets.createRule({
      zoneId,
      rulesetId: custom.id,
      rule: { action: 'block', expression: '(http.request.uri.path eq "/admin")', description: 'Admin block', enabled: false, action_parameters: { response: { status_code: 403, content: 'no' } } },
    });
    await h.client.rulesets.updateEntrypoint({
      zoneId,
      phase: 'http_ratelimit',
      ruleset: {
        name: 'default',
        rules: [{ action: 'block', expression: '(http.request.uri.path eq "/login")', ref: 'login', ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 10, mitigation_timeout: 600 } }],
      },
    });
  }

  test('custom and rate limiting rules: one resource each, in the order they run, adopting the rule, the ref without its marker', async () => {
    const zoneId = h.demoZone('business');
    await addPhaseRules(zoneId);
    const { program, snapshot: read } = await exportZoneProgram({ client: h.client, zoneId });
    const [office, admin] = read.customRules!.rules;
    const [login] = read.rateLimitRules!.rules;
    expect(program).toContain(
      [
        `// Custom rule ${office!.id}, number 1 of its phase.`,
        '// Marked zg:0123456789 by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).',
        "export const customRuleOffice = new CustomRule('office', {",
      ].join('\n'),
    );
    expect(program.indexOf(`adoptRuleId: '${office!.id}'`)).toBeLessThan(program.indexOf(`adoptRuleId: '${admin!.id}'`));
    expect(program).toContain("  ref: 'office',\n  skip: { ruleset: 'current' },\n});");
    expect(program).toContain("export const customRuleAdminBlock = new CustomRule('admin-block', {");
    expect(program).toContain("  description: 'Admin block',\n  enabled: false,\n  response: { statusCode: 403, content: 'no' },\n});");
    expect(program).toContain(`// Rate limiting rule ${login!.id}, number 1 of its phase.\nexport const rateLimitRuleLogin = new RateLimitRule('login', {`);
    expect(program).toContain('    requestsPerPeriod: 10,\n    mitigationTimeout: 600,\n');
  });

  test('a zone in validation is left to its WafMigration: no WafManagedRules', async () => {
    const zoneId = h.demoZone('enterprise');
    const plan = await readMigrationPlan(h.client, zoneId);
    await h.client.wafMigration.updateEntrypoint({ zoneId, mode: 'validation', ruleset: plan.ruleset! });
    const { program, snapshot: read } = await exportZoneProgram({ client: h.client, zoneId });
    expect(read.wafRules).toBeUndefined();
    expect(program).not.toContain('WafManagedRules');
  });

  test('a zone with nothing but its settings', async () => {
    const { program } = await exportZoneProgram({ client: h.client, zoneId: EMPTY_ZONE });
    expect(program).toContain("import { PageGuardSettings } from 'pulumi-zoneguard';");
    expect(program).toContain('  enabled: false,\n  useVendorReportingEndpoint: true,\n  useConnectionUrlPath: false,\n');
  });

  describe('the program type-checks against the package', () => {
    // tsc over @pulumi/pulumi's types takes a while on a small machine.
    jest.setTimeout(120_000);
    let dir: string;
    beforeAll(() => {
      fs.mkdirSync(path.join(root, '.zoneguard'), { recursive: true });
      dir = fs.mkdtempSync(path.join(root, '.zoneguard', 'export-typecheck-'));
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** Type-checks files with the repo's compiler settings, 'pulumi-zoneguard' being the package root in src/. */
    async function typecheck(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: path.join(root, 'tsconfig.json'),
          compilerOptions: { noEmit: true, rootDir: root, types: ['node'], paths: { 'pulumi-zoneguard': [path.join(root, 'src/index.ts')] } },
          files: Object.keys(files).map((name) => path.join(dir, name)),
          include: [],
        }),
      );
      try {
        const { stdout } = await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')]);
        return { ok: true, output: stdout };
      } catch (error) {
        return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
      }
    }

    test('the exported programs of the demo zones and the fixture compile; a wrong one does not', async () => {
      const files: Record<string, string> = {
        'fixture.ts': renderPulumiProgram(snapshot),
        'two-call.ts': renderPulumiProgram(twoCall),
        'migrated.ts': renderPulumiProgram(migrated),
      };
      // The Pro zone migrated, so its program declares a WafManagedRules too; the Business zone has custom and rate
      // limiting rules.
      await migrateDirectly(h.demoZone('pro'));
      await addPhaseRules(h.demoZone('business'));
      for (const plan of ['free', 'pro', 'business', 'enterprise']) {
        files[`${plan}.ts`] = (await exportZoneProgram({ client: h.client, zoneId: h.demoZone(plan) })).program;
      }
      const good = await typecheck(files);
      expect(good.output).toBe('');
      expect(good.ok).toBe(true);
      // The check is real: a wrong input type and an unknown argument are reported.
      // (In two resources: tsc reports one error per object literal.)
      const bad = await typecheck({ 'bad.ts': renderPulumiProgram(snapshot).replace("action: 'block'", "action: 'deny'").replace('enabled: false', 'enable: false') });
      expect(bad.ok).toBe(false);
      expect(bad.output).toMatch(/bad\.ts\(\d+,\d+\): error TS2322: Type '"deny"' is not assignable/);
      expect(bad.output).toMatch(/bad\.ts\(\d+,\d+\): error TS2561: Object literal may only specify known properties, but 'enable' does not exist/);
    });
  });
});
