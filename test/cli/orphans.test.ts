import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from '../../src/cli/commands/orphans';
import { KINDS } from '../../src/kinds';
import { MARKER_KEY, OWNER_KEY, ownerMarker } from '../../src/kinds/marker';
import { CUSTOM_PHASE, RATELIMIT_PHASE } from '../../src/schemas';
import { OBJECT_NOUN, kindsMaking, markerOf, matchesPending } from '../../src/insights/orphans';
import { EMPTY_ZONE, capture, useInsightEmulator, ran } from '../insights/helpers';

// `zoneguard orphans` against the emulator, with stack exports shaped as `pulumi stack export` writes them.
const h = useInsightEmulator();
const root = path.resolve(__dirname, '../..');
const TYPE = 'pulumi-nodejs:dynamic/zoneguard:';
const URN = 'urn:pulumi:dev::shop::';

let dir: string;
beforeAll(() => {
  fs.mkdirSync(path.join(root, '.zoneguard'), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, '.zoneguard', 'orphans-cli-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const declared = { description: 'login', action: 'log', expression: 'http.host eq "login.example"', enabled: true, value: "script-src 'self'" } as const;
let written = 0;
/** A stack export file holding `held` CSP policies and a pending create of `pending` (CspPolicy inputs), if any. */
function exportFile(held: Array<{ name: string; id: string }>, pending?: { name: string; inputs: Record<string, unknown> }): string {
  written += 1;
  const file = path.join(dir, `export-${written}.json`);
  const resource = (name: string) => ({ urn: `${URN}${TYPE}CspPolicy::${name}`, type: `${TYPE}CspPolicy` });
  const deployment = {
    manifest: { time: '2026-11-23T09:00:00Z' },
    resources: [
      { urn: `${URN}pulumi:pulumi:Stack::shop-dev`, type: 'pulumi:pulumi:Stack' },
      ...held.map(({ name, id }) => ({ ...resource(name), id, inputs: { zoneId: EMPTY_ZONE, ...declared }, outputs: { zoneId: EMPTY_ZONE, ...declared, policyId: id } })),
    ],
    ...(pending ? { pending_operations: [{ type: 'creating', resource: { ...resource(pending.name), inputs: { zoneId: EMPTY_ZONE, ...pending.inputs } } }] } : {}),
  };
  fs.writeFileSync(file, JSON.stringify({ version: 3, deployment }));
  return file;
}

async function zone() {
  const policies = await h.client.cspPolicies.list({ zoneId: EMPTY_ZONE }).toArray();
  const rules = await h.client.firewallRules.list({ zoneId: EMPTY_ZONE }).toArray();
  return { policies: policies.map((p) => p.id).sort(), rules: rules.map((r) => r.id).sort() };
}

/** The zone as an interrupted up leaves it: `held` in the state, `lost` made by the killed create, `hand` made by hand. */
async function interruptedZone() {
  const held = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared });
  const lost = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: 'checkout' });
  const [hand] = await h.client.firewallRules.create({ zoneId: EMPTY_ZONE, rules: [{ filter: { expression: 'ip.src eq 192.0.2.9' }, action: 'block' }] });
  const file = exportFile([{ name: 'login', id: held.id }], { name: 'checkout', inputs: { ...declared, description: 'checkout' } });
  return { held: held.id, lost: lost.id, hand: hand!.id, file };
}

test('lists what no resource holds, marks the pending create it matches, and only reads', async () => {
  const { held, lost, hand, file } = await interruptedZone();
  await h.emulator.admin.clearRequests();
  const c = capture();
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], c.io)).toBe(0);
  expect(c.stderr()).toBe('');
  expect(c.stdout()).toBe(
    `policy ${lost}  "checkout" log when http.host eq "login.example"  pending create of ${URN}${TYPE}CspPolicy::checkout\n` +
      `  to adopt it instead: adoptPolicyId: '${lost}' on ${URN}${TYPE}CspPolicy::checkout\n` +
      `firewall rule ${hand}  block when ip.src eq 192.0.2.9  unmarked\n` +
      'nothing deleted (read only): --delete-pending deletes what matches a pending create, --delete <id> what you name\n',
  );
  expect((await h.emulator.admin.requests()).every((r) => r.method === 'GET')).toBe(true);
  expect(await zone()).toEqual({ policies: [held, lost].sort(), rules: [hand] });
});

