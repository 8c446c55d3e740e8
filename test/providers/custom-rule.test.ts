import { CUSTOM_PHASE } from '../../src/schemas';
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import { customRule } from '../../src/providers/custom-rule';
import { MARKER_KEY, OWNER_KEY, ownerMarker } from '../../src/kinds/marker';
import { NAME_KEY, implementation } from '../../src/providers';
import { PREVIEW_KEY } from '../../src/unknown';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { checkedBy, useProviderFixture } from './support';

// CustomRule against the emulator over loopback: one rule per resource, written with the per-rule
// endpoints only, other owners' rules left as they are, the declared place kept, and the calls each step costs.

const fx = useProviderFixture();

const rule = (zoneId: string, overrides: Record<string, unknown> = {}) => ({
  zoneId,
  action: 'block',
  expression: '(http.request.uri.path eq "/admin")',
  description: 'admin',
  ref: 'admin',
  ...overrides,
});

/** Creates a CustomRule through check and create. */
async function createCustom(news: Record<string, unknown>) {
  const inputs = await checkedBy(customRule, news);
  return customRule.create(inputs);
}

/** The refs of the zone's custom rules, in the order they run. */
async function refs(zoneId: string): Promise<string[]> {
  const ruleset = await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE });
  return ruleset.rules.map((r) => r.ref ?? '');
}

describe('check', () => {
  test.each([
    ['action', { action: 'allow' }, 'CustomRule.action: must be one of block, challenge, js_challenge, managed_challenge, log, skip'],
    ['skip', { action: 'skip' }, 'CustomRule.skip: required with action skip: what the rule skips, for example { ruleset: "current" } or { products: ["waf"] }'],
    ['response', { action: 'log', response: { statusCode: 403, content: 'no' } }, 'CustomRule.response: allowed only with action block (action is log); remove response'],
    ['response.statusCode', { response: { statusCode: 503, content: 'no' } }, 'CustomRule.response.statusCode: must be a whole number from 400 to 499'],
    ['skip.products.0', { action: 'skip', skip: { products: ['firewall'] } }, 'CustomRule.skip.products.0: "firewall" is not one of bic, hot, rateLimit, securityLevel, uaBlock, waf, zoneLockdown'],
    [
      'expression',
      { expression: 'http.response.code eq 403' },
      "CustomRule.expression: line 1, column 1: http.response.code is a response field; a request phase's expression uses request fields (a rate limiting rule may count responses in its ratelimit.countingExpression)",
    ],
    [
      'position',
      { action: 'skip', skip: { ruleset: 'current' }, position: { last: true } },
      "CustomRule.position: the rule skips the rest of this phase's rules, but runs last, so it would skip nothing; place it before the rules it is an exception to (first: true, or before: a rule)",
    ],
    ['position', { position: { index: 1 } }, 'CustomRule.position: must be one of { before: rule }, { after: rule }, { first: true }, { last: true }'],
  ])('a bad %s fails with one line naming the field, before any call', async (property, bad, reason) => {
    const zoneId = fx.zone('business');
    await fx.requestsSince();
    const result = await customRule.check({}, rule(zoneId, bad));
    expect(result.failures).toEqual([{ property, reason }]);
    expect(await fx.requestsSince()).toEqual([]);
  });

  test('a skip of the rest of the phase placed first passes; unknown values wait for up', async () => {
    const zoneId = fx.zone('business');
    await checkedBy(customRule, rule(zoneId, { action: 'skip', skip: { ruleset: 'current' }, position: { first: true } }));
    const inputs = await checkedBy(customRule, rule(zoneId, { expression: PREVIEW_UNKNOWN }));
    expect(inputs.expression).toBe(PREVIEW_UNKNOWN);
  });
});

