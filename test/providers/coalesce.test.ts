import { setTimeout as sleep } from 'node:timers/promises';
import { LISTING_FRESH_MS, STREAM_GAP_MS, isFresh, matchListed, walkNextPage } from '../../src/providers/kit/coalesce';
import { cspPolicy } from '../../src/providers/csp-policy';
import { firewallFilter } from '../../src/providers/firewall-filter';
import { firewallRule } from '../../src/providers/firewall-rule';
import { firewallRuleWithFilter } from '../../src/providers/firewall-rule-with-filter';
import type { Implementation } from '../../src/providers/kit/implementation';
import { useProviderFixture } from './support';

describe('walkNextPage', () => {
  describe.each([
    // reads in the batch, pages it has walked, reads still unanswered, walks one more page
    [1, 0, 1, false],
    [2, 0, 2, true],
    [2, 1, 1, false],
    [8, 0, 8, true],
    [8, 4, 3, true],
    [8, 7, 1, false],
    [8, 2, 0, false],
    [150, 0, 150, true],
  ] as const)('%i reads, %i pages walked, %i unanswered', (batch, spent, unanswered, walks) => {
    it(walks ? 'walks on' : 'stops', () => {
      expect(walkNextPage(batch, spent, unanswered)).toBe(walks);
    });
  });
});

describe('isFresh', () => {
  describe.each([
    // ms since the walk began, ms from its last answers to the batch's first read, answers the batch
    [0, 0, true],
    [LISTING_FRESH_MS - 1, 0, true],
    [LISTING_FRESH_MS, 0, false],
    [3_000, STREAM_GAP_MS - 1, true],
    [3_000, STREAM_GAP_MS, false],
    // A batch that arrived while the walk was still answering the previous one.
    [3_000, -40, true],
  ] as const)('a walk %i ms old, a batch %i ms after its last answers', (age, gap, fresh) => {
    it(fresh ? 'answers it' : 'leaves it to a new walk', () => {
      const since = 1_000;
      const served = since + 2_000;
      expect(isFresh({ since, served }, served + gap, since + age)).toBe(fresh);
    });
  });
});

describe('matchListed', () => {
  it('answers the listed ids and leaves the others to single reads', () => {
    const listed = new Map([
      ['a', 1],
      ['c', 3],
    ]);
    expect(matchListed(['a', 'b', 'c'], listed)).toEqual({ found: new Map([['a', 1], ['c', 3]]), unlisted: ['b'] });
  });
});