test('--delete-pending deletes the one object of the pending create, and nothing else', async () => {
  const { held, lost, hand, file } = await interruptedZone();
  const c = capture();
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], c.io)).toBe(0);
  expect(c.stdout()).toContain(`deleted policy ${lost}\n`);
  expect(await zone()).toEqual({ policies: [held], rules: [hand] });
});

test('--delete-pending with two identical candidates (another stack not passed in) deletes none and says what to do', async () => {
  const { held, lost, hand, file } = await interruptedZone();
  const twin = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: 'checkout' });
  const c = capture();
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], c.io)).toBe(2);
  expect(c.stderr()).toContain(
    `zoneguard orphans: ${URN}${TYPE}CspPolicy::checkout: 2 objects match its pending create (${lost}, ${twin.id}); none deleted. ` +
      'Pass the export of every stack on this zone, or delete the right one with --delete <id>\n',
  );
  expect(await zone()).toEqual({ policies: [held, lost, twin.id].sort(), rules: [hand] });

  // With the other stack's export too, the twin is held, and the lost one is the only match.
  const other = exportFile([{ name: 'checkout', id: twin.id }]);
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, other, '--delete-pending', ...h.flags()], capture().io)).toBe(0);
  expect(await zone()).toEqual({ policies: [held, twin.id].sort(), rules: [hand] });
});

test('--delete deletes the named orphans (a rule with its filter); an id a resource holds is refused before any request', async () => {
  const { held, lost, hand, file } = await interruptedZone();
  await h.emulator.admin.clearRequests();
  const refused = capture();
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', held, ...h.flags()], refused.io)).toBe(2);
  expect(refused.stderr()).toBe(`zoneguard orphans: error: --delete ${held}: held by a resource of the given stacks; nothing deleted\n`);
  expect(await h.emulator.admin.requests()).toEqual([]);

  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', hand, ...h.flags()], capture().io)).toBe(0);
  expect(await zone()).toEqual({ policies: [held, lost].sort(), rules: [] });
  expect((await h.emulator.admin.inventory(EMPTY_ZONE)).filters).toEqual([]);
});

test('a custom rule no resource holds is listed with its phase and the pending CustomRule create it matches; --delete-pending deletes it from its entry point', async () => {
  const expression = 'ip.src eq 192.0.2.77';
  const saved = await h.client.rulesets.updateEntrypoint({ zoneId: EMPTY_ZONE, phase: CUSTOM_PHASE, ruleset: { name: 'custom', rules: [{ action: 'block', expression, description: 'made, never recorded' }] } });
  const id = saved.rules[0]!.id!;
  const urn = `${URN}${TYPE}CustomRule::blocked`;
  const file = path.join(dir, 'export-custom-rule.json');
  const resource = { urn, type: `${TYPE}CustomRule`, inputs: { zoneId: EMPTY_ZONE, action: 'block', expression } };
  fs.writeFileSync(file, JSON.stringify({ version: 3, deployment: { resources: [], pending_operations: [{ type: 'creating', resource }] } }));
  const listed = capture();
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], listed.io)).toBe(0);
  expect(listed.stdout()).toContain(`ruleset rule ${id}  ${CUSTOM_PHASE}: block when ${expression}  pending create of ${urn}\n  to adopt it instead: adoptRuleId: '${id}' on ${urn}\n`);
  const deleted = capture();
  expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], deleted.io)).toBe(0);
  expect(deleted.stdout()).toContain(`deleted ruleset rule ${id}\n`);
  expect((await h.client.rulesets.getEntrypoint({ zoneId: EMPTY_ZONE, phase: CUSTOM_PHASE })).rules).toEqual([]);
});

