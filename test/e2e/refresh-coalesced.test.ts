import { isDeepStrictEqual } from 'node:util';
import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { ZoneGuardClient } from '../../src/client';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { holdsServiceObject, openSandbox, type EngineSandbox } from './harness';
import { testClient } from '../support/emulator';

// Coalesced refresh reads (docs/many-stacks.md, "A refresh costs fewer calls too") through the real engine: two identical stacks in
// two zones that each hold more firewall rules and filters than one list page, the same drift made out of band in
// both, one refreshed as the engine runs by default (reads a few at a time, coalesced) and one with --parallel 1
// (every read alone in its window: one GET each, the single reads of before). Same result per resource, fewer calls.
jest.setTimeout(400_000);

/** Rules (each with its filter) of each zone made outside the stacks: with the stacks' own, two pages of 100. */
const OTHERS = 120;
const RULES = 8;
const POLICIES = 4;

let sandbox: EngineSandbox;
let client: ZoneGuardClient;

interface Zone {
  zoneId: string;
  stack: Stack;
}
const zones: Record<'coalesced' | 'single', Zone> = {} as never;

function program(zoneId: string) {
  return async () => {
    for (let n = 0; n < RULES; n++) {
      new FirewallRuleWithFilter(`rule-${n}`, { zoneId, expression: `http.host eq "r${n}.example.com"`, action: 'block', description: `rule ${n}` });
    }
    const shared = new FirewallFilter('shared', { zoneId, expression: 'http.request.uri.path contains "/admin"', description: 'admin paths' });
    for (let n = 0; n < 2; n++) new FirewallRule(`on-shared-${n}`, { zoneId, filterId: shared.id, action: 'challenge', description: `on shared ${n}` });
    for (let n = 0; n < POLICIES; n++) {
      new CspPolicy(`policy-${n}`, { zoneId, action: 'log', expression: `http.host eq "p${n}.example.com"`, value: "script-src 'self'", description: `policy ${n}` });
    }
    return {};
  };
}
const RESOURCES = RULES + 1 + 2 + POLICIES;

type StateResource = { urn: string; type: string; id?: string; outputs?: Record<string, unknown> };
const nameOf = (urn: string) => urn.split('::').at(-1)!;

/** The stack's zoneguard resources by name: their id and outputs. */
async function stateOf(stack: Stack): Promise<Map<string, { id: string; outputs: Record<string, unknown> }>> {
  const { deployment } = await stack.exportStack();
  const resources = (deployment as { resources: StateResource[] }).resources.filter(holdsServiceObject);
  return new Map(resources.map((r) => [nameOf(r.urn), { id: r.id!, outputs: r.outputs! }]));
}

/** The same drift in a zone: per kind one object changed, one deleted (a filter only changed), the others untouched. */
async function drift(zoneId: string, state: Awaited<ReturnType<typeof stateOf>>): Promise<void> {
  const id = (name: string) => state.get(name)!.id;
  const rule2 = state.get('rule-2')!;
  await client.firewallRules.update({ zoneId, ruleId: rule2.id, filter: { id: String(rule2.outputs.filterId) }, action: 'log', paused: true, priority: null, description: 'changed by hand', ref: '' });
  await client.firewallRules.delete({ zoneId, ruleId: id('rule-5'), deleteFilterIfUnused: true });
  const onShared = state.get('on-shared-1')!;
  await client.firewallRules.update({ zoneId, ruleId: onShared.id, filter: { id: String(onShared.outputs.filterId) }, action: 'log', paused: false, priority: null, description: 'on shared 1', ref: '' });
  await client.filters.update({ zoneId, filterId: id('shared'), expression: 'http.request.uri.path contains "/admin"', paused: false, description: 'renamed by hand', ref: '' });
  await client.cspPolicies.update({ zoneId, policyId: id('policy-1'), enabled: false });
  await client.cspPolicies.delete({ zoneId, policyId: id('policy-3') });
}

const EXPECTED_OPS: Record<string, string> = {
  'rule-2': 'update',
  'rule-5': 'delete',
  'on-shared-1': 'update',
  shared: 'update',
  'policy-1': 'update',
  'policy-3': 'delete',
};

