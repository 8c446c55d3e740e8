import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Stack } from '@pulumi/pulumi/automation';
import { planFirewallRulesUpgrade, type FirewallRulesUpgradePlan } from '../../src';
import { renderFirewallUpgradePlan } from '../../src/cli/commands/firewall-upgrade-plan';
import type { ZoneGuardClient } from '../../src/client';
import type { StackExport } from '../../src/insights/orphans';
import { checkEquivalence, describeRequest, renderMoveProgram, requestsOf, zoneEvaluator } from '../../src/firewall-upgrade';
import type { ZoneMoment } from '../../src/emulator/state';
import { convertFirewallRules, convertedRule, legacyOrder } from '../../src/rulesets';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import type { FirewallRuleWire, RulesetRule } from '../../src/schemas';
import { testClient } from '../support/emulator';
import { inlineProgram, openSandbox, previewDiff, type EngineSandbox } from './harness';

// The move of a stack's legacy firewall rules to custom rules through the real engine (issue 33,
// docs/firewall-and-migration.md#move): one stack holds 32 legacy rules in each of three zones (both forms, shared
// filters, a paused filter, priorities set and unset, allow, bypass with products, log, paused rules), beside rules
// another stack and the dashboard hold. One zone stays `available`, one goes to `maintenance`, one to `retired`;
// then the program `zoneguard firewall-upgrade-plan --program` writes replaces the firewall resources, in one `up`.
// The retired zone's move is interrupted after its adoptions (an `up --target` of its CustomRules alone) and finished by
// that `up`, as a move killed between its adoptions and its deletes would be. The emulator keeps each zone's history
// (its rules after every accepted write), and the zone's decision is evaluated over the plan's requests at each moment.
jest.setTimeout(900_000);

const CUSTOM = 'http_request_firewall_custom';
const STATES = ['available', 'maintenance', 'retired'] as const;
type State = (typeof STATES)[number];
const ACTIONS = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'allow', 'log', 'bypass'] as const;
/** Another stack's marker (docs/ownership.md): its rules must come out of the move as they went in. */
const THEIRS = 'zg:00000000aa';

let sandbox: EngineSandbox;
let client: ZoneGuardClient;
let stack: Stack;
const zones = {} as Record<State, string>;
/** What the program declares: the legacy resources, or the move's program files. */
let phase: 'legacy' | 'moved' = 'legacy';
const programs = {} as Record<State, string>;
const before = {} as Record<State, { legacy: FirewallRuleWire[]; custom: RulesetRule[] }>;
const plans = {} as Record<State, FirewallRulesUpgradePlan>;

/** The stack's 32 legacy rules of one zone: 20 in one call, 12 on two shared filters (one paused). */
function legacyResources(state: State, zoneId: string): void {
  const p = state.charAt(0);
  for (let i = 0; i < 20; i += 1) {
    const action = ACTIONS[i % ACTIONS.length]!;
    new FirewallRuleWithFilter(`${p}-single-${i}`, {
      zoneId,
      // "/s1" is in "/s10".."/s19": requests that several rules meet, so the order decides.
      expression: `(http.request.uri.path contains "/s${i}" and ip.src in {203.0.113.0/24})`,
      action,
      ...(action === 'bypass' ? { products: ['waf', 'rateLimit'] } : {}),
      priority: i % 4 === 0 ? null : (i % 3) + 1,
      paused: i === 5 || i === 13,
      description: `single ${i}`,
      ...(i % 2 === 1 ? { ref: `S-${i}` } : {}),
    });
  }
  const office = new FirewallFilter(`${p}-office`, { zoneId, expression: '(ip.src in {192.0.2.0/24})', description: 'office' });
  const bots = new FirewallFilter(`${p}-bots`, { zoneId, expression: '(http.user_agent contains "bot")', description: 'bots', paused: true });
  const shared: [FirewallFilter, string, (typeof ACTIONS)[number], number | null, boolean][] = [
    [office, 'o1', 'block', 1, false],
    [office, 'o2', 'log', 1, false],
    [office, 'o3', 'allow', null, false],
    [office, 'o4', 'bypass', 2, false],
    [office, 'o5', 'challenge', null, false],
    [office, 'o6', 'managed_challenge', 3, false],
    [bots, 'b1', 'block', null, false],
    [bots, 'b2', 'log', 2, false],
    [bots, 'b3', 'js_challenge', 2, false],
    [bots, 'b4', 'allow', 4, false],
    [bots, 'b5', 'challenge', null, true],
    [bots, 'b6', 'bypass', null, false],
  ];
  for (const [filter, name, action, priority, paused] of shared) {
    new FirewallRule(`${p}-${name}`, {
      zoneId,
      filterId: filter.id,
      action,
      ...(action === 'bypass' ? { products: name === 'o4' ? ['securityLevel'] : ['hot'] } : {}),
      priority,
      paused,
      description: `shared ${name}`,
      ref: `R-${name}`,
    });
  }
}

