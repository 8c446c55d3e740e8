import { OWNER_KEY, ownerMarker } from '../../src/kinds/marker';
import { NAME_KEY, implementation } from '../../src/providers';
import { PREVIEW_KEY } from '../../src/unknown';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { CUSTOM_PHASE, RATELIMIT_PHASE } from '../../src/schemas';
import { checkedBy, useProviderFixture } from './support';

// Previews the service checks (docs/custom-rules.md#previews), against the emulator over loopback: in a preview, and
// only then, the write a CustomRule or RateLimitRule would make is sent with dry_run=true, so the service's refusal
// (its quota, an entitlement the local checker cannot know, a ref taken) fails that resource; an unchanged resource
// costs no call, and an up's check and diff cost none. A preview is a run of its own (a provider process of its own:
// fx.newRun), told by the key the resource classes add (PREVIEW_KEY), which check takes out of the inputs.

const fx = useProviderFixture();
const provider = implementation('CustomRule');
const limits = implementation('RateLimitRule');

const owner = (name: string) => ({ [NAME_KEY]: name, [OWNER_KEY]: ownerMarker({ ownerId: 'test-owner', project: 'p', stack: 's', parent: '', kind: 'CustomRule', name }) });
const rule = (zoneId: string, name: string, overrides: Record<string, unknown> = {}) => ({
  zoneId,
  action: 'block',
  expression: `(http.request.uri.path eq "/${name}")`,
  ref: name,
  ...owner(name),
  ...overrides,
});
const inPreview = (news: Record<string, unknown>) => ({ ...news, [PREVIEW_KEY]: true });

/** The calls since the last, as `METHOD path-below-the-zone`, a dry run marked. */
async function calls(): Promise<string[]> {
  const requests = (await fx.requestsSince()) as Array<{ method: string; path: string; query?: Record<string, unknown> }>;
  return requests.map((r) => `${r.method}${r.query?.dry_run === 'true' ? ' (dry run)' : ''} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]+/, '').replace(/[0-9a-f]{32}/g, ':id')}`);
}

/** Creates a rule as an up does: check, then create. */
async function created(news: Record<string, unknown>) {
  return provider.create(await checkedBy(provider, news));
}

/** The refs of the zone's custom rules, in the order they run. */
async function refs(zoneId: string): Promise<string[]> {
  return (await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).rules.map((r) => (r.ref ?? '').split(' ')[0]!);
}

beforeEach(async () => {
  resetOwnership();
  await fx.newRun();
});

test("an up's check and diff send nothing: the write is the service's check", async () => {
  const zoneId = await fx.freshZone();
  const made = await created(rule(zoneId, 'admin'));
  await fx.requestsSince();
  await checkedBy(provider, rule(zoneId, 'other'));
  expect(await provider.diff(made.id, made.outs, await checkedBy(provider, rule(zoneId, 'admin', { action: 'log' }), made.outs))).toMatchObject({ changes: true });
  expect(await calls()).toEqual([]);
});

test("a preview's create sends its exact POST with dry_run=true after one read of the zone's entry point, and the key stays out of the inputs", async () => {
  const zoneId = await fx.freshZone();
  await created(rule(zoneId, 'admin'));
  await fx.newRun();
  await fx.requestsSince();
  const checked = await checkedBy(provider, inPreview(rule(zoneId, 'login')));
  expect(checked).not.toHaveProperty(PREVIEW_KEY);
  await checkedBy(provider, inPreview(rule(zoneId, 'api')));
  // Each create's own POST: never a PUT of the entry point.
  expect(await calls()).toEqual([`GET /rulesets/phases/${CUSTOM_PHASE}/entrypoint`, 'POST (dry run) /rulesets/:id/rules', 'POST (dry run) /rulesets/:id/rules']);
  expect(await refs(zoneId)).toEqual(['admin']);
});

test('a zone without an entry point: the dry run is the create-only write that would make it', async () => {
  const zoneId = await fx.freshZone();
  await fx.requestsSince();
  await checkedBy(limits, inPreview({ ...rule(zoneId, 'login'), ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 } }));
  expect(await calls()).toEqual([`GET /rulesets/phases/${RATELIMIT_PHASE}/entrypoint`, 'POST (dry run) /rulesets']);
  await expect(fx.client.rulesets.getEntrypoint({ zoneId, phase: RATELIMIT_PHASE })).rejects.toThrow('has no http_ratelimit entry point');
});