test('a file that is not a stack export: exit 2, one line', async () => {
  const file = path.join(dir, 'not-an-export.json');
  fs.writeFileSync(file, JSON.stringify({ resources: [] }));
  expect(await ran(run, ['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()])).toMatchObject({ code: 2, stderr: `zoneguard orphans: error: ${file} is not a pulumi stack export: deployment: is required\n` });
});

/** A stack export file holding the given resources (any kind), as `pulumi stack export` writes them. */
function exportOf(resources: Array<{ kind: string; name: string; id: string; zoneId?: unknown; outputs?: Record<string, unknown> }>, pending: Array<{ kind: string; name: string; inputs: Record<string, unknown> }> = []): string {
  written += 1;
  const file = path.join(dir, `export-${written}.json`);
  const state = (kind: string, name: string) => ({ urn: `${URN}${TYPE}${kind}::${name}`, type: `${TYPE}${kind}` });
  const deployment = {
    resources: resources.map(({ kind, name, id, zoneId = EMPTY_ZONE, outputs = {} }) => ({ ...state(kind, name), id, inputs: { zoneId }, outputs: { zoneId, ...outputs } })),
    pending_operations: pending.map(({ kind, name, inputs }) => ({ type: 'creating', resource: { ...state(kind, name), inputs: { zoneId: EMPTY_ZONE, ...inputs } } })),
  };
  fs.writeFileSync(file, JSON.stringify({ version: 3, deployment }));
  return file;
}

describe('every kind of the registry', () => {
  test('a filter no resource holds and no rule uses is listed; one a FirewallFilter holds, or a held rule uses, is not', async () => {
    const [loose, kept, shared] = await h.client.filters.create({
      zoneId: EMPTY_ZONE,
      filters: [{ expression: 'ip.src eq 192.0.2.20' }, { expression: 'ip.src eq 192.0.2.21' }, { expression: 'ip.src eq 192.0.2.22' }],
    });
    const [rule] = await h.client.firewallRules.create({ zoneId: EMPTY_ZONE, rules: [{ filter: { id: shared!.id }, action: 'block' }] });
    const file = exportOf([
      { kind: 'FirewallFilter', name: 'kept', id: kept!.id },
      { kind: 'FirewallRule', name: 'rule', id: rule!.id, outputs: { filterId: shared!.id } },
    ]);
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      `filter ${loose!.id}  "" ip.src eq 192.0.2.20  unmarked\n` +
        'nothing deleted (read only): --delete-pending deletes what matches a pending create, --delete <id> what you name\n',
    );
  });

  test('a two-call rule left by a pending FirewallRule create is offered for adoption on that FirewallRule, and --delete keeps the filter a FirewallFilter holds', async () => {
    const [filter] = await h.client.filters.create({ zoneId: EMPTY_ZONE, filters: [{ expression: 'ip.src eq 192.0.2.30' }] });
    const [lost] = await h.client.firewallRules.create({ zoneId: EMPTY_ZONE, rules: [{ filter: { id: filter!.id }, action: 'block' }] });
    const file = exportOf([{ kind: 'FirewallFilter', name: 'filter', id: filter!.id }], [{ kind: 'FirewallRule', name: 'block', inputs: { filterId: filter!.id, action: 'block' } }]);
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toContain(
      `firewall rule ${lost!.id}  block when ip.src eq 192.0.2.30  pending create of ${URN}${TYPE}FirewallRule::block\n` +
        `  to adopt it instead: adoptRuleId: '${lost!.id}' on ${URN}${TYPE}FirewallRule::block\n`,
    );
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], capture().io)).toBe(0);
    expect(await h.client.firewallRules.list({ zoneId: EMPTY_ZONE }).toArray()).toEqual([]);
    expect((await h.client.filters.list({ zoneId: EMPTY_ZONE }).toArray()).map((f) => f.id)).toEqual([filter!.id]);
  });

  test('a resource whose zoneId is a secret counts as held in this zone: its policy is never listed nor deleted', async () => {
    const policy = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared });
    const secret = { '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', ciphertext: 'v1:abc' };
    const file = exportOf([{ kind: 'CspPolicy', name: 'login', id: policy.id, zoneId: secret }]);
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', policy.id, ...h.flags()], c.io)).toBe(2);
    expect(c.stderr()).toBe(`zoneguard orphans: error: --delete ${policy.id}: held by a resource of the given stacks; nothing deleted\n`);
    expect((await zone()).policies).toEqual([policy.id]);
  });

  test('an export that holds nothing of the zone (its resources all of another zone, or none at all) is an error before any request', async () => {
    await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared });
    const elsewhere = exportOf([{ kind: 'CspPolicy', name: 'elsewhere', id: 'd'.repeat(32), zoneId: 'e'.repeat(32) }]);
    const empty = exportOf([]);
    await h.emulator.admin.clearRequests();
    for (const file of [elsewhere, empty]) {
      const c = capture();
      expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], c.io)).toBe(2);
      expect(c.stderr()).toBe(
        `zoneguard orphans: error: ${file}: holds no zoneguard resource of zone ${EMPTY_ZONE}, pending creates included; pass the export of each stack that manages ` +
          'this zone (pulumi stack export --stack <name>), and after a first pulumi up that recorded nothing, run pulumi up again first\n',
      );
    }
    expect(await h.emulator.admin.requests()).toEqual([]);
  });

  test('text from the service is printed with control, bidirectional and zero-width characters escaped', async () => {
    const held = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared });
    const [rule] = await h.client.firewallRules.create({ zoneId: EMPTY_ZONE, rules: [{ filter: { expression: 'http.host eq "a\u202Eb"' }, action: 'block', description: 'x' }] });
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', exportOf([{ kind: 'CspPolicy', name: 'login', id: held.id }]), ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toContain(`firewall rule ${rule!.id}  block when http.host eq "a\\u{202E}b"  unmarked\n`);
  });
});