/** A zone with rules made in the dashboard (unmarked) and another stack's (its marker), legacy and custom. */
async function seededZone(state: State): Promise<string> {
  const { id } = await sandbox.emulator.admin.seedZone({
    name: `move-${state}.example`,
    plan: 'enterprise',
    ruleQuota: 200,
    firewallRules: [
      { expression: '(http.request.uri.path eq "/dashboard-block")', action: 'block', description: 'made in the dashboard' },
      { expression: '(ip.src in {198.51.100.0/24})', action: 'allow', priority: 2, description: 'dashboard allow' },
    ],
  });
  await client.firewallRules.create({
    zoneId: id,
    rules: [
      { filter: { expression: '(http.request.uri.path contains "/theirs")' }, action: 'block', priority: 1, ref: `T-1 ${THEIRS}` },
      { filter: { expression: '(http.host eq "theirs.example")' }, action: 'log', ref: `T-2 ${THEIRS}` },
    ],
  });
  await client.rulesets.updateEntrypoint({
    zoneId: id,
    phase: CUSTOM,
    ruleset: {
      name: 'default',
      rules: [
        { action: 'block', expression: '(http.request.uri.path eq "/by-hand")', description: 'custom rule made by hand' },
        { action: 'managed_challenge', expression: '(http.host eq "custom.theirs.example")', ref: `C-1 ${THEIRS}` },
      ],
    },
  });
  return id;
}

/** Whether a rule is another owner's or made by hand: unmarked, or the other stack's marker (docs/ownership.md). */
const foreign = (rule: { ref?: string | undefined }) => !/(^| )zg:[0-9a-f]{10}$/.test(rule.ref ?? '') || rule.ref?.endsWith(THEIRS) === true;

/** The legacy rules' ids in the order the service ran them (and the conversion keeps). */
const orderedIds = (legacy: readonly FirewallRuleWire[]) => legacyOrder(legacy).map((rule) => rule.id);

/** An engine change summary without the resources left the same (the stack and what every stack holds besides ours). */
const changes = (summary: Record<string, number> | undefined) => Object.fromEntries(Object.entries(summary ?? {}).filter(([op]) => op !== 'same'));

/** The zone's custom rules. */
const customRules = async (zoneId: string) => (await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM })).rules;

beforeAll(async () => {
  sandbox = await openSandbox('firewall-move', { seed: 'empty' });
  client = testClient(sandbox.emulator);
  for (const state of STATES) zones[state] = await seededZone(state);
  stack = await sandbox.stack('move', async () => {
    if (phase === 'legacy') {
      for (const state of STATES) legacyResources(state, zones[state]);
      return {};
    }
    const outputs: Record<string, unknown> = {};
    for (const state of STATES) Object.assign(outputs, await inlineProgram(programs[state])());
    return outputs;
  });
  await stack.up({ color: 'never' });
  for (const state of STATES) {
    const inventory = await sandbox.emulator.admin.inventory(zones[state]);
    expect(inventory.counts.firewallRules).toBe(36);
    before[state] = { legacy: inventory.firewallRules, custom: await customRules(zones[state]) };
  }
  await sandbox.emulator.admin.setLegacyFirewall(zones.maintenance, 'maintenance');
  await sandbox.emulator.admin.setLegacyFirewall(zones.retired, 'retired');
});
afterAll(() => sandbox?.close());

