import { digestOfEvents, refreshedResources, renderPreviewReport, type EngineEvent } from '../../src/insights/preview-report';
import { SealMakingError, sealOfPreview } from '../../src/seal/make';
import { undoneChanges } from '../../src/seal/undone';

// A seal and the report's live changes from the events of a `preview --refresh` (the engine's shape, as
// test/e2e/sealed-preview.test.ts records them through the real engine): pure, no service.
const URN = 'urn:pulumi:ci::shop::';
const POLICY = `${URN}pulumi-nodejs:dynamic/zoneguard:CspPolicy::checkout`;
const RULE = `${URN}pulumi-nodejs:dynamic/zoneguard:CustomRule::admin`;
const OWNER = `${URN}pulumi-nodejs:dynamic/zoneguard:StackOwner::zoneguard-owner`;
const who = (name: string, marker: string) => ({ __zoneguardName: name, __zoneguardOwner: marker, __zoneguardOwnerId: '00ff00ff00ff00ff' });
const policy = { zoneId: 'z1', action: 'log', enabled: true, expression: 'true', value: "script-src 'self'", description: 'shop', ...who('checkout', 'zg:00000000aa') };

const refresh = (urn: string, old: Record<string, unknown>, now: Record<string, unknown>, id = 'p1'): EngineEvent => ({ resOutputsEvent: { metadata: { op: 'refresh', urn, old: { id, outputs: old }, new: { id, outputs: now } } } });
const events: EngineEvent[] = [
  { resourcePreEvent: { metadata: { op: 'refresh', urn: POLICY } } },
  refresh(OWNER, { ownerId: '00ff00ff00ff00ff' }, { ownerId: '00ff00ff00ff00ff' }, '00ff00ff00ff00ff'),
  // Disabled in the dashboard since the last up; the program changes its value.
  refresh(POLICY, { ...policy, policyId: 'p1' }, { ...policy, policyId: 'p1', enabled: false }),
  { resourcePreEvent: { metadata: { op: 'update', urn: POLICY, old: { id: 'p1', inputs: policy, outputs: { ...policy, enabled: false } }, new: { inputs: { ...policy, value: "script-src 'self' https://js.example" } } } } },
  { resourcePreEvent: { metadata: { op: 'create', urn: RULE, new: { inputs: { zoneId: 'z1', action: 'block', expression: 'true', ref: 'admin', ...who('admin', 'zg:00000000bb') } } } } },
  { summaryEvent: { resourceChanges: { update: 1, create: 1, same: 1 } } },
];
const landing = { kind: 'CustomRule', name: 'admin', owner: 'zg:00000000bb', zoneId: 'z1', landing: { phase: 'http_request_firewall_custom', before: null, after: null } };

test('the seal holds each change with its state and live fields, a create its landing, the stack and its owner id', () => {
  expect(sealOfPreview(digestOfEvents(events), [landing], '2026-11-27T00:00:00.000Z')).toEqual({
    zoneguardSeal: 1,
    project: 'shop',
    stack: 'ci',
    ownerId: '00ff00ff00ff00ff',
    madeAt: '2026-11-27T00:00:00.000Z',
    resources: [
      {
        kind: 'CspPolicy',
        name: 'checkout',
        owner: 'zg:00000000aa',
        op: 'update',
        zoneId: 'z1',
        id: 'p1',
        state: { action: 'log', enabled: true, expression: 'true', value: "script-src 'self'", description: 'shop' },
        live: { action: 'log', enabled: false, expression: 'true', value: "script-src 'self'", description: 'shop' },
        landing: null,
      },
      { kind: 'CustomRule', name: 'admin', owner: 'zg:00000000bb', op: 'create', zoneId: 'z1', id: null, state: null, live: null, landing: landing.landing },
    ],
  });
});

test('a preview without --refresh, or a failed one, is not sealed: one line saying why', () => {
  const unrefreshed = digestOfEvents(events.filter((event) => event.resOutputsEvent?.metadata.op !== 'refresh'));
  expect(() => sealOfPreview(unrefreshed, [], '')).toThrow(
    new SealMakingError('CspPolicy checkout: the preview did not read it from the service (run pulumi preview with --refresh, as ci.sh pr does): there is nothing to seal it with'),
  );
  const failed = { ...digestOfEvents(events), diagnostics: [{ severity: 'error', message: 'boom' }] };
  expect(() => sealOfPreview(failed, [], '')).toThrow('the preview failed: a failed preview is not sealed');
});

test("the report shows the live change the up undoes apart from the program's, and a refresh is no change of its table", () => {
  const digest = digestOfEvents(events);
  expect(undoneChanges(refreshedResources(digest))).toEqual([
    { kind: 'CspPolicy', name: 'checkout', zoneId: 'z1', fields: [{ field: 'enabled', sealed: true, now: false }], deleted: false },
  ]);
  const report = renderPreviewReport(digest);
  expect(report).toContain('| update | CspPolicy `checkout` | value |');
  expect(report).toContain('**Live changes since the last up that this up undoes** (made on the service, not by this change)\n\n- CspPolicy `checkout`: enabled `false` now, put back to `true`\n');
  expect(report).not.toContain('| refresh |');
});

test('a resource whose state keeps an object only to delete (a replacement stopped before its delete): that delete is an entry of its own, with its read', () => {
  const RULE_URN = `${URN}pulumi-nodejs:dynamic/zoneguard:FirewallRuleWithFilter::admin`;
  const rule = (expression: string, action: string) => ({ zoneId: 'z1', expression, action, paused: false, description: 'admin', ...who('admin', 'zg:00000000cc') });
  const [previous, current] = [rule('old', 'block'), rule('new', 'block')];
  const read = (id: string, old: Record<string, unknown>, now: Record<string, unknown>, pending: boolean): EngineEvent => ({
    resOutputsEvent: { metadata: { op: 'refresh', urn: RULE_URN, old: { id, outputs: old, ...(pending ? { delete: true } : {}) }, new: { id, outputs: now } } },
  });
  const step = (op: string, id: string, state: Record<string, unknown>): EngineEvent => ({
    resourcePreEvent: { metadata: { op, urn: RULE_URN, old: { id, inputs: state, outputs: state }, new: { inputs: previous } } },
  });
  const replaced: EngineEvent[] = [
    // The old rule was edited in the dashboard after its replacement's create; the program declares it again.
    read('r1', previous, { ...previous, action: 'managed_challenge' }, true),
    read('r2', current, current, false),
    step('create-replacement', 'r2', current),
    step('replace', 'r2', current),
    step('delete-replaced', 'r2', current),
    step('delete-replaced', 'r1', previous),
  ];
  const fields = (expression: string, action: string) => ({ expression, action, paused: false, description: 'admin' });
  const entry = { kind: 'FirewallRuleWithFilter', name: 'admin', owner: 'zg:00000000cc', zoneId: 'z1', landing: null };
  expect(sealOfPreview(digestOfEvents(replaced), [], '').resources).toEqual([
    { ...entry, op: 'replace', id: 'r2', state: fields('new', 'block'), live: fields('new', 'block') },
    { ...entry, op: 'delete', id: 'r1', state: fields('old', 'block'), live: fields('old', 'managed_challenge') },
  ]);
});