// What the owner marker on each object says (docs/ownership.md): markers as the resource classes make them.
describe('owner markers', () => {
  const mark = (stack: string, kind: string, name: string) => ownerMarker({ ownerId: 'test-owner', project: 'shop', stack, parent: '', kind, name });
  /** A marked resource of the export: its state records the marker it wrote, as the providers' outputs do. */
  const marked = (kind: string, name: string, id: string, extra: Record<string, unknown> = {}) => ({ kind, name, id, outputs: { [MARKER_KEY]: mark('dev', kind, name), ...extra } });
  const ONLY_READS = 'nothing deleted (read only): --delete-pending deletes what matches a pending create, --delete <id> what you name\n';
  const ANOTHER_OWNER =
    'an object marked by another owner is never deleted: pulumi stack export --stack <name> shows its marker (__zoneguardMarker) in the stack that holds it; pass that export too\n';
  const policies = async () => (await h.client.cspPolicies.list({ zoneId: EMPTY_ZONE }).toArray()).map((p) => p.id).sort();

  test("another stack's identically declared policy, marked by it, is listed as another owner's and deleted by neither --delete-pending nor --delete", async () => {
    const login = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: `login ${mark('dev', 'CspPolicy', 'login')}` });
    const lost = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: `checkout ${mark('dev', 'CspPolicy', 'checkout')}` });
    const prods = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: `checkout ${mark('prod', 'CspPolicy', 'checkout')}` });
    const checkout = { kind: 'CspPolicy', name: 'checkout', inputs: { ...declared, description: 'checkout', [OWNER_KEY]: mark('dev', 'CspPolicy', 'checkout') } };
    const file = exportOf([marked('CspPolicy', 'login', login.id)], [checkout]);
    const pendingUrn = `${URN}${TYPE}CspPolicy::checkout`;

    const listed = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], listed.io)).toBe(0);
    expect(listed.stdout()).toBe(
      `policy ${lost.id}  "checkout" log when http.host eq "login.example"  pending create of ${pendingUrn}\n` +
        `  to adopt it instead: adoptPolicyId: '${lost.id}' on ${pendingUrn}\n` +
        `policy ${prods.id}  "checkout" log when http.host eq "login.example"  marked ${mark('prod', 'CspPolicy', 'checkout')} by another owner: never deleted\n` +
        ANOTHER_OWNER +
        ONLY_READS,
    );

    await h.emulator.admin.clearRequests();
    const refused = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', prods.id, ...h.flags()], refused.io)).toBe(2);
    expect(refused.stderr()).toBe(
      `zoneguard orphans: error: --delete ${prods.id} (marked ${mark('prod', 'CspPolicy', 'checkout')}): marked by another owner, which no given export records; nothing deleted. ` +
        "zoneguard orphans never deletes another owner's object: pass the export of the stack that holds it (pulumi stack export shows the marker as __zoneguardMarker)\n",
    );
    expect((await h.emulator.admin.requests()).every((r) => r.method === 'GET')).toBe(true);

    const cleaned = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], cleaned.io)).toBe(0);
    expect(cleaned.stdout()).toContain(`deleted policy ${lost.id}\n`);
    expect(await policies()).toEqual([login.id, prods.id].sort());
  });

  test('an unmarked object, and one marked by a resource of the export that holds another (its create lost its answer), are listed as such and deleted by --delete', async () => {
    const login = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: `login ${mark('dev', 'CspPolicy', 'login')}` });
    const leftover = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: `login ${mark('dev', 'CspPolicy', 'login')}` });
    const hand = await h.client.cspPolicies.create({ zoneId: EMPTY_ZONE, ...declared, description: 'by hand' });
    const file = exportOf([marked('CspPolicy', 'login', login.id)]);
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      `policy ${leftover.id}  "login" log when http.host eq "login.example"  marked ${mark('dev', 'CspPolicy', 'login')} by ${URN}${TYPE}CspPolicy::login, which does not hold it\n` +
        `policy ${hand.id}  "by hand" log when http.host eq "login.example"  unmarked\n` +
        ONLY_READS,
    );
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', leftover.id, hand.id, ...h.flags()], capture().io)).toBe(0);
    expect(await policies()).toEqual([login.id]);
  });

  test("a two-call orphan rule goes with its filter when both are the stack's; a rule on another owner's filter is deleted without it, saying why", async () => {
    const [heldFilter, lostFilter, prodFilter] = await h.client.filters.create({
      zoneId: EMPTY_ZONE,
      filters: [
        { expression: 'ip.src eq 192.0.2.40', ref: mark('dev', 'FirewallFilter', 'office') },
        { expression: 'ip.src eq 192.0.2.41', ref: mark('dev', 'FirewallFilter', 'office') },
        { expression: 'ip.src eq 192.0.2.42', ref: mark('prod', 'FirewallFilter', 'office') },
      ],
    });
    const [heldRule, lostRule, handRule] = await h.client.firewallRules.create({
      zoneId: EMPTY_ZONE,
      rules: [
        { filter: { id: heldFilter!.id }, action: 'block', ref: mark('dev', 'FirewallRule', 'office') },
        { filter: { id: lostFilter!.id }, action: 'block', ref: mark('dev', 'FirewallRule', 'office') },
        { filter: { id: prodFilter!.id }, action: 'log' },
      ],
    });
    const file = exportOf([marked('FirewallFilter', 'office', heldFilter!.id), marked('FirewallRule', 'office', heldRule!.id, { filterId: heldFilter!.id })]);
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      `firewall rule ${lostRule!.id}  block when ip.src eq 192.0.2.41  marked ${mark('dev', 'FirewallRule', 'office')} by ${URN}${TYPE}FirewallRule::office, which does not hold it\n` +
        `firewall rule ${handRule!.id}  log when ip.src eq 192.0.2.42  unmarked\n` +
        ONLY_READS,
    );
    const deleted = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', lostRule!.id, handRule!.id, ...h.flags()], deleted.io)).toBe(0);
    expect(deleted.stdout()).toContain(
      `deleted firewall rule ${lostRule!.id}\n` + `deleted firewall rule ${handRule!.id} (its filter ${prodFilter!.id} stays: marked ${mark('prod', 'FirewallFilter', 'office')} by another owner)\n`,
    );
    expect((await h.client.firewallRules.list({ zoneId: EMPTY_ZONE }).toArray()).map((r) => r.id)).toEqual([heldRule!.id]);
    expect((await h.client.filters.list({ zoneId: EMPTY_ZONE }).toArray()).map((f) => f.id).sort()).toEqual([heldFilter!.id, prodFilter!.id].sort());
  });

  test('an object a pending create adopts (with takeOver, its marker already moved) is held by that create: neither listed nor deleted', async () => {
    const [filter] = await h.client.filters.create({ zoneId: EMPTY_ZONE, filters: [{ expression: 'ip.src eq 192.0.2.50', ref: mark('dev', 'FirewallFilter', 'office') }] });
    const [rule] = await h.client.firewallRules.create({ zoneId: EMPTY_ZONE, rules: [{ filter: { id: filter!.id }, action: 'block', ref: mark('dev', 'FirewallRule', 'office') }] });
    const adopting = { kind: 'FirewallRule', name: 'office', inputs: { filterId: filter!.id, action: 'block', adoptRuleId: rule!.id, takeOver: true, [OWNER_KEY]: mark('dev', 'FirewallRule', 'office') } };
    const file = exportOf([marked('FirewallFilter', 'office', filter!.id)], [adopting]);
    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(`zone ${EMPTY_ZONE}: every policy, firewall rule, filter and ruleset rule is held by a resource of the given stacks\n`);
    expect((await h.client.firewallRules.list({ zoneId: EMPTY_ZONE }).toArray()).map((r) => r.id)).toEqual([rule!.id]);
  });

  test('custom and rate limiting rules: listed with their markers, the pending create deleted by --delete-pending, the unmarked one by --delete, the other owner\'s never', async () => {
    const expression = (path: string) => `(http.request.uri.path eq "/${path}")`;
    const custom = await h.client.rulesets.updateEntrypoint({
      zoneId: EMPTY_ZONE,
      phase: CUSTOM_PHASE,
      ruleset: {
        name: 'default',
        rules: [
          { action: 'block', expression: expression('held'), ref: `held ${mark('dev', 'CustomRule', 'held')}` },
          { action: 'block', expression: expression('lost'), ref: mark('dev', 'CustomRule', 'lost') },
          { action: 'log', expression: expression('prod'), ref: mark('prod', 'CustomRule', 'lost') },
        ],
      },
    });
    const limited = await h.client.rulesets.updateEntrypoint({
      zoneId: EMPTY_ZONE,
      phase: RATELIMIT_PHASE,
      ruleset: {
        name: 'default',
        rules: [{ action: 'block', expression: expression('login'), ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 10, mitigation_timeout: 600 } }],
      },
    });
    const [held, lost, prods] = custom.rules.map((rule) => rule.id!);
    const hand = limited.rules[0]!.id!;
    const lostCreate = { kind: 'CustomRule', name: 'lost', inputs: { action: 'block', expression: expression('lost'), [OWNER_KEY]: mark('dev', 'CustomRule', 'lost') } };
    const file = exportOf([marked('CustomRule', 'held', held!, { rulesetId: custom.id })], [lostCreate]);
    const pendingUrn = `${URN}${TYPE}CustomRule::lost`;

    const c = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      `ruleset rule ${lost}  ${CUSTOM_PHASE}: block when ${expression('lost')}  pending create of ${pendingUrn}\n` +
        `  to adopt it instead: adoptRuleId: '${lost}' on ${pendingUrn}\n` +
        `ruleset rule ${prods}  ${CUSTOM_PHASE}: log when ${expression('prod')}  marked ${mark('prod', 'CustomRule', 'lost')} by another owner: never deleted\n` +
        `ruleset rule ${hand}  ${RATELIMIT_PHASE}: block when ${expression('login')}  unmarked\n` +
        ANOTHER_OWNER +
        ONLY_READS,
    );
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete', prods!, ...h.flags()], capture().io)).toBe(2);
    const cleaned = capture();
    expect(await run(['--zone', EMPTY_ZONE, '--stack-export', file, '--delete-pending', '--delete', hand, ...h.flags()], cleaned.io)).toBe(0);
    expect(cleaned.stdout()).toContain(`deleted ruleset rule ${lost}\ndeleted ruleset rule ${hand}\n`);
    const rulesOf = async (phase: typeof CUSTOM_PHASE | typeof RATELIMIT_PHASE) => (await h.client.rulesets.getEntrypoint({ zoneId: EMPTY_ZONE, phase })).rules.map((rule) => rule.id);
    expect(await rulesOf(CUSTOM_PHASE)).toEqual([held, prods]);
    expect(await rulesOf(RATELIMIT_PHASE)).toEqual([]);
  });
});