test('the plan names every rule with its custom rule and holder, and writes the program of the move', async () => {
  const exported = (await stack.exportStack()) as StackExport;
  for (const state of STATES) {
    const plan = await planFirewallRulesUpgrade({ zoneId: zones[state], client, stackExports: [exported] });
    plans[state] = plan;
    expect(plan.problems).toEqual([]);
    expect(plan.move?.rules).toHaveLength(32);
    if (state === 'retired') {
      expect([plan.legacyApi, plan.rules]).toEqual(['retired', []]);
    } else {
      expect(plan.rules).toHaveLength(36);
      const holders = plan.rules.map((rule) => rule.holder.replace(/ \(.*$/, ''));
      expect([holders.filter((h) => h === 'this stack').length, holders.filter((h) => h === 'another owner').length, holders.filter((h) => h === 'nobody').length]).toEqual([32, 2, 2]);
      expect(plan.converted).toBe(state === 'maintenance');
      expect(plan.rules.every((rule) => (rule.customRuleId === null) === (state === 'available'))).toBe(true);
    }
    expect(plan.move?.steps).toBe(state === 'available' ? 'create then delete' : 'adopt');
    const file = path.join(sandbox.dir, `move-${state}.ts`);
    fs.writeFileSync(file, renderMoveProgram(zones[state], plan.move!));
    // The plan as the CLI prints it, kept with the sandbox under ZONEGUARD_KEEP_E2E (docs/firewall-and-migration.md#move quotes it).
    fs.writeFileSync(path.join(sandbox.dir, `plan-${state}.txt`), renderFirewallUpgradePlan(plan));
    programs[state] = file;
  }
  expect(plans.available.move?.note).toMatch(/the two overlap, both run meanwhile/);
  // Each program declares 32 CustomRules: adopting (with takeOver: the firewall resource's marker is on the rule) or created in order.
  const maintenance = fs.readFileSync(programs.maintenance, 'utf8');
  expect(maintenance.match(/adoptRuleId: /g)).toHaveLength(32);
  expect(maintenance.match(/takeOver: true/g)).toHaveLength(32);
  const available = fs.readFileSync(programs.available, 'utf8');
  expect(available.match(/position: \{ after: rule\w+\.ruleId \}/g)).toHaveLength(31);
  expect(available).not.toMatch(/adoptRuleId/);
});

/** The URN of a resource of the move's stack. */
const urnOf = async (type: string, name: string) => `urn:pulumi:${stack.name}::${(await stack.workspace.projectSettings()).name}::pulumi-nodejs:dynamic/zoneguard:${type}::${name}`;

test('the retired zone\'s move is interrupted after its adoptions: an up of its CustomRules alone adopts them, and the firewall resources stay in the state', async () => {
  phase = 'moved';
  for (const state of STATES) await sandbox.emulator.admin.watchZone(zones[state]);
  await sandbox.emulator.admin.clearRequests();
  const target = await Promise.all(plans.retired.move!.rules.map((rule) => urnOf('CustomRule', rule.name)));
  const up = await stack.up({ color: 'never', target });
  expect(changes(up.summary.resourceChanges)).toEqual({ create: 32 });
  const log = await sandbox.emulator.admin.requests();
  expect(log.filter((entry) => entry.method !== 'GET').map((entry) => `${entry.zoneId === zones.retired} ${entry.method} ${entry.status}`)).toEqual(Array(32).fill('true PATCH 200'));
  expect(log.filter((entry) => entry.status >= 400)).toEqual([]);
  const left = (await stack.exportStack()).deployment.resources.filter((resource: { type: string }) => /Firewall(RuleWithFilter|Filter|Rule)$/.test(resource.type));
  expect(left).toHaveLength(3 * 34);
});

test('the move in one up: created first then deleted where available, adopted with no legacy call where converted; nobody else\'s rule changes', async () => {
  const preview = await previewDiff(stack);
  expect(changes(preview.summary)).toEqual({ create: 64, delete: 102 });

  await sandbox.emulator.admin.clearRequests();
  let text = '';
  const up = await stack.up({ color: 'never', onOutput: (out) => (text += out) });
  // What the engine printed, kept with the sandbox under ZONEGUARD_KEEP_E2E (docs/firewall-and-migration.md#move quotes it).
  fs.writeFileSync(path.join(sandbox.dir, 'move-up.txt'), text);
  expect(changes(up.summary.resourceChanges)).toEqual({ create: 64, delete: 102 });
  const log = await sandbox.emulator.admin.requests();
  const legacyCalls = (zoneId: string) => log.filter((entry) => entry.zoneId === zoneId && /\/(firewall\/rules|filters)(\/|$)/.test(entry.path));

  // Converted: not one call to the legacy API, and not one the service refused (4xx); one write per rule (its owner
  // marker: the retired zone's were written by the interrupted up), and one line per resource.
  for (const state of ['maintenance', 'retired'] as const) {
    expect(legacyCalls(zones[state])).toEqual([]);
    expect(log.filter((entry) => entry.zoneId === zones[state] && entry.status >= 400)).toEqual([]);
    const writes = log.filter((entry) => entry.zoneId === zones[state] && entry.method !== 'GET');
    expect(writes.map((entry) => `${entry.method} ${entry.status}`)).toEqual(Array(state === 'maintenance' ? 32 : 0).fill('PATCH 200'));
  }
  // One line per resource (the engine may print a diagnostic twice: streamed, and in its summary).
  const lines = [...new Set(text.split('\n').flatMap((line) => (line.includes("the zone's firewall rules were converted to custom rules") ? [line.slice(line.indexOf('zoneguard: ')).trim()] : [])))];
  expect(lines).toHaveLength(2 * 34);
  expect(lines.filter((line) => /custom rule [0-9a-f]{32} holds its conversion, taken over in this run/.test(line))).toHaveLength(32);
  expect(lines.filter((line) => /custom rule [0-9a-f]{32} holds its conversion, taken over by a resource of this stack in an earlier run/.test(line))).toHaveLength(32);
  expect(lines.filter((line) => line.includes("the zone's other legacy rules were found converted in this run"))).toHaveLength(2 * 2);

  // Available: every create answered before the first legacy delete left, so the two overlap and no request is uncovered;
  // then the moved rules were deleted last-run first, each with its own filter (a single-call rule's carries its marker);
  // the shared filters (their FirewallFilters' markers are known only at their own deletes) went after them, each by its resource.
  const zoneLog = log.filter((entry) => entry.zoneId === zones.available);
  const creates = zoneLog.flatMap((entry, i) => (entry.method === 'POST' && entry.path.includes('/rulesets/') ? [i] : []));
  const deletes = zoneLog.flatMap((entry, i) => (entry.method === 'DELETE' && entry.path.includes('/firewall/rules/') ? [i] : []));
  const filterDeletes = zoneLog.flatMap((entry, i) => (entry.method === 'DELETE' && entry.path.includes('/filters/') ? [i] : []));
  expect([creates.length, deletes.length, filterDeletes.length]).toEqual([32, 32, 2]);
  expect(Math.max(...creates)).toBeLessThan(Math.min(...deletes));
  expect(Math.max(...deletes)).toBeLessThan(Math.min(...filterDeletes));
  const deleted = deletes.map((i) => zoneLog[i]!.path.split('/').at(-1));
  expect(deleted).toEqual(orderedIds(before.available.legacy.filter((rule) => !foreign(rule))).reverse());
  expect(text).toContain(`zoneguard: zone ${zones.available}: deleting the 32 firewall rule(s) this run moved to custom rules, the last to run first`);
  expect(legacyCalls(zones.available).filter((entry) => entry.status >= 400)).toEqual([]);

  // Nobody else's rule changed: the other stack's and the dashboard's legacy rules, and their custom rules.
  const fields = ({ id, action, expression, description, ref, enabled }: RulesetRule) => ({ id, action, expression, description, ref, enabled });
  for (const state of STATES) {
    const inventory = await sandbox.emulator.admin.inventory(zones[state]);
    const kept = before[state].legacy.filter(foreign);
    expect(kept).toHaveLength(4);
    expect(inventory.firewallRules).toEqual(state === 'available' ? kept : before[state].legacy);
    const after = await customRules(zones[state]);
    for (const rule of before[state].custom) expect(after.find((other) => other.id === rule.id)).toEqual(expect.objectContaining(fields(rule)));
    expect(after).toHaveLength(2 + 36 - (state === 'available' ? 4 : 0));
  }
});

test('after the move: preview and preview --refresh show no change', async () => {
  const preview = await previewDiff(stack);
  expect(changes(preview.summary)).toEqual({});
  expect(preview.summary.same).toBeGreaterThanOrEqual(97);
  const refreshed = await stack.preview({ refresh: true, color: 'never' });
  expect(changes(refreshed.changeSummary)).toEqual({});
});

test('protection: the custom rules after the move decide every request the plan tried as the legacy rules did, but for the plan\'s differences', async () => {
  for (const state of STATES) {
    const after = await customRules(zones[state]);
    // Which custom rule is which legacy rule: the plan's ids where converted; where created, the stack's rules in the order the move made them.
    const legacy = state === 'available' ? before[state].legacy.filter((rule) => !foreign(rule)) : before[state].legacy;
    const keyOf = new Map<string, string>();
    if (state === 'maintenance') for (const rule of plans[state].rules) keyOf.set(rule.customRuleId!, rule.legacyRuleId);
    if (state === 'retired') {
      // The retired zone's plan cannot read the legacy rules: its custom rules follow the two that were there, in the legacy order.
      orderedIds(legacy).forEach((id, i) => keyOf.set(after[2 + i]!.id!, id));
    }
    if (state === 'available') {
      const made = after.slice(2);
      orderedIds(legacy).forEach((id, i) => keyOf.set(made[i]!.id!, id));
    }
    const keyed = after.flatMap((rule) => (keyOf.has(rule.id!) ? [{ key: keyOf.get(rule.id!)!, rule }] : []));
    expect(keyed).toHaveLength(legacy.length);
    const result = checkEquivalence(legacy, keyed);
    const expected = checkEquivalence(legacy, legacyOrder(legacy).map((rule) => ({ key: rule.id, rule: convertedRule(rule) })));
    // The differences are exactly the conversion's: a rule on the paused filter that starts running.
    expect(result.differences.map((d) => describeRequest(d.request))).toEqual(expected.differences.map((d) => describeRequest(d.request)));
    expect(result.tried).toBeGreaterThan(100);
  }
});

/** A verdict's decision, from the words the plan describes it in (`block by <rule>`, `pass (allowed by <rule>)`). */
const decisionIn = (described: string) => described.split(/[ ;]/)[0];

test('protection between the steps: at every moment of the move, each zone decides every request of the plan as before, as after, or as the plan said', async () => {
  // The plan of the retired zone cannot read its legacy rules; the three zones hold rules of the same values, so the
  // available zone's plan, made before any change, names the differences its conversion brings.
  const named = (state: State) => new Map((plans[state === 'retired' ? 'available' : state].equivalence?.differences ?? []).map((d) => [d.request, { before: decisionIn(d.before), after: decisionIn(d.after) }]));
  const keyed = (rules: readonly RulesetRule[]) => rules.map((rule) => ({ key: rule.id ?? '', rule }));
  const decide = (moment: ZoneMoment) => zoneEvaluator({ legacyRuns: moment.legacyFirewall === 'available', legacy: moment.firewallRules, custom: keyed(moment.customRules) });
  for (const state of STATES) {
    const differences = named(state);
    expect(differences.size).toBeGreaterThan(0);
    const was = before[state];
    // The plan's requests: built from the legacy rules, then the phase as the conversion leaves it (its rules, then theirs).
    const requests = requestsOf([...was.legacy, ...was.custom, ...convertFirewallRules(was.legacy)].map((rule) => ('filter' in rule ? rule.filter.expression : rule.expression)));
    expect(requests.length).toBeGreaterThan(100);
    const decideBefore = zoneEvaluator({ legacyRuns: true, legacy: was.legacy, custom: keyed(was.custom) });
    const expected = requests.map((request) => decideBefore(request));
    const moments: ZoneMoment[] = await sandbox.emulator.admin.zoneHistory(zones[state]);
    // The start, then one moment per write of the move: the retired zone's 32 markers; the maintenance zone's 32; the available zone's 32 creates and 32 deletes.
    expect(moments.length).toBe(1 + 32 + (state === 'available' ? 32 : 0));
    const decisions = moments.map((moment) => requests.map(decide(moment)).map((verdict) => verdict.decision));
    const final = decisions.at(-1)!;
    const odd: string[] = [];
    const differing = decisions.map((at, m) =>
      requests.flatMap((request, i) => {
        if (at[i] === expected[i]!.decision) return [];
        const key = describeRequest(request);
        const plan = differences.get(key);
        const asPlanned = plan !== undefined && plan.before === expected[i]!.decision && plan.after === at[i];
        // Available: the move leaves another owner's legacy rules in place, running first, so where one of them decided
        // before, the zone's end is not the conversion's; every moment is then the start's or the end's decision.
        const decider = was.legacy.find((rule) => rule.id === expected[i]!.by);
        const kept = state === 'available' && at[i] === final[i] && (asPlanned || (decider !== undefined && foreign(decider)));
        if (!(state === 'available' ? kept : asPlanned)) odd.push(`after ${moments[m]!.after}: ${key}: ${expected[i]!.decision} -> ${at[i]}`);
        return [key];
      }),
    );
    // No moment decides a request otherwise than before, but as the plan said the conversion would (or, available, as the move ends).
    expect(odd).toEqual([]);
    // The plan's differences of decision (the others differ in what is logged or skipped only).
    const all = [...differences].flatMap(([key, plan]) => (plan.before !== plan.after && requests.some((request) => describeRequest(request) === key) ? [key] : [])).sort();
    // Converted before the move: exactly the plan's differences of decision, at every moment.
    if (state !== 'available') for (const keys of differing) expect(keys.sort()).toEqual(all);
    else expect(differing.at(-1)!.length).toBeGreaterThan(0);
  }
});
