import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import {
  code,
  cspSourceChanges,
  failureLines,
  pendingPlans,
  renderPreviewReport,
  resourceChanges,
  resourceOfUrn,
  rulesByRef,
  type PreviewDigest,
} from '../../src/insights/preview-report';

// The report's decisions over digests shaped as `pulumi preview --json` prints them (the CLI's PreviewDigest); the
// report of a real preview is checked through the engine in test/e2e/examples.test.ts.
const URN = 'urn:pulumi:ci::ci-preview::pulumi-nodejs:dynamic/zoneguard:';
const ZONE = 'a9b67e024b090640650f12971210b69b';

describe.each([
  ['a resource', `${URN}CspPolicy::shop`, { stack: 'ci', kind: 'CspPolicy', name: 'shop' }],
  ['the stack', 'urn:pulumi:ci::ci-preview::pulumi:pulumi:Stack::ci-preview-ci', { stack: 'ci', kind: 'Stack', name: 'ci-preview-ci' }],
  ['a child', `urn:pulumi:dev::p::my:Component$pulumi-nodejs:dynamic/zoneguard:FirewallRule::a::b`, { stack: 'dev', kind: 'FirewallRule', name: 'a::b' }],
])('resourceOfUrn: %s', (_label, urn, expected) => {
  test('kind and name', () => expect(resourceOfUrn(urn)).toEqual(expected));
});

describe('cspSourceChanges', () => {
  test.each([
    ['a source added', "script-src 'self'", "script-src 'self' https://a.example", [{ directive: 'script-src', gained: ['https://a.example'], lost: [] }]],
    ['one swapped', "script-src 'self' https://a.example", "script-src 'self' https://b.example", [{ directive: 'script-src', gained: ['https://b.example'], lost: ['https://a.example'] }]],
    ['a new policy', undefined, "script-src 'self'; img-src https://i.example", [
      { directive: 'img-src', gained: ['https://i.example'], lost: [] },
      { directive: 'script-src', gained: ["'self'"], lost: [] },
    ]],
    ['a deleted policy', "script-src 'self'", undefined, [{ directive: 'script-src', gained: [], lost: ["'self'"] }]],
    ['the same sources in another order', "script-src a b", 'script-src  b a;', []],
  ])('%s', (_label, before, after, expected) => {
    expect(cspSourceChanges(before, after)).toEqual(expected);
  });
});

test('rulesByRef: added, changed and removed by ref', () => {
  const before = [{ ref: 'a', action: 'log' }, { ref: 'b' }, { ref: 'c' }];
  const after = [{ ref: 'a', action: 'block' }, { ref: 'c' }, { ref: 'd' }];
  expect(rulesByRef(before, after)).toEqual({ added: ['d'], changed: ['a'], removed: ['b'] });
});

test('code: backticks and table pipes survive', () => {
  expect([code('a'), code('a`b'), code('x | y')]).toEqual(['`a`', '`` a`b ``', '`x \\| y`']);
});

const digest: PreviewDigest = {
  steps: [
    { op: 'same', urn: 'urn:pulumi:ci::ci-preview::pulumi:pulumi:Stack::ci-preview-ci', newState: { outputs: { plan: { compatible: true, migrationState: 'start', problems: [], conversion: { changed: ['x becomes y'], dropped: ['z'] } } } } },
    {
      op: 'update',
      urn: `${URN}CspPolicy::shop`,
      oldState: { inputs: { zoneId: ZONE, value: "script-src 'self' https://a.example", __provider: 'code' } },
      newState: { inputs: { zoneId: ZONE, value: "script-src 'self' https://b.example", __provider: 'code' } },
      diffReasons: ['value'],
      detailedDiff: { value: { kind: 'update' }, __provider: { kind: 'update' } },
    },
    { op: 'create-replacement', urn: `${URN}FirewallRuleWithFilter::scanners`, oldState: { inputs: { zoneId: ZONE, action: 'block', expression: 'a' } }, newState: { inputs: { zoneId: ZONE, action: 'block', expression: 'b' } }, replaceReasons: ['expression'] },
    { op: 'replace', urn: `${URN}FirewallRuleWithFilter::scanners`, oldState: { inputs: { zoneId: ZONE, action: 'block', expression: 'a' } }, newState: { inputs: { zoneId: ZONE, action: 'block', expression: 'b' } }, replaceReasons: ['expression'] },
    { op: 'delete-replaced', urn: `${URN}FirewallRuleWithFilter::scanners`, oldState: { inputs: { zoneId: ZONE, action: 'block', expression: 'a' } } },
    { op: 'create', urn: `${URN}FirewallRule::admin`, newState: { inputs: { zoneId: 'other', action: 'log', filterId: PREVIEW_UNKNOWN } } },
  ],
  changeSummary: { same: 2, update: 1, replace: 1, create: 1 },
};