describe('CspPolicy reads arriving together, against the emulator', () => {
  const fx = useProviderFixture();
  let zoneId: string;
  beforeAll(async () => {
    zoneId = fx.zone('enterprise');
  });

  const declared = (n: number) => ({
    zoneId,
    action: 'log' as const,
    expression: `http.host eq "shop${n}.example.com"`,
    value: "script-src 'self'",
    description: `policy ${n}`,
    enabled: true,
  });

  it('are one list call plus a single read for the one gone, with the results of single reads', async () => {
    const created = [];
    for (let n = 0; n < 6; n++) created.push(await cspPolicy.create(declared(n)));
    const [changed, deleted] = [created[1]!, created[4]!];
    // Out of band: one changed, one deleted, the others untouched.
    await fx.client.cspPolicies.update({ zoneId, policyId: changed.id, enabled: false, description: 'changed by hand' });
    await fx.client.cspPolicies.delete({ zoneId, policyId: deleted.id });

    // One at a time: each read is alone in its window, so each is a single GET.
    await fx.requestsSince();
    const alone = [];
    for (const { id, outs } of created) alone.push(await cspPolicy.read!(id, outs));
    const singleCalls = await fx.requestsSince();
    expect(singleCalls).toHaveLength(created.length);

    // Together, as a refresh sends them.
    const together = await Promise.all(created.map(({ id, outs }) => cspPolicy.read!(id, outs)));
    const calls = await fx.requestsSince();
    expect(together).toEqual(alone);
    expect(together[4]).toEqual({ id: '' });
    expect(together[1]!.props).toMatchObject({ enabled: false, description: 'changed by hand' });
    expect(together[0]!.props).toEqual(created[0]!.outs);
    expect(calls.map((call) => `${call.method} ${call.path.replace(/\?.*$/, '')}`).sort()).toEqual(
      [`GET /client/v4/zones/${zoneId}/page_guard/policies`, `GET /client/v4/zones/${zoneId}/page_guard/policies/${deleted.id}`].sort(),
    );
  });

  it('answer back-to-back batches from one walk, and a batch after a pause from a new one that sees what changed', async () => {
    const created: Created[] = [];
    for (let n = 10; n < 16; n++) created.push(await cspPolicy.create(declared(n)));
    const read = readOf(cspPolicy);
    await fx.requestsSince();

    // The engine's stream: a batch walks the list, the next one, sent as soon as those are answered, takes it as is.
    await Promise.all(created.slice(0, 2).map(read));
    const backToBack = await Promise.all(created.slice(4).map(read));
    expect(backToBack.map((result) => result.props)).toEqual(created.slice(4).map(({ outs }) => outs));
    expect(calls(await fx.requestsSince())).toEqual(['GET /page_guard/policies']);

    // Out of band between two batches, then a pause longer than the stream's gap: the walk no longer answers.
    const [deleted, changed] = [created[2]!, created[3]!];
    await fx.client.cspPolicies.delete({ zoneId, policyId: deleted.id });
    await fx.client.cspPolicies.update({ zoneId, policyId: changed.id, enabled: false, description: 'changed by hand' });
    await fx.requestsSince();
    await sleep(STREAM_GAP_MS + 50);
    const [gone, drifted] = await Promise.all([read(deleted), read(changed)]);
    expect(gone).toEqual({ id: '' });
    expect(drifted.props).toMatchObject({ enabled: false, description: 'changed by hand' });
    expect(calls(await fx.requestsSince())).toEqual(['GET /page_guard/policies', `GET /page_guard/policies/${deleted.id}`].sort());
  });
});

/** What `requestsSince` saw, as `METHOD path` without the zone prefix and the query. */
const calls = (seen: Array<{ method: string; path: string }>) =>
  seen.map((call) => `${call.method} ${call.path.replace(/^\/client\/v4\/zones\/[0-9a-f]+/, '').replace(/\?.*$/, '')}`).sort();

type Created = { id: string; outs?: Record<string, unknown> };
const readOf = (provider: Implementation) => (created: Created) => provider.read!(created.id, created.outs ?? {});