describe('lifecycle against the emulator', () => {
  test('the first rule creates the entry point with the create-only write, the next ones are one POST each, and the state is the live rule', async () => {
    const zoneId = await fx.freshZone();
    await fx.apiCalls();
    const first = await createCustom(rule(zoneId));
    expect(await fx.apiCalls()).toEqual([`GET /rulesets/phases/${CUSTOM_PHASE}/entrypoint`, 'POST /rulesets']);
    const second = await createCustom(rule(zoneId, { ref: 'bots', action: 'managed_challenge', expression: 'cf.client.bot' }));
    expect(await fx.apiCalls()).toEqual([`POST /rulesets/${first.outs.rulesetId}/rules`]);
    expect(second.outs).toEqual({ ...rule(zoneId, { ref: 'bots', action: 'managed_challenge', expression: 'cf.client.bot' }), enabled: true, ruleId: second.id, rulesetId: first.outs.rulesetId });
    expect(await refs(zoneId)).toEqual(['admin', 'bots']);
  });

  test('a declared place is where the POST puts it; a rule added by hand is never changed', async () => {
    const zoneId = await fx.freshZone();
    const admin = await createCustom(rule(zoneId));
    const ruleset = await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE });
    const byHand = await fx.client.rulesets.createRule({ zoneId, rulesetId: ruleset.id, rule: { action: 'log', expression: 'true', ref: 'by-hand' } });
    const handRule = byHand.rules.find((r) => r.ref === 'by-hand')!;
    await createCustom(rule(zoneId, { ref: 'skip-office', action: 'skip', skip: { ruleset: 'current' }, expression: 'ip.src in {192.0.2.0/24}', position: { first: true } }));
    await createCustom(rule(zoneId, { ref: 'after-admin', position: { after: admin.id } }));
    await createCustom(rule(zoneId, { ref: 'before-hand', position: { before: 'by-hand' } }));
    expect(await refs(zoneId)).toEqual(['skip-office', 'admin', 'after-admin', 'before-hand', 'by-hand']);
    await customRule.delete(admin.id, admin.outs);
    const live = await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE });
    expect(live.rules.find((r) => r.ref === 'by-hand')).toEqual(handRule);
    expect(live.rules.map((r) => r.ref)).toEqual(['skip-office', 'after-admin', 'before-hand', 'by-hand']);
  });

  test('a place naming by ref two rules of different owners is refused, naming both; by id it is taken', async () => {
    const zoneId = await fx.freshZone();
    const first = await createCustom(rule(zoneId, { ref: 'admin zg:0123456789' }));
    const rulesetId = String(first.outs.rulesetId);
    const saved = await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'admin zg:abcdefabcd' } });
    const second = saved.rules.at(-1)!.id!;
    await fx.newRun();
    const inputs = await checkedBy(customRule, rule(zoneId, { ref: 'api', position: { after: 'admin' } }));
    await expect(customRule.create(inputs)).rejects.toThrow(
      `position names "admin", the ref of 2 rules of the zone's ${CUSTOM_PHASE} phase, so it cannot say which: ${first.id} (ref "admin zg:0123456789", marker zg:0123456789: another owner's), ${second} (ref "admin zg:abcdefabcd", marker zg:abcdefabcd: another owner's); name the one meant by its id`,
    );
    await createCustom(rule(zoneId, { ref: 'api', position: { after: second } }));
    expect(await refs(zoneId)).toEqual(['admin zg:0123456789', 'admin zg:abcdefabcd', 'api']);
  });

  test('a place naming no rule fails on the resource, naming the value', async () => {
    const zoneId = await fx.freshZone();
    await createCustom(rule(zoneId));
    await expect(createCustom(rule(zoneId, { ref: 'lost', position: { after: 'nowhere' } }))).rejects.toThrow(
      `CustomRule in zone ${zoneId}: position names "nowhere", which is neither the id nor the ref of a rule of the zone's http_request_firewall_custom phase; name an existing rule (another resource's ruleId, or a ref) or remove position`,
    );
  });

  test('update is one PATCH of the rule; drift of a field and of the place is read, and up puts both back', async () => {
    const zoneId = await fx.freshZone();
    const other = await createCustom(rule(zoneId, { ref: 'other' }));
    const declared = rule(zoneId, { position: { before: 'other' } });
    const made = await createCustom(declared);
    expect(await refs(zoneId)).toEqual(['admin', 'other']);
    await fx.apiCalls();
    const changed = await checkedBy(customRule, { ...declared, action: 'js_challenge' });
    const { outs } = await customRule.update(made.id, made.outs, changed);
    expect(await fx.apiCalls()).toEqual([`PATCH /rulesets/${made.outs.rulesetId}/rules/${made.id}`]);
    expect(outs).toMatchObject({ action: 'js_challenge', position: { before: 'other' } });

    // By hand: the rule is disabled and moved after the other one.
    await fx.client.rulesets.updateRule({ zoneId, rulesetId: String(made.outs.rulesetId), ruleId: made.id, rule: { enabled: false }, position: { after: other.id } });
    const read = await customRule.read(made.id, outs);
    expect(read.inputs).toMatchObject({ enabled: false, position: { after: 'other' } });
    const diff = await customRule.diff(made.id, read.props!, changed);
    expect(diff).toMatchObject({ changes: true, changed: ['enabled', 'position'], replaces: [] });
    await customRule.update(made.id, read.props!, changed);
    expect(await refs(zoneId)).toEqual(['admin', 'other']);
    const after = await customRule.read(made.id, outs);
    expect(await customRule.diff(made.id, after.props!, changed)).toMatchObject({ changes: false });
  });

  test('an entry point another writer made after this run found none: the create-only write is refused, the rule is POSTed to it, and its rules stay', async () => {
    const zoneId = await fx.freshZone();
    // This run reads the zone's entry point and finds none (the failed create, naming a rule that is not there).
    await expect(createCustom(rule(zoneId, { ref: 'first', position: { after: 'nowhere' } }))).rejects.toThrow('position names "nowhere"');
    // Meanwhile another writer makes the entry point.
    await fx.client.rulesets.createEntrypoint({ zoneId, phase: CUSTOM_PHASE, ruleset: { name: 'default', rules: [{ action: 'log', expression: 'true', ref: 'theirs' }] } });
    await fx.requestsSince();
    const made = await createCustom(rule(zoneId, { position: { first: true } }));
    const requests = (await fx.requestsSince()) as Array<{ method: string; path: string; status?: number }>;
    expect(requests.map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]+/, '').replace(/[0-9a-f]{32}/g, ':id')}`)).toEqual([
      'POST /rulesets',
      `GET /rulesets/phases/${CUSTOM_PHASE}/entrypoint`,
      'POST /rulesets/:id/rules',
    ]);
    expect(await refs(zoneId)).toEqual(['admin', 'theirs']);
    expect(made.outs).toMatchObject({ ref: 'admin', position: { first: true } });
  });

  test('a rule deleted by hand reads as gone; delete of a gone rule is done', async () => {
    const zoneId = await fx.freshZone();
    const made = await createCustom(rule(zoneId));
    await fx.client.rulesets.deleteRule({ zoneId, rulesetId: String(made.outs.rulesetId), ruleId: made.id });
    expect(await customRule.read(made.id, made.outs)).toEqual({ id: '' });
    await expect(customRule.delete(made.id, made.outs)).resolves.toBeUndefined();
  });

  test('adoption takes a rule made by hand over, writing only what differs', async () => {
    const zoneId = await fx.freshZone();
    await createCustom(rule(zoneId, { ref: 'first' }));
    const ruleset = await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE });
    const saved = await fx.client.rulesets.createRule({ zoneId, rulesetId: ruleset.id, rule: { action: 'log', expression: 'true', ref: 'hand', description: '' } });
    const id = saved.rules.find((r) => r.ref === 'hand')!.id!;
    await fx.apiCalls();
    const adopted = await createCustom({ zoneId, action: 'log', expression: 'true', ref: 'hand', adoptRuleId: id });
    expect(adopted.id).toBe(id);
    expect(await fx.apiCalls()).toEqual([`GET /rulesets/phases/${CUSTOM_PHASE}/entrypoint`]);
  });
});

describe('coalesced refresh', () => {
  test('a refresh of 100 custom rules in one zone reads its entry point once', async () => {
    const zoneId = await fx.freshZone({ plan: 'enterprise' });
    const made: Array<{ id: string; outs?: Record<string, unknown> }> = [];
    for (let i = 0; i < 100; i += 1) made.push(await createCustom(rule(zoneId, { ref: `r${i}`, description: `rule ${i}` })));
    await fx.apiCalls();
    // The engine sends a refresh's reads a few at a time; here all at once, the largest batch.
    const reads = await Promise.all(made.map((m) => customRule.read(m.id, m.outs)));
    expect(reads.every((r, i) => r.id === made[i]!.id)).toBe(true);
    expect(await fx.apiCalls()).toEqual([`GET /rulesets/phases/${CUSTOM_PHASE}/entrypoint`]);
  });
});

describe('the owner marker in the ref (src/providers/kit/marker.ts)', () => {
  const marked = implementation('CustomRule');
  const owner = (name: string) => ({ [NAME_KEY]: name, [OWNER_KEY]: ownerMarker({ ownerId: 'test-owner', project: 'p', stack: 's', parent: '', kind: 'CustomRule', name }) });

  async function createMarked(name: string, news: Record<string, unknown>) {
    const inputs = await checkedBy(marked, { ...news, ...owner(name) });
    return marked.create(inputs);
  }

  test('the ref on the wire ends in the marker; the outputs show it without; a place names a marked rule by its own ref', async () => {
    resetOwnership();
    const zoneId = await fx.freshZone();
    const admin = await createMarked('admin', rule(zoneId));
    const mine = owner('admin')[OWNER_KEY];
    expect(await refs(zoneId)).toEqual([`admin ${mine}`]);
    expect(admin.outs).toMatchObject({ ref: 'admin', [MARKER_KEY]: mine });
    await createMarked('first', rule(zoneId, { ref: 'first', position: { before: 'admin' } }));
    expect((await refs(zoneId)).map((ref) => ref.split(' ')[0])).toEqual(['first', 'admin']);
    const read = await marked.read(admin.id, admin.outs!);
    expect(read.inputs).toMatchObject({ ref: 'admin' });
    expect(await marked.diff(admin.id, read.props!, await checkedBy(marked, { ...rule(zoneId), ...owner('admin') }))).toMatchObject({ changes: false });
  });

  test("the diff's dry run sends the ref with the marker, as the update will; another owner's rule is neither adopted nor updated", async () => {
    resetOwnership();
    const zoneId = await fx.freshZone();
    const admin = await createMarked('admin', rule(zoneId));
    // A rule made by hand with ref "admin": a PATCH of the ref without the marker would be refused as a repeated ref.
    const rulesetId = String(admin.outs!.rulesetId);
    await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'admin' } });
    // A preview (the key the resource classes add in one, a run of its own: test/providers/phase-rule.preview.test.ts).
    await fx.newRun();
    await fx.requestsSince();
    const changed = await checkedBy(marked, { ...rule(zoneId, { description: 'changed' }), ...owner('admin'), [PREVIEW_KEY]: true }, admin.outs!);
    expect(await marked.diff(admin.id, admin.outs!, changed)).toMatchObject({ changes: true });
    expect(await fx.requestsSince()).toEqual([expect.objectContaining({ method: 'PATCH', query: { dry_run: 'true' } })]);
    await fx.newRun();

    // Another owner (another stack's resource) adopts it only with takeOver.
    resetOwnership();
    const adopting = await checkedBy(marked, { ...rule(zoneId), adoptRuleId: admin.id, ...owner('other') });
    await expect(marked.create(adopting)).rejects.toThrow('it is marked as held by another owner');
    const taken = await marked.create({ ...adopting, takeOver: true });
    expect(taken.id).toBe(admin.id);
    expect(await refs(zoneId)).toEqual([`admin ${owner('other')[OWNER_KEY]}`, 'admin']);
    // The first owner's update is now refused, and writes nothing.
    await fx.requestsSince();
    await expect(marked.update(admin.id, admin.outs!, changed)).rejects.toThrow('not updating it: it is marked as held by another owner');
    expect((await fx.requestsSince()).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  test.each([
    ['with takeOver (a move\'s adoption of a converted rule)', true],
    ['without takeOver', false],
  ])('an adoption %s reads the rule again after its write: another adopter whose write came last is seen, and this create fails', async (_how, takeOver) => {
    resetOwnership();
    const zoneId = await fx.freshZone();
    const made = await createMarked('admin', rule(zoneId));
    await fx.newRun();
    resetOwnership();
    const rulesetId = String(made.outs!.rulesetId);
    // Another stack's rule (takeOver) or an unmarked one made by hand (no takeOver needed).
    if (!takeOver) await fx.client.rulesets.updateRule({ zoneId, rulesetId, ruleId: made.id, rule: { action: 'block', expression: rule(zoneId).expression, ref: 'admin' } });
    const adopting = await checkedBy(marked, { ...rule(zoneId), adoptRuleId: made.id, ...(takeOver ? { takeOver } : {}), ...owner('mine') });
    await fx.requestsSince();
    const creating = marked.create(adopting);
    // The other adopter's write lands after this one's, within its settle (ADOPTION_SETTLE_MS).
    for (let tries = 0; !(await fx.apiCalls()).some((call) => call.startsWith('PATCH')); tries += 1) {
      if (tries > 200) throw new Error('the adoption never wrote');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const theirs = owner('theirs')[OWNER_KEY];
    await fx.client.rulesets.updateRule({ zoneId, rulesetId, ruleId: made.id, rule: { action: 'block', expression: rule(zoneId).expression, ref: `admin ${theirs}` } });
    await expect(creating).rejects.toThrow(`another adopter marked it at the same time (marker ${theirs} found after this resource left ${owner('mine')[OWNER_KEY]})`);
    expect(await refs(zoneId)).toEqual([`admin ${theirs}`]);
  });

  test('an update of a rule deleted by hand, and its preview, say it is gone and to refresh, writing nothing', async () => {
    resetOwnership();
    const zoneId = await fx.freshZone();
    const admin = await createMarked('admin', rule(zoneId));
    await fx.client.rulesets.deleteRule({ zoneId, rulesetId: String(admin.outs!.rulesetId), ruleId: admin.id });
    await fx.newRun();
    const gone = `CustomRule 'admin' ${admin.id} in zone ${zoneId}: it is gone (deleted outside of Pulumi since the last refresh), so there is nothing to update; run pulumi refresh, which takes it out of the state, then pulumi up, which creates it again`;
    const changed = await checkedBy(marked, { ...rule(zoneId, { description: 'changed' }), ...owner('admin'), [PREVIEW_KEY]: true }, admin.outs!);
    await expect(marked.diff(admin.id, admin.outs!, changed)).rejects.toThrow(gone);
    await fx.newRun();
    await fx.requestsSince();
    await expect(marked.update(admin.id, admin.outs!, changed)).rejects.toThrow(gone);
    expect((await fx.requestsSince()).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  test("a destroy of a zone's rules reads its entry point once for the owner markers: each delete's answer is the next one's read", async () => {
    resetOwnership();
    const zoneId = await fx.freshZone();
    const made = [];
    for (let i = 0; i < 20; i += 1) made.push(await createMarked(`rule-${i}`, rule(zoneId, { ref: `r${i}` })));
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the entry point's freshness: the first delete reads it
    await fx.requestsSince();
    for (const { id, outs } of made) await marked.delete(id, outs!);
    const calls = await fx.apiCalls();
    expect(calls.filter((c) => c.startsWith('GET'))).toEqual([`GET /rulesets/phases/${CUSTOM_PHASE}/entrypoint`]);
    expect(calls.filter((c) => c.startsWith('DELETE'))).toHaveLength(20);
    expect(await refs(zoneId)).toEqual([]);
  });
});

describe('a place names one rule, or nothing (docs/custom-rules.md#position)', () => {
  const marked = implementation('CustomRule');
  const owner = (name: string) => ({ [NAME_KEY]: name, [OWNER_KEY]: ownerMarker({ ownerId: 'test-owner', project: 'p', stack: 's', parent: '', kind: 'CustomRule', name }) });
  const mine = owner('office')[OWNER_KEY];
  const THEIRS = 'zg:abcdefabcd';
  const ONLY_OURS = "CustomRule 'admin' in zone";

  /** A zone holding this stack's rule `office` (made in this run) and, by hand, a rule of each ref of `others`. */
  async function zoneWith(others: string[]) {
    resetOwnership();
    const zoneId = await fx.freshZone();
    const office = await marked.create(await checkedBy(marked, { ...rule(zoneId, { ref: 'office' }), ...owner('office') }));
    const rulesetId = String(office.outs!.rulesetId);
    const ids: string[] = [];
    for (const ref of others) ids.push((await fx.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref } })).rules.at(-1)!.id!);
    // The next run reads the zone's rules with those made by hand.
    await fx.newRun();
    return { zoneId, office: office.id, ids };
  }

  test.each([
    ['a rule made by hand carrying the ref', 'office', 'unmarked: made by hand or by another tool'],
    ["another owner's rule declared with the ref", `office ${THEIRS}`, `marker ${THEIRS}: another owner's`],
  ])('%s: a create placed by that ref is refused before any write, naming both rules', async (_why, theirs, words) => {
    const { zoneId, office, ids } = await zoneWith([theirs]);
    await fx.requestsSince();
    for (const position of [{ after: 'office' }, { before: 'office' }]) {
      const inputs = await checkedBy(marked, { ...rule(zoneId, { ref: 'admin' }), ...owner('admin'), position });
      await expect(marked.create(inputs)).rejects.toThrow(
        `${ONLY_OURS} ${zoneId}: position names "office", the ref of 2 rules of the zone's ${CUSTOM_PHASE} phase, so it cannot say which: ` +
          `${office} (ref "office ${mine}", marker ${mine}: a resource of this stack), ${ids[0]} (ref ${JSON.stringify(theirs)}, ${words}); ` +
          "name the one meant by its id (its resource's ruleId output), or give the rule that is not meant another ref",
      );
    }
    expect((await fx.requestsSince()).filter((r) => r.method !== 'GET')).toEqual([]);
    // Named by id, the place is taken.
    await marked.create(await checkedBy(marked, { ...rule(zoneId, { ref: 'admin' }), ...owner('admin'), position: { before: ids[0]! } }));
    expect((await refs(zoneId)).map((ref) => ref.split(' ')[0])).toEqual(['office', 'admin', 'office']);
  });

  test("a move by that ref, and a preview's create, are refused the same way; a ref only one rule carries binds to it", async () => {
    const { zoneId, office, ids } = await zoneWith(['office', 'by-hand']);
    const admin = await marked.create(await checkedBy(marked, { ...rule(zoneId, { ref: 'admin' }), ...owner('admin') }));
    await fx.requestsSince();
    const moving = await checkedBy(marked, { ...rule(zoneId, { ref: 'admin' }), ...owner('admin'), position: { before: 'office' } }, admin.outs!);
    await expect(marked.update(admin.id, admin.outs!, moving)).rejects.toThrow(`position names "office", the ref of 2 rules of the zone's ${CUSTOM_PHASE} phase, so it cannot say which: ${office} (ref "office ${mine}"`);
    expect((await fx.requestsSince()).filter((r) => r.method !== 'GET')).toEqual([]);
    await fx.newRun();
    await expect(marked.check({}, { ...rule(zoneId, { ref: 'api' }), ...owner('api'), position: { after: 'office' }, [PREVIEW_KEY]: true })).rejects.toThrow(
      `${ids[0]} (ref "office", unmarked: made by hand or by another tool)`,
    );
    expect(((await fx.requestsSince()) as Array<{ query?: Record<string, unknown> }>).filter((r) => r.query?.dry_run === 'true')).toEqual([]);
    // "by-hand" is carried by one rule only: a place may name it.
    await fx.newRun();
    await marked.create(await checkedBy(marked, { ...rule(zoneId, { ref: 'api' }), ...owner('api'), position: { before: 'by-hand' } }));
    expect((await refs(zoneId)).map((ref) => ref.split(' ')[0])).toEqual(['office', 'office', 'api', 'by-hand', 'admin']);
  });

  test('a skip of the rest of the phase needs a place before what it skips: none is refused in check, an adoption keeps where it runs', async () => {
    const zoneId = fx.zone('business');
    await fx.requestsSince();
    const skipping = rule(zoneId, { action: 'skip', skip: { ruleset: 'current' } });
    expect((await customRule.check({}, skipping)).failures).toEqual([
      {
        property: 'position',
        reason:
          'CustomRule.position: required when the rule skips the rest of this phase\'s rules (skip.ruleset "current"): without it the rule is added last, where it skips nothing, ' +
          'and every rule added later runs after it and is skipped; place it before the rules it is an exception to (first: true, or before: a rule)',
      },
    ]);
    await checkedBy(customRule, { ...skipping, position: { after: 'other' } });
    await checkedBy(customRule, { ...skipping, adoptRuleId: 'a'.repeat(32) });
    expect(await fx.requestsSince()).toEqual([]);
  });
});