test("resourceChanges: one change per resource, a replacement's steps as one, the providers' own fields left out", () => {
  expect(resourceChanges(digest).map(({ kind, name, zoneId, verb, fields }) => ({ kind, name, zoneId, verb, fields }))).toEqual([
    { kind: 'CspPolicy', name: 'shop', zoneId: ZONE, verb: 'update', fields: ['value'] },
    { kind: 'FirewallRuleWithFilter', name: 'scanners', zoneId: ZONE, verb: 'replace', fields: ['expression'] },
    { kind: 'FirewallRule', name: 'admin', zoneId: 'other', verb: 'create', fields: [] },
  ]);
});

test('pendingPlans: a plan output while the migration is pending; none once complete', () => {
  expect(pendingPlans(digest)).toEqual([{ output: 'plan', plan: expect.objectContaining({ changed: ['x becomes y'], dropped: ['z'] }) }]);
  const complete = { steps: [{ op: 'same', urn: 'urn:pulumi:ci::p::pulumi:pulumi:Stack::p-ci', newState: { outputs: { plan: { compatible: true, migrationState: 'complete' } } } }] };
  expect(pendingPlans(complete)).toEqual([]);
});

test('failureLines: each error in one line with its resource; warnings left out', () => {
  expect(
    failureLines({
      diagnostics: [
        { urn: `${URN}CspPolicy::shop`, severity: 'error', message: '\u001b[31mzoneguard: value: must not be empty\u001b[0m\nmore detail\n' },
        { urn: `${URN}CspPolicy::shop`, severity: 'warning', message: 'allow weakens the page' },
        { severity: 'error', message: 'preview failed' },
      ],
    }),
  ).toEqual(['CspPolicy `shop`: zoneguard: value: must not be empty', 'preview failed']);
});

test('renderPreviewReport: the whole report', () => {
  expect(renderPreviewReport(digest)).toBe(
    [
      '### Pulumi preview of stack `ci`: 1 to create, 1 to update, 1 to replace',
      '',
      '**Zone `a9b67e024b090640650f12971210b69b`**',
      '',
      '| Change | Resource | Fields |',
      '|---|---|---|',
      '| update | CspPolicy `shop` | value |',
      '| replace | FirewallRuleWithFilter `scanners` | expression |',
      '',
      "- CSP policy `shop`, script-src: gains `https://b.example`; loses `https://a.example`",
      '- FirewallRuleWithFilter `scanners` replaced: expression `a` → `b`',
      '',
      '**Zone `other`**',
      '',
      '| Change | Resource | Fields |',
      '|---|---|---|',
      '| create | FirewallRule `admin` |  |',
      '',
      '- FirewallRule `admin` added: action `log`',
      '',
      '**WAF migration plan** (stack output `plan`): compatible, state `start`',
      '',
      '- changes: x becomes y',
      '- dropped: z',
      '',
    ].join('\n'),
  );
});

test('renderPreviewReport: a replacement of a resource whose state keeps its older object only to delete shows the change from the object it holds', () => {
  const urn = `${URN}FirewallRuleWithFilter::scanners`;
  const state = (expression: string) => ({ inputs: { zoneId: ZONE, action: 'block', expression } });
  const replacing: PreviewDigest = {
    steps: [
      { op: 'create-replacement', urn, oldState: state('new'), newState: state('old'), replaceReasons: ['expression'] },
      { op: 'replace', urn, oldState: state('new'), newState: state('old'), replaceReasons: ['expression'] },
      { op: 'delete-replaced', urn, oldState: state('new') },
      // The older object, kept to delete since a replacement stopped before its delete: deleted last.
      { op: 'delete-replaced', urn, oldState: state('old') },
    ],
    changeSummary: { replace: 1 },
  };
  expect(renderPreviewReport(replacing)).toContain('- FirewallRuleWithFilter `scanners` replaced: expression `new` → `old`\n');
});

test('renderPreviewReport: nothing to change', () => {
  expect(renderPreviewReport({ steps: [], changeSummary: { same: 3 } }, { stack: 'ci' })).toBe('### Pulumi preview of stack `ci`: no changes\n\n`pulumi up` would change nothing.\n');
});

test('renderPreviewReport: a firewall rules upgrade plan output gives its verdict, its problems and each rule with a difference', () => {
  const rule = (legacyRuleId: string, position: number, customRuleId: string | null, differences: string[]) => ({ legacyRuleId, position, customRuleId, holder: 'nobody', differences, action: 'block' });
  const stack = {
    op: 'same',
    urn: 'urn:pulumi:ci::ci-preview::pulumi:pulumi:Stack::ci-preview-ci',
    newState: {
      outputs: {
        firewallPlan: {
          zoneId: ZONE,
          legacyApi: 'readable',
          converted: false,
          equivalence: { verdict: '2 of 40 requests tried differ' },
          problems: ['firewall rule r3: the rulesets grammar refuses its conversion (expression: …)'],
          rules: [rule('r1', 1, null, []), rule('r2', 2, null, ['its filter is paused, so it did not run; converted, it is enabled and runs'])],
        },
      },
    },
  };
  expect(renderPreviewReport({ steps: [stack], changeSummary: { same: 1 } }, { stack: 'ci' })).toBe(
    [
      '### Pulumi preview of stack `ci`: no changes',
      '',
      '`pulumi up` would change nothing.',
      '',
      `**Firewall rules upgrade plan** (stack output \`firewallPlan\`) of zone \`${ZONE}\`: conversion to come; 2 of 40 requests tried differ`,
      '',
      '- problem: firewall rule r3: the rulesets grammar refuses its conversion (expression: …)',
      '- rule `r2` → custom rule #2 (to come), held by nobody: its filter is paused, so it did not run; converted, it is enabled and runs',
      '',
    ].join('\n'),
  );
});