describe('firewall rules and filters read together, in a zone of more than one page', () => {
  const fx = useProviderFixture();
  let zoneId: string;
  // Rules of the zone made outside the stack: with the stack's own, more than one page of 100.
  const OTHERS = 120;
  beforeAll(async () => {
    const zone = await fx.emulator.admin.seedZone({
      name: 'many-rules.example',
      plan: 'enterprise',
      ruleQuota: 1000,
      firewallRules: Array.from({ length: OTHERS }, (_, n) => ({ expression: `ip.src eq 192.0.2.${n}`, action: 'log' as const })),
    });
    zoneId = zone.id;
  });

  it('walk the rules once for both rule kinds and the filters once, with the results of single reads', async () => {
    const single: Created[] = [];
    for (let n = 0; n < 4; n++) {
      single.push(await firewallRuleWithFilter.create({ zoneId, expression: `http.host eq "r${n}.example.com"`, action: 'block', paused: false, priority: null, description: `rule ${n}`, ref: '' }));
    }
    const filter = await firewallFilter.create({ zoneId, expression: 'http.request.uri.path contains "/admin"', paused: false, description: 'admin', ref: '' });
    const onFilter = await firewallRule.create({ zoneId, filterId: filter.id, action: 'challenge', paused: false, priority: null, description: 'on the shared filter', ref: '' });
    const [changed, deleted] = [single[1]!, single[2]!];
    // Out of band: one rule changed, one deleted (its filter with it), the others untouched.
    await fx.client.firewallRules.update({ zoneId, ruleId: changed.id, filter: { id: String(changed.outs!.filterId) }, action: 'log', paused: true, priority: null, description: 'changed by hand', ref: '' });
    await fx.client.firewallRules.delete({ zoneId, ruleId: deleted.id, deleteFilterIfUnused: true });

    // One at a time, each alone in its window: one GET each.
    await fx.requestsSince();
    const alone = [];
    for (const created of single) alone.push(await readOf(firewallRuleWithFilter)(created));
    const aloneRule = await readOf(firewallRule)(onFilter);
    const aloneFilter = await readOf(firewallFilter)(filter);
    expect(await fx.requestsSince()).toHaveLength(single.length + 2);

    // Together, as a refresh sends them: the rules of both kinds from one walk (two pages), the filter alone (a
    // batch of one reads singly), the deleted rule read on its own.
    const [together, togetherRule, togetherFilter] = await Promise.all([
      Promise.all(single.map(readOf(firewallRuleWithFilter))),
      readOf(firewallRule)(onFilter),
      readOf(firewallFilter)(filter),
    ]);
    expect(calls(await fx.requestsSince())).toEqual(
      ['GET /firewall/rules', 'GET /firewall/rules', `GET /firewall/rules/${deleted.id}`, `GET /filters/${filter.id}`].sort(),
    );
    expect(together).toEqual(alone);
    expect(togetherRule).toEqual(aloneRule);
    expect(togetherFilter).toEqual(aloneFilter);
    expect(together[2]).toEqual({ id: '' });
    expect(together[1]!.props).toMatchObject({ action: 'log', paused: true, description: 'changed by hand' });
    expect(together[0]!.props).toEqual(single[0]!.outs);
    expect(togetherRule.props).toEqual(onFilter.outs);

    // The walk answers the next reads of the refresh without a call; the deleted rule is still read on its own.
    const again = await Promise.all(single.map(readOf(firewallRuleWithFilter)));
    expect(again).toEqual(alone);
    expect(calls(await fx.requestsSince())).toEqual([`GET /firewall/rules/${deleted.id}`]);

    // A write of this process ends the walk: the read after it sees the write.
    const updated = await firewallRuleWithFilter.update!(single[0]!.id, single[0]!.outs!, { ...single[0]!.outs!, description: 'updated by the stack' });
    await fx.requestsSince();
    const afterWrite = await Promise.all([readOf(firewallRuleWithFilter)(single[0]!), readOf(firewallRuleWithFilter)(single[3]!)]);
    expect(afterWrite[0].props).toEqual(updated.outs);
    // A new walk; a batch of two walks one page, which does not hold them (the stack's rules come after the 120
    // others), so both are read on their own: the bound of walkNextPage, never more than twice the single reads.
    expect(calls(await fx.requestsSince())).toEqual(['GET /firewall/rules', `GET /firewall/rules/${single[0]!.id}`, `GET /firewall/rules/${single[3]!.id}`].sort());
  });

  it('walk the filters, past the first page, for filter reads arriving together', async () => {
    const filters: Created[] = [];
    for (let n = 0; n < 3; n++) {
      filters.push(await firewallFilter.create({ zoneId, expression: `http.host eq "f${n}.example.com"`, paused: false, description: `filter ${n}`, ref: '' }));
    }
    await fx.client.filters.update({ zoneId, filterId: filters[0]!.id, expression: String(filters[0]!.outs!.expression), paused: true, description: 'paused by hand', ref: '' });
    await fx.requestsSince();
    const alone = [];
    for (const created of filters) alone.push(await readOf(firewallFilter)(created));
    await fx.requestsSince();
    const together = await Promise.all(filters.map(readOf(firewallFilter)));
    expect(together).toEqual(alone);
    expect(together[0]!.props).toMatchObject({ paused: true, description: 'paused by hand' });
    // The zone holds more than 100 filters (the seeded rules' own): both pages, and no single read.
    expect(calls(await fx.requestsSince())).toEqual(['GET /filters', 'GET /filters']);
  });
});