beforeAll(async () => {
  sandbox = await openSandbox('refresh-coalesced');
  client = testClient(sandbox.emulator);
  for (const name of ['coalesced', 'single'] as const) {
    const zone = await sandbox.emulator.admin.seedZone({
      name: `${name}.example`,
      plan: 'enterprise',
      ruleQuota: 1000,
      firewallRules: Array.from({ length: OTHERS }, (_, n) => ({ expression: `ip.src eq 192.0.2.${n}`, action: 'log' as const })),
    });
    zones[name] = { zoneId: zone.id, stack: await sandbox.stack(name, program(zone.id)) };
  }
});
afterAll(() => sandbox?.close());

test('a coalesced refresh finds the drift single reads find, per resource, in a fraction of the calls', async () => {
  const results: Record<string, { ops: Record<string, string>; before: Awaited<ReturnType<typeof stateOf>>; after: Awaited<ReturnType<typeof stateOf>>; calls: string[] }> = {};
  for (const [name, parallel] of [['coalesced', undefined], ['single', 1]] as const) {
    const { zoneId, stack } = zones[name];
    await stack.up({ color: 'never' });
    const before = await stateOf(stack);
    expect(before.size).toBe(RESOURCES);
    await drift(zoneId, before);

    const ops: Record<string, string> = {};
    const onEvent = (event: EngineEvent) => {
      const meta = event.resOutputsEvent?.metadata;
      if (meta && holdsServiceObject(meta)) ops[nameOf(meta.urn)] = meta.op;
    };
    await sandbox.emulator.admin.clearRequests();
    await stack.refresh({ color: 'never', onEvent, ...(parallel ? { parallel } : {}) });
    const calls = (await sandbox.emulator.admin.requests()).map((r) => `${r.method} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]+/, '').replace(/\?.*$/, '')}`);
    results[name] = { ops, before, after: await stateOf(stack), calls };
  }
  const { coalesced, single } = results as Required<typeof results>;
  console.log(`coalesced refresh: ${coalesced!.calls.length} calls: ${coalesced!.calls.join(', ')}`);

  // The refresh's result per resource: the same with coalesced and single reads, and the drift that was made.
  const expected = Object.fromEntries([...coalesced!.before.keys()].map((name) => [name, EXPECTED_OPS[name] ?? 'same']));
  expect(coalesced!.ops).toEqual(expected);
  expect(single!.ops).toEqual(expected);
  for (const { before, after } of [coalesced!, single!]) {
    expect([...after.keys()].sort()).toEqual([...before.keys()].filter((name) => !['rule-5', 'policy-3'].includes(name)).sort());
    // Outputs changed exactly where drift was made.
    const changed = [...after].map(([name, resource]) => [name, !isDeepStrictEqual(resource.outputs, before.get(name)!.outputs)]);
    expect(Object.fromEntries(changed)).toEqual(Object.fromEntries([...after.keys()].map((name) => [name, Boolean(EXPECTED_OPS[name])])));
    expect(after.get('rule-2')!.outputs).toMatchObject({ action: 'log', paused: true, description: 'changed by hand' });
    expect(after.get('on-shared-1')!.outputs).toMatchObject({ action: 'log' });
    expect(after.get('shared')!.outputs).toMatchObject({ description: 'renamed by hand' });
    expect(after.get('policy-1')!.outputs).toMatchObject({ enabled: false });
  }

  // The calls: single reads are one GET per resource; coalesced, a walk of each list and GETs of what it did not show.
  expect(single!.calls).toHaveLength(RESOURCES);
  expect(single!.calls.every((call) => /^GET \/(firewall\/rules|filters|page_guard\/policies)\/[0-9a-f]{32}$/.test(call))).toBe(true);
  const deleted = ['rule-5', 'policy-3'].map((name) => coalesced!.before.get(name)!.id);
  for (const id of deleted) expect(coalesced!.calls.some((call) => call.endsWith(`/${id}`))).toBe(true);
  // A walk of each list answers the reads that reach it within a second of its last answers (kit/coalesce.ts); on a
  // quiet machine that is every read here (6 calls, this file run alone under the engine lock). The engine
  // sends its reads as its steps come, so under load some reach the provider later and are read alone: 10 calls in a
  // fresh-clone run of the whole suite, two files at a time. Fewer calls than single reads, and a walk, either way.
  expect(coalesced!.calls).toContain('GET /firewall/rules');
  expect(coalesced!.calls.length).toBeLessThan(single!.calls.length);
});
