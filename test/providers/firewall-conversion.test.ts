// The delete of a legacy firewall resource once the zone's firewall rules were converted to custom rules
// (src/providers/kit/conversion.ts, docs/firewall-and-migration.md#move): against the emulator over loopback HTTP,
// with the owner markers the resource classes pass in.
import { MOVED_FROM_KEY, OWNER_KEY, movedMarkers, ownerMarker } from '../../src/kinds/marker';
import { legacyOrder } from '../../src/rulesets';
import { NAME_KEY, implementation } from '../../src/providers';
import { convertedLine, resetConversions } from '../../src/providers/kit/conversion';
import { TAKEN_FROM_KEY } from '../../src/providers/kit/move-deletes';
import { configure } from '../../src/providers/kit/context';
import { STREAM_GAP_MS } from '../../src/providers/kit/coalesce';
import { RETIRED_API_HINT } from '../../src/providers/kit/firewall';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { checkedBy, useCaughtStderr, useProviderFixture } from './support';

const fx = useProviderFixture();
const stderr = useCaughtStderr();
const CUSTOM = 'http_request_firewall_custom';
const RULE_MARKER = 'zg:0123456789';
const FILTER_MARKER = 'zg:1111111111';
const TWO_CALL_MARKER = 'zg:2222222222';

const singleCall = implementation('FirewallRuleWithFilter');
const filter = implementation('FirewallFilter');
const rule = implementation('FirewallRule');
const customRule = implementation('CustomRule');
type Props = Record<string, unknown>;

/** A new provider process: nothing of an earlier run is remembered. */
const newRun = () => {
  resetOwnership();
  resetConversions();
};

/** A zone holding a single-call rule, and a shared filter with a rule on it, made by the providers as a stack would. */
async function zoneWithRules() {
  const zoneId = await fx.freshZone();
  const single = await singleCall.create(
    await checkedBy(singleCall, { zoneId, expression: '(http.request.uri.path eq "/admin")', action: 'block', ref: 'A-1', [NAME_KEY]: 'admin', [OWNER_KEY]: RULE_MARKER }),
  );
  const shared = await filter.create(await checkedBy(filter, { zoneId, expression: '(ip.src in {192.0.2.0/24})', [NAME_KEY]: 'office', [OWNER_KEY]: FILTER_MARKER }));
  const onFilter = await rule.create(await checkedBy(rule, { zoneId, filterId: shared.id, action: 'allow', [NAME_KEY]: 'office-allow', [OWNER_KEY]: TWO_CALL_MARKER }));
  return { zoneId, single, shared, onFilter };
}

/** zoneWithRules with the zone's legacy firewall API then moved to `legacy`, seen by a new provider process. */
async function zoneMovedTo(legacy: 'maintenance' | 'retired') {
  const made = await zoneWithRules();
  await fx.emulator.admin.setLegacyFirewall(made.zoneId, legacy);
  newRun();
  return made;
}

const legacyCalls = async () => (await fx.apiCalls()).filter((call) => /\/(firewall\/rules|filters)(\/|\?|$)/.test(call));

/** The converted custom rule that carries `marker` at the end of its ref. */
async function convertedOf(zoneId: string, marker: string) {
  const { rules } = await fx.client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM });
  return rules.find((candidate) => candidate.ref?.endsWith(marker))!;
}

/** A CustomRule's checked inputs that take over `converted` (adoptRuleId with takeOver), as a move's program declares it. */
function takeOverInputs(zoneId: string, converted: { id?: string; action: string; expression: string }, name: string, marker: string) {
  return checkedBy(customRule, {
    zoneId,
    action: converted.action,
    expression: converted.expression,
    ...(converted.action === 'skip' ? { skip: { ruleset: 'current' } } : {}),
    adoptRuleId: converted.id,
    takeOver: true,
    [NAME_KEY]: name,
    [OWNER_KEY]: marker,
  });
}

/** The zone's legacy API moved to maintenance, then a new run's CustomRules adopting its two conversions ('admin', 'office-allow'). */
async function adoptedAfterConversion(zoneId: string) {
  await fx.emulator.admin.setLegacyFirewall(zoneId, 'maintenance');
  const admin = await convertedOf(zoneId, RULE_MARKER);
  const allow = await convertedOf(zoneId, TWO_CALL_MARKER);
  newRun();
  const adopted: { id: string; outs: Props; inputs: Props }[] = [];
  for (const [converted, name, marker] of [[admin, 'admin', 'zg:abcdefab01'], [allow, 'office-allow', 'zg:abcdefab02']] as const) {
    const inputs = await takeOverInputs(zoneId, converted, name, marker);
    const made = await customRule.create(inputs);
    adopted.push({ id: made.id, outs: made.outs as Props, inputs });
  }
  return { admin, allow, adopted };
}