test("in a zone without an entry point, the quota counts the preview's creates together: the one over it fails on its resource with the service's words", async () => {
  const zoneId = await fx.freshZone({ plan: 'free' });
  for (const name of ['a', 'b', 'c', 'd', 'e']) await checkedBy(provider, inPreview(rule(zoneId, name)));
  await expect(provider.check({}, inPreview(rule(zoneId, 'sixth')))).rejects.toThrow(
    `CustomRule 'sixth' in zone ${zoneId}: the service refuses this change (checked with dry_run, nothing was changed): POST /zones/${zoneId}/rulesets failed: HTTP 400 Bad Request: 1004 rules: the ${CUSTOM_PHASE} phase of zone ${zoneId} (free plan) allows 5 rules; this write would leave 6; nothing was saved`,
  );
  // A refused create is not counted: the next one is refused with the same count.
  await expect(provider.check({}, inPreview(rule(zoneId, 'seventh')))).rejects.toThrow('allows 5 rules; this write would leave 6; nothing was saved');
  await expect(fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).rejects.toThrow('has no http_request_firewall_custom entry point');
  // In a zone with an entry point, each create's POST is checked against the rules the zone holds.
  const full = await fx.freshZone({ plan: 'free' });
  for (const name of ['a', 'b', 'c', 'd', 'e']) await created(rule(full, name));
  await fx.newRun();
  await expect(provider.check({}, inPreview(rule(full, 'sixth')))).rejects.toThrow(`POST /zones/${full}/rulesets/`);
  expect(await refs(full)).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('an expression the local checker accepts and the zone is not entitled to fails the preview, and the up of an entitled zone passes', async () => {
  const bots = { expression: 'cf.bot_management.score lt 30' };
  const zoneId = await fx.freshZone({ plan: 'business' });
  await fx.newRun();
  await expect(provider.check({}, inPreview(rule(zoneId, 'bots', bots)))).rejects.toThrow(
    'rules.0.expression: cf.bot_management.score needs Bot Management, an add-on of the enterprise plan; this zone is on the business plan; nothing was saved',
  );
  const enterprise = await fx.freshZone({ plan: 'enterprise' });
  await checkedBy(provider, inPreview(rule(enterprise, 'bots', bots)));
  await fx.newRun();
  await created(rule(enterprise, 'bots', bots));
  expect(await refs(enterprise)).toEqual(['bots']);
});

test("a preview's diff of a change sends the exact PATCH with dry_run=true and fails on the service's refusal; an unchanged rule sends nothing", async () => {
  const zoneId = await fx.freshZone();
  const made = await created(rule(zoneId, 'admin'));
  await created(rule(zoneId, 'taken'));
  await fx.newRun();
  await fx.requestsSince();
  expect(await provider.diff(made.id, made.outs, await checkedBy(provider, inPreview(rule(zoneId, 'admin')), made.outs))).toMatchObject({ changes: false });
  expect(await calls()).toEqual([]);
  // The PATCH the up would send carries the ref with this rule's marker: a rule copied by hand holding "copied" with
  // admin's marker makes the service refuse it as a repeated ref, which the local check cannot know.
  const changed = await checkedBy(provider, inPreview(rule(zoneId, 'admin', { description: 'changed' })), made.outs);
  expect(await provider.diff(made.id, made.outs, changed)).toMatchObject({ changes: true, changed: ['description'] });
  expect(await calls()).toEqual(['PATCH (dry run) /rulesets/:id/rules/:id']);
  const rulesetId = String(made.outs.rulesetId);
  await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: `copied ${owner('admin')[OWNER_KEY]}` } });
  const copying = await checkedBy(provider, inPreview(rule(zoneId, 'admin', { ref: 'copied' })), made.outs);
  await expect(provider.diff(made.id, made.outs, copying)).rejects.toThrow(
    `CustomRule 'admin' ${made.id} in zone ${zoneId}: the service refuses this change (checked with dry_run, nothing was changed): PATCH /zones/${zoneId}/rulesets/${rulesetId}/rules/${made.id}`,
  );
  expect(await refs(zoneId)).toEqual(['admin', 'taken', 'copied']);
});

describe('where a rule lands', () => {
  let said: string[];
  beforeEach(() => {
    said = [];
    jest.spyOn(console, 'error').mockImplementation((line: unknown) => void said.push(String(line)));
  });
  afterEach(() => jest.restoreAllMocks());

  test('a create placed first names the rules of other owners it lands ahead of; one that lands last says nothing', async () => {
    const zoneId = await fx.freshZone();
    await created(rule(zoneId, 'mine'));
    const rulesetId = (await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).id;
    await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'by-hand' } });
    await fx.newRun();
    // This run's resources so far: 'mine' (its check comes first, as the program declares it).
    await checkedBy(provider, inPreview(rule(zoneId, 'mine')), { zoneId });
    await checkedBy(provider, inPreview(rule(zoneId, 'last')));
    expect(said).toEqual([]);
    await checkedBy(provider, inPreview(rule(zoneId, 'office', { position: { first: true } })));
    expect(said).toEqual([
      `zoneguard: CustomRule 'office' in zone ${zoneId}: the up creates it at 1 of 4 in the zone's ${CUSTOM_PHASE} phase (position {"first":true}), ahead of 1 rule of other owners, which then run after it: "by-hand" (unmarked)`,
    ]);
  });

  test("a move names the rules of other owners it passes over, each with what its marker says", async () => {
    const zoneId = await fx.freshZone();
    const made = await created(rule(zoneId, 'mine'));
    const rulesetId = String(made.outs.rulesetId);
    await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'by-hand' } });
    await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'theirs zg:0123456789' } });
    await fx.newRun();
    const moving = await checkedBy(provider, inPreview(rule(zoneId, 'mine', { position: { after: 'theirs' } })), made.outs);
    expect(await provider.diff(made.id, made.outs, moving)).toMatchObject({ changes: true, changed: ['position'] });
    expect(said).toEqual([
      `zoneguard: CustomRule 'mine' ${made.id} in zone ${zoneId}: the up moves it to 3 of 3 in the zone's ${CUSTOM_PHASE} phase (position {"after":"theirs"}), past 2 rules of other owners, whose order against it changes: "by-hand" (unmarked), "theirs" (marker zg:0123456789)`,
    ]);
  });
});