describe('matchesPending', () => {
  const policy = { id: 'a'.repeat(32), ...declared };
  const rule = { id: 'b'.repeat(32), action: 'block', paused: false, filter: { id: 'c'.repeat(32), expression: 'ip.src eq 192.0.2.9', paused: false } };
  const custom = { id: 'd'.repeat(32), phase: CUSTOM_PHASE, rulesetId: 'e'.repeat(32), action: 'block', expression: 'ip.src eq 192.0.2.9' };
  test.each<[string, 'CspPolicy' | 'FirewallRuleWithFilter' | 'CustomRule' | 'RateLimitRule', object, Record<string, unknown>, boolean]>([
    ['a custom rule as a CustomRule declared it', 'CustomRule', custom, { action: 'block', expression: 'ip.src eq 192.0.2.9' }, true],
    ['the same custom rule for a RateLimitRule of the same action and expression: another phase', 'RateLimitRule', custom, { action: 'block', expression: 'ip.src eq 192.0.2.9' }, false],
    ['a rate limiting rule for a RateLimitRule', 'RateLimitRule', { ...custom, phase: RATELIMIT_PHASE }, { action: 'block', expression: 'ip.src eq 192.0.2.9' }, true],
    ['a policy with every field as declared', 'CspPolicy', policy, { ...declared }, true],
    ['a policy differing in one field', 'CspPolicy', policy, { ...declared, enabled: false }, false],
    ['a rule on the declared expression', 'FirewallRuleWithFilter', rule, { expression: 'ip.src eq 192.0.2.9', action: 'log' }, true],
    ['a rule on another expression', 'FirewallRuleWithFilter', rule, { expression: 'ip.src eq 192.0.2.10' }, false],
  ])('%s: %p', (_case, kind, object, inputs, expected) => {
    expect(matchesPending(kind, object as never, inputs)).toBe(expected);
  });
});