beforeEach(newRun);

describe('maintenance', () => {
  test('the CustomRules adopt the converted rules; the firewall resources then leave the state without one call to the legacy API', async () => {
    const { zoneId, single, shared, onFilter } = await zoneWithRules();
    const { admin, allow } = await adoptedAfterConversion(zoneId);
    await fx.requestsSince();
    await singleCall.delete(single.id, single.outs as Props);
    await rule.delete(onFilter.id, onFilter.outs as Props);
    await filter.delete(shared.id, shared.outs as Props);
    expect(await legacyCalls()).toEqual([]);
    expect(stderr.calls()).toEqual([
      [convertedLine(`FirewallRuleWithFilter 'admin' ${single.id} in zone ${zoneId}`, { customRuleId: admin.id!, how: 'taken over' })],
      [convertedLine(`FirewallRule 'office-allow' ${onFilter.id} in zone ${zoneId}`, { customRuleId: allow.id!, how: 'taken over' })],
      [convertedLine(`FirewallFilter 'office' ${shared.id} in zone ${zoneId}`, { how: 'zone converted' })],
    ]);
    expect(stderr.calls()[0]![0]).toBe(
      `zoneguard: FirewallRuleWithFilter 'admin' ${single.id} in zone ${zoneId}: the zone's firewall rules were converted to custom rules ` +
        `(custom rule ${admin.id} holds its conversion, taken over in this run); nothing is deleted: the resource leaves the state, and the zone's custom rules stay (docs/firewall-and-migration.md#move)`,
    );
    expect((await fx.emulator.admin.inventory(zoneId)).counts).toMatchObject({ firewallRules: 2, filters: 2 });
  });

  test('a move interrupted after its adoptions: the next run learns the conversions from the CustomRules\' state, and the firewall resources leave it without one legacy call', async () => {
    const { zoneId, single, shared, onFilter } = await zoneWithRules();
    const { admin, allow, adopted } = await adoptedAfterConversion(zoneId);
    // The state records the marker each adoption took over, and a refresh keeps it.
    expect(adopted.map(({ outs }) => outs[TAKEN_FROM_KEY])).toEqual([RULE_MARKER, TWO_CALL_MARKER]);
    expect((await customRule.read(adopted[0]!.id, adopted[0]!.outs)).props?.[TAKEN_FROM_KEY]).toBe(RULE_MARKER);
    // The run is killed here; the next one diffs the CustomRules (unchanged), then deletes the firewall resources.
    newRun();
    await fx.requestsSince();
    for (const { id, outs, inputs } of adopted) expect((await customRule.diff!(id, outs, inputs)).changes).toBe(false);
    await singleCall.delete(single.id, single.outs as Props);
    await rule.delete(onFilter.id, onFilter.outs as Props);
    await filter.delete(shared.id, shared.outs as Props);
    expect(await fx.requestsSince()).toEqual([]);
    expect(stderr.calls().slice(-3)).toEqual([
      [convertedLine(`FirewallRuleWithFilter 'admin' ${single.id} in zone ${zoneId}`, { customRuleId: admin.id!, how: 'taken over before' })],
      [convertedLine(`FirewallRule 'office-allow' ${onFilter.id} in zone ${zoneId}`, { customRuleId: allow.id!, how: 'taken over before' })],
      [convertedLine(`FirewallFilter 'office' ${shared.id} in zone ${zoneId}`, { how: 'zone converted' })],
    ]);
    expect(stderr.calls().at(-3)![0]).toContain(`(custom rule ${admin.id} holds its conversion, taken over by a resource of this stack in an earlier run)`);
    expect((await fx.emulator.admin.inventory(zoneId)).counts).toMatchObject({ firewallRules: 2, filters: 2 });
  });

  test.each([
    ['together, as the engine sends them', 0, ['GET 200', 'PATCH 200', 'PATCH 200', 'GET 200']],
    ['one after the other, a pause between (STREAM_GAP_MS)', STREAM_GAP_MS + 100, ['GET 200', 'PATCH 200', 'GET 200', 'PATCH 200', 'GET 200']],
  ])('the adoptions of a move, %s: one read of the custom phase before the writes, however they are spaced, and one to confirm the markers after each pause in the zone\'s writes', async (_how, pause, calls) => {
    const { zoneId } = await zoneWithRules();
    await fx.emulator.admin.setLegacyFirewall(zoneId, 'maintenance');
    const converted = [await convertedOf(zoneId, RULE_MARKER), await convertedOf(zoneId, TWO_CALL_MARKER)];
    newRun();
    await fx.requestsSince();
    const adoptions = converted.map(async (rule, i) => {
      if (i > 0 && pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      return customRule.create(await takeOverInputs(zoneId, rule, `adopter-${i}`, `zg:abcdefab1${i}`));
    });
    await Promise.all(adoptions);
    expect((await fx.requestsSince()).map((call) => `${call.method} ${call.status}`)).toEqual(calls);
  });

  test('a converted rule nobody adopted still carries the resource\'s marker: the delete names it and how to adopt it, with one read of the phase', async () => {
    const { zoneId, single } = await zoneWithRules();
    await fx.emulator.admin.setLegacyFirewall(zoneId, 'maintenance');
    const admin = await convertedOf(zoneId, RULE_MARKER);
    newRun();
    await fx.requestsSince();
    await singleCall.delete(single.id, single.outs as Props);
    expect(await fx.apiCalls()).toEqual([`GET /rulesets/phases/${CUSTOM}/entrypoint`]);
    expect(stderr.calls()[0]![0]).toContain(`(custom rule ${admin.id} holds its conversion and still carries this resource's owner marker: declare a CustomRule with adoptRuleId: '${admin.id}' and takeOver: true to manage it)`);
  });

  test('a filter alone (its rules not in the run) sends its delete, and the refusal (10020) is taken as the conversion: nothing deleted', async () => {
    const { zoneId, shared } = await zoneMovedTo('maintenance');
    await fx.requestsSince();
    await filter.delete(shared.id, shared.outs as Props);
    expect(await fx.apiCalls()).toEqual([`GET /filters/${shared.id}`, `DELETE /filters/${shared.id}`]);
    expect(stderr.calls()).toEqual([[convertedLine(`FirewallFilter 'office' ${shared.id} in zone ${zoneId}`, { how: 'maintenance' })]]);
    expect((await fx.emulator.admin.inventory(zoneId)).counts.filters).toBe(2);
  });

  test('an update says to move the resource to a CustomRule, not only the service\'s 10020', async () => {
    const { zoneId, single } = await zoneMovedTo('maintenance');
    const news = await checkedBy(singleCall, { zoneId, expression: '(http.request.uri.path eq "/admin")', action: 'challenge', ref: 'A-1', [NAME_KEY]: 'admin', [OWNER_KEY]: RULE_MARKER });
    const error = (await singleCall.update(single.id, single.outs as Props, news).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/: 10020 firewallrules\.api\.maintenance_mode: /);
    expect(error.message.endsWith(RETIRED_API_HINT)).toBe(true);
    expect(RETIRED_API_HINT).toContain('Move it to a CustomRule: `zoneguard firewall-upgrade-plan --zone <zone id> --stack-export <file> --program`');
  });
});

describe('retired', () => {
  test('a filter alone: the legacy read answers 410, which is no write, and the filter leaves the state', async () => {
    const { zoneId, shared } = await zoneMovedTo('retired');
    await fx.requestsSince();
    await filter.delete(shared.id, shared.outs as Props);
    const calls = await fx.requestsSince();
    expect(calls.map((call) => `${call.method} ${call.status}`)).toEqual(['GET 410']);
    expect(stderr.calls()).toEqual([[convertedLine(`FirewallFilter 'office' ${shared.id} in zone ${zoneId}`, { how: 'retired' })]]);
  });

  test('a rule whose conversion is marked as its own leaves with no legacy call; a refresh says what to do', async () => {
    const { single } = await zoneMovedTo('retired');
    await fx.requestsSince();
    await singleCall.delete(single.id, single.outs as Props);
    expect(await legacyCalls()).toEqual([]);
    const error = (await singleCall.read(single.id, single.outs as Props).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('HTTP 410 Gone: 10020 the firewall rules and filters API is retired for this zone');
    expect(error.message.endsWith(RETIRED_API_HINT)).toBe(true);
  });
});

describe('available', () => {
  test('nothing converted: the delete goes to the service as before (one read of the phase per zone first)', async () => {
    const { zoneId, single, shared, onFilter } = await zoneWithRules();
    await fx.requestsSince();
    await singleCall.delete(single.id, single.outs as Props);
    await rule.delete(onFilter.id, onFilter.outs as Props);
    await filter.delete(shared.id, shared.outs as Props);
    expect((await fx.apiCalls()).filter((call) => call.startsWith('DELETE') || call.includes('rulesets'))).toEqual([
      `GET /rulesets/phases/${CUSTOM}/entrypoint`,
      `DELETE /firewall/rules/${single.id}`,
      `DELETE /firewall/rules/${onFilter.id}`,
      `DELETE /filters/${shared.id}`,
    ]);
    expect(stderr.calls()).toEqual([]);
    expect((await fx.emulator.admin.inventory(zoneId)).counts).toMatchObject({ firewallRules: 0, filters: 0 });
  });

  test('the move: once this run created their custom rules, the first legacy delete of the zone deletes the moved rules last-run first; their resources\' deletes then make no call', async () => {
    const { zoneId, single, shared, onFilter } = await zoneWithRules();
    // The legacy order: at no priority, allow (office-allow) runs before block (admin).
    const legacy = (await fx.emulator.admin.inventory(zoneId)).firewallRules;
    expect(legacyOrder(legacy).map((r) => r.id)).toEqual([onFilter.id, single.id]);
    newRun();
    for (const [name, fields] of [
      ['office-allow', { action: 'skip', expression: '(ip.src in {192.0.2.0/24})', skip: { ruleset: 'current' }, position: { first: true } }],
      ['admin', { action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'A-1' }],
    ] as const) {
      await customRule.create(await checkedBy(customRule, { zoneId, ...fields, [NAME_KEY]: `custom-${name}`, [OWNER_KEY]: `zg:abcdefab2${name.length % 10}` }));
    }
    // An `up --refresh` reads the removed resources too: a read does not make them declared, and says their markers are this stack's.
    await rule.read(onFilter.id, onFilter.outs as Props);
    await singleCall.read(single.id, single.outs as Props);
    await filter.read(shared.id, shared.outs as Props);
    await fx.requestsSince();
    // The engine's order: the rule that ran first is deleted first, then the other, then the shared filter.
    await rule.delete(onFilter.id, onFilter.outs as Props);
    await singleCall.delete(single.id, single.outs as Props);
    await filter.delete(shared.id, shared.outs as Props);
    expect(await fx.apiCalls()).toEqual([
      `GET /rulesets/phases/${CUSTOM}/entrypoint`,
      'GET /firewall/rules',
      `DELETE /firewall/rules/${single.id}`,
      `DELETE /firewall/rules/${onFilter.id}`,
    ]);
    expect(stderr.calls()).toEqual([
      [`zoneguard: zone ${zoneId}: deleting the 2 firewall rule(s) this run moved to custom rules, the last to run first, so that the rules left run as before and the custom rules decide what they no longer do (docs/firewall-and-migration.md#move)`],
    ]);
    expect((await fx.emulator.admin.inventory(zoneId)).counts).toMatchObject({ firewallRules: 0, filters: 0 });
  });

  test('the move leaves a legacy rule the program still declares: only the rules no resource of the run declares are deleted ahead', async () => {
    const { zoneId, single, onFilter } = await zoneWithRules();
    newRun();
    // The program keeps the single-call rule (its diff runs) and moves the other.
    const kept = await checkedBy(singleCall, { zoneId, expression: '(http.request.uri.path eq "/admin")', action: 'block', ref: 'A-1', [NAME_KEY]: 'admin', [OWNER_KEY]: RULE_MARKER });
    expect((await singleCall.diff!(single.id, single.outs as Props, kept)).changes).toBe(false);
    for (const [name, fields] of [
      ['office-allow', { action: 'skip', expression: '(ip.src in {192.0.2.0/24})', skip: { ruleset: 'current' }, position: { first: true } }],
      ['admin', { action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'A-1' }],
    ] as const) {
      await customRule.create(await checkedBy(customRule, { zoneId, ...fields, [NAME_KEY]: `custom-${name}`, [OWNER_KEY]: `zg:abcdefab3${name.length % 10}` }));
    }
    await fx.requestsSince();
    await rule.delete(onFilter.id, onFilter.outs as Props);
    expect((await fx.apiCalls()).filter((call) => call.startsWith('DELETE'))).toEqual([`DELETE /firewall/rules/${onFilter.id}`]);
    expect((await fx.emulator.admin.inventory(zoneId)).firewallRules.map((r) => r.id)).toEqual([single.id]);
  });

  test('two stacks: another stack\'s legacy rule that a CustomRule of this run copies stays; this stack\'s go last-run first, each known by its marker', async () => {
    const zoneId = await fx.freshZone();
    // Stack A's identity, as its resource classes make markers from it (src/resources/kit.ts).
    const stackA = { ownerId: 'owner-a', project: 'shop', stack: 'prod', parent: '' };
    const singleOfA = async (name: string, expression: string, action: string) =>
      singleCall.create(
        await checkedBy(singleCall, { zoneId, expression, action, [NAME_KEY]: name, [OWNER_KEY]: ownerMarker({ ...stackA, kind: 'FirewallRuleWithFilter', name }) }),
      );
    const theirs = await singleCall.create(
      await checkedBy(singleCall, { zoneId, expression: '(http.request.uri.path eq "/theirs")', action: 'block', description: 'theirs', [NAME_KEY]: 'theirs', [OWNER_KEY]: 'zg:bbbbbbbbbb' }),
    );
    const admin = await singleOfA('admin', '(http.request.uri.path contains "/admin")', 'block');
    const api = await singleOfA('api', '(http.request.uri.path contains "/api")', 'challenge');
    const renamed = await singleOfA('login', '(http.request.uri.path contains "/login")', 'js_challenge');
    newRun();
    // Stack A's move: a CustomRule of each firewall resource's name, but 'login', declared as 'login-rule'; and a copy of stack B's rule.
    for (const [name, action, expression, description] of [
      ['admin', 'block', '(http.request.uri.path contains "/admin")', undefined],
      ['api', 'challenge', '(http.request.uri.path contains "/api")', undefined],
      ['login-rule', 'js_challenge', '(http.request.uri.path contains "/login")', undefined],
      ['copy-of-theirs', 'block', '(http.request.uri.path eq "/theirs")', 'theirs'],
    ] as const) {
      const identity = { ...stackA, name };
      await customRule.create(
        await checkedBy(customRule, {
          zoneId,
          action,
          expression,
          ...(description ? { description } : {}),
          [NAME_KEY]: name,
          [OWNER_KEY]: ownerMarker({ ...identity, kind: 'CustomRule' }),
          [MOVED_FROM_KEY]: movedMarkers(identity),
        }),
      );
    }
    const order = legacyOrder((await fx.emulator.admin.inventory(zoneId)).firewallRules).map((r) => r.id);
    await fx.requestsSince();
    // The engine deletes 'admin' first: the moves of 'admin' and 'api' go then, last-run first, each with its filter.
    await singleCall.delete(admin.id, admin.outs as Props);
    const ahead = [admin.id, api.id].sort((x, y) => order.indexOf(y) - order.indexOf(x));
    expect((await fx.apiCalls()).filter((call) => call.startsWith('DELETE'))).toEqual(ahead.map((id) => `DELETE /firewall/rules/${id}`));
    expect(stderr.calls().flat().join('\n')).toContain(
      `not deleting firewall rule(s) ${[theirs.id, renamed.id].sort((x, y) => order.indexOf(x) - order.indexOf(y)).map((id) => `${id} (marker ${id === theirs.id ? 'zg:bbbbbbbbbb' : ownerMarker({ ...stackA, kind: 'FirewallRuleWithFilter', name: 'login' })})`).join(', ')} ahead`,
    );
    // 'api' was deleted ahead: no call; 'login' is deleted by its own delete (its marker read first); stack B's rule stays.
    await fx.requestsSince();
    await singleCall.delete(api.id, api.outs as Props);
    await singleCall.delete(renamed.id, renamed.outs as Props);
    expect((await fx.apiCalls()).filter((call) => !call.includes('rulesets'))).toEqual([`GET /firewall/rules/${renamed.id}`, `DELETE /firewall/rules/${renamed.id}`]);
    const left = await fx.emulator.admin.inventory(zoneId);
    expect(left.firewallRules.map((r) => r.id)).toEqual([theirs.id]);
    expect(left.counts.filters).toBe(1);
  });

  test('a token without the rulesets API deletes as before: the read of the phase is only a hint', async () => {
    const { zoneId, single } = await zoneWithRules();
    const { token } = await fx.emulator.admin.addToken({ zoneId, apis: ['firewall/rules', 'filters'] });
    const settings: Record<string, string> = { 'zoneguard:baseUrl': fx.emulator.baseUrl, 'zoneguard:apiToken': token };
    await configure({ config: { get: (key) => settings[key], require: (key) => settings[key]! } });
    try {
      await fx.requestsSince();
      await singleCall.delete(single.id, single.outs as Props);
      expect((await fx.requestsSince()).map((call) => `${call.method} ${call.status}`)).toEqual(['GET 403', 'GET 200', 'DELETE 200']);
      expect((await fx.emulator.admin.inventory(zoneId)).counts.firewallRules).toBe(1);
    } finally {
      await fx.newRun();
    }
  });
});