test("renderPreviewReport: a new stack's owner id is shown apart from the zones, saying it makes no call", () => {
  const steps = [{ op: 'create', urn: `${URN}StackOwner::zoneguard-owner`, newState: { inputs: {} } }];
  expect(renderPreviewReport({ steps, changeSummary: { create: 1 } }, { stack: 'ci' })).toBe(
    [
      '### Pulumi preview of stack `ci`: 1 to create',
      '',
      '**Not on a zone**',
      '',
      '| Change | Resource | Fields |',
      '|---|---|---|',
      '| create | StackOwner `zoneguard-owner` |  |',
      '',
      "- the stack's owner id `zoneguard-owner`: drawn by the up, its owner markers are made from it; no call to the service",
      '',
    ].join('\n'),
  );
});

test('renderPreviewReport: a plan made with the stack export says how the move goes in one line', () => {
  const note = 'the up creates these 2 custom rule(s) first, in this order, then deletes the firewall rules they replace: the two overlap, both run meanwhile';
  const stack = {
    op: 'same',
    urn: 'urn:pulumi:ci::ci-preview::pulumi:pulumi:Stack::ci-preview-ci',
    newState: { outputs: { firewallPlan: { zoneId: ZONE, legacyApi: 'readable', converted: false, equivalence: { verdict: 'equivalent on every request tried (9 requests)' }, problems: [], rules: [], move: { note, rules: [{}, {}] } } } },
  };
  expect(renderPreviewReport({ steps: [stack], changeSummary: { same: 1 } }, { stack: 'ci' })).toContain(
    `conversion to come; equivalent on every request tried (9 requests)\n\n- the move of 2 rule(s) of this stack: ${note}\n`,
  );
});

describe('detail lines of the custom and rate limiting rules', () => {
  const ratelimit = { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 };
  const steps = [
    { op: 'create', urn: `${URN}CustomRule::admin`, newState: { inputs: { zoneId: ZONE, action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'admin' } } },
    {
      op: 'update',
      urn: `${URN}CustomRule::office`,
      oldState: { inputs: { zoneId: ZONE, action: 'skip', expression: 'ip.src in {192.0.2.0/24}', enabled: true } },
      newState: { inputs: { zoneId: ZONE, action: 'skip', expression: 'ip.src in {192.0.2.0/24}', enabled: false } },
      diffReasons: ['enabled'],
    },
    { op: 'create', urn: `${URN}RateLimitRule::login`, newState: { inputs: { zoneId: ZONE, action: 'block', expression: '(http.request.uri.path eq "/login")', ratelimit } } },
    { op: 'delete', urn: `${URN}RateLimitRule::api`, oldState: { inputs: { zoneId: ZONE, action: 'log', expression: 'true', ratelimit } } },
  ];

  test('added, changed and removed, as a firewall rule is; a rate limiting rule with its rate', () => {
    expect(renderPreviewReport({ steps, changeSummary: { create: 2, update: 1, delete: 1 } }, { stack: 'ci' }).split('\n').filter((line) => line.startsWith('- '))).toEqual([
      '- CustomRule `admin` added: action `block`, expression `(http.request.uri.path eq "/admin")`',
      '- CustomRule `office` changed: enabled `true` → `false`',
      '- RateLimitRule `login` added: action `block`, expression `(http.request.uri.path eq "/login")`, ratelimit `{"characteristics":["cf.colo.id","ip.src"],"period":60,"requestsPerPeriod":10,"mitigationTimeout":600}`',
      '- RateLimitRule `api` removed (was action `log`, expression `true`, ratelimit `{"characteristics":["cf.colo.id","ip.src"],"period":60,"requestsPerPeriod":10,"mitigationTimeout":600}`)',
    ]);
  });

  test('a resource of another package, or one whose type is named like a key of every object, has no detail line', () => {
    const others = [
      { op: 'create', urn: `urn:pulumi:ci::p::aws:s3/bucket:Bucket::b`, newState: { inputs: { zoneId: ZONE } } },
      { op: 'create', urn: `urn:pulumi:ci::p::my:x:toString::t`, newState: { inputs: { zoneId: ZONE } } },
    ];
    expect(renderPreviewReport({ steps: others, changeSummary: { create: 2 } }, { stack: 'ci' }).split('\n').filter((line) => line.startsWith('- '))).toEqual([]);
  });
});