// What orphans knows of a kind comes from its declaration (src/kinds): a kind of many objects it could not list, or
// whose pending create it could not recognise, would leave what an interrupted up made of it unseen.
const manyPerZone = KINDS.filter((declaration) => declaration.identity.scope === 'object');

describe.each(manyPerZone.map((declaration) => [declaration.kind, declaration] as const))(
  '%s, a kind of many objects per zone',
  (kind, declaration) => {
    test('its objects are of a type orphans lists, and it is among the kinds that make them', () => {
      expect(Object.keys(OBJECT_NOUN)).toContain(declaration.identity.object);
      expect(kindsMaking(declaration.identity.object as keyof typeof OBJECT_NOUN)).toContain(kind);
    });

    test('the owner marker of its objects is read from the field its declaration names', () => {
      const object = declaration.identity.object as keyof typeof OBJECT_NOUN;
      expect(markerOf(object, { id: 'a'.repeat(32), [declaration.identity.marker]: 'own text zg:0123456789' } as never)).toBe('zg:0123456789');
    });

    test('its declaration says how its pending create is recognised, by inputs of its field table', () => {
      const inputs = declaration.fields.map((field) => field.input);
      expect(declaration.createdWith?.length).toBeGreaterThan(0);
      expect(declaration.createdWith!.filter((input) => !(inputs as string[]).includes(input))).toEqual([]);
    });
  },
);
