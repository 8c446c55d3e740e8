import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { ZoneGuardClient } from '../../src/client';
import { WafManagedRules, rulesFromRuleset, type WafManagedRuleArgs } from '../../src/resources/waf-managed-rules';
import { WafMigration, planWafMigration } from '../../src/resources/waf-migration';
import { declaredOf } from '../../src/rulesets';
import { openSandbox, type EngineSandbox } from './harness';
import { testClient, writesOf, zoneOfPlan } from '../support/emulator';

// The real engine against the emulator: a Pro zone migrated directly by WafMigration, then WafManagedRules in the
// same program (dependsOn the migration) taking the migrated entry point over with zero writes; then one change at a
// time (an exception added, a category override changed, two rules reordered, one removed), each previewed as exactly
// that rule, applied, and followed by a clean preview; drift made through the service API found by refresh and
// undone by up; destroy putting back what create recorded.
jest.setTimeout(300_000);

const TYPE = 'pulumi-nodejs:dynamic/zoneguard:WafManagedRules';
const ENTRYPOINT = '/rulesets/phases/http_request_firewall_managed/entrypoint';
// The emulator migrates at once (migrationDelayMs 0): a short poll keeps each run quick.
const wait = { timeoutSeconds: 60, pollIntervalSeconds: 1 };

const OFFICE: WafManagedRuleArgs = { ref: 'office', description: 'Office network', expression: 'ip.src in {192.0.2.0/24}', skip: { ruleset: 'current' } };

let sandbox: EngineSandbox;
let client: ZoneGuardClient;
let stack: Stack;
let zoneId: string;
// What the migration submits, read before it: planWafMigration's converted ruleset as the starting rules.
let MIGRATED: WafManagedRuleArgs[];
// The program reads this, so each step declares a new desired state.
let rules: WafManagedRuleArgs[];

beforeAll(async () => {
  sandbox = await openSandbox('waf-managed-rules');
  zoneId = zoneOfPlan(sandbox.emulator, 'pro');
  client = testClient(sandbox.emulator);
  // A JSON copy: the client parses outside jest's sandbox, and pulumi.output does not take an array of another realm
  // for an array (test/providers/waf-managed-rules.test.ts has the same copy); a program has one realm.
  rules = MIGRATED = JSON.parse(JSON.stringify(rulesFromRuleset((await planWafMigration({ zoneId, client })).ruleset!))) as WafManagedRuleArgs[];
  stack = await sandbox.stack('store', async () => {
    const migration = new WafMigration('store-waf', { zoneId, mode: 'direct', wait });
    const managed = new WafManagedRules('store-waf-rules', { zoneId, rules }, { dependsOn: [migration] });
    return { order: managed.order, ruleIds: managed.ruleIds };
  });
});
afterAll(() => sandbox?.close());

/**
 * The writes the emulator saw since the last clear, as `METHOD path-after-the-zone?query`. A dry run saves nothing
 * and is no write: every diff of a change sends one (the engine diffs in preview, up and refresh alike), counted
 * apart by dryRuns.
 */
const writes = () => writesOf(sandbox.emulator, { path: 'belowZone', dryRuns: 'leftOut', query: true });

/** The dry runs the emulator saw since the last clear. */
async function dryRuns(): Promise<string[]> {
  return (await sandbox.emulator.admin.requests()).filter((r) => r.query.dry_run === 'true').map((r) => `${r.method} ${r.path.replace(/^.*\/zones\/[0-9a-f]+/, '')}`);
}

/**
 * What `preview --diff` marks as changed in the WafManagedRules block, as paths: `order`, `zoneId`, ... and
 * `rules.<ref>` (deeper changes inside one rule are folded into its path). The engine's events carry no detailed
 * diff for a dynamic provider (the host passes none), so this reads the diff the engine prints, which it computes
 * from the old and new inputs: exactly what a user sees. Pure.
 */
function changedPaths(text: string): string[] {
  const block = text.split(`~ ${TYPE}: (update)`)[1]?.split('--outputs:--')[0] ?? '';
  const paths = new Set<string>();
  const open: Array<{ indent: number; key: string; mark: string }> = [];
  for (const line of block.split('\n')) {
    const match = /^(\s*)([~+-] )?([^\s:][^:]*?)\s*:/.exec(line);
    if (!match || match[3]!.startsWith('[urn=') || match[3]!.startsWith('[id=')) continue;
    const indent = match[1]!.length + (match[2] ? 2 : 0);
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) open.pop();
    const mark = match[2]?.trim() ?? '';
    const path = [...open.map((o) => o.key), match[3]!];
    if (mark !== '') paths.add(path.slice(0, path[0] === 'rules' ? 2 : 1).join('.'));
    open.push({ indent, key: match[3]!, mark });
  }
  // `~ rules` itself is the parent of the rule that changed, not a change of its own.
  return [...paths].filter((p) => p !== 'rules' || ![...paths].some((q) => q.startsWith('rules.'))).sort();
}

/** The WafManagedRules step of a `preview --diff`: its operation (from the engine's events), changed paths and text. */
async function previewStep(): Promise<{ op: string; paths: string[]; text: string }> {
  const ops: string[] = [];
  let text = '';
  await stack.preview({
    diff: true,
    color: 'never',
    onOutput: (out) => (text += out),
    onEvent: (event: EngineEvent) => {
      const metadata = event.resourcePreEvent?.metadata;
      if (metadata?.type === TYPE) ops.push(metadata.op);
    },
  });
  expect(ops).toHaveLength(1);
  return { op: ops[0]!, paths: changedPaths(text), text };
}

/** The entry point as declared rules (refs in order, each rule canonical) and the service's id of each rule by ref. */
async function entrypoint() {
  const saved = await client.rulesets.getEntrypoint({ zoneId });
  return { ...declaredOf(saved), ids: Object.fromEntries(saved.rules.map((rule) => [rule.ref, rule.id])) };
}

/** Up, with the writes it made; then a preview that must find nothing to change. */
/** The dry runs of the last upThenClean's up. */
let lastDryRuns: string[] = [];

async function upThenClean(): Promise<string[]> {
  await sandbox.emulator.admin.clearRequests();
  await stack.up({ color: 'never' });
  const made = await writes();
  lastDryRuns = await dryRuns();
  await stack.preview({ expectNoChanges: true, color: 'never' });
  return made;
}

let adopted: Awaited<ReturnType<typeof entrypoint>>;

test('up migrates the zone, then WafManagedRules takes the migrated entry point over with one write, its owner marker', async () => {
  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toEqual({ create: 4 }); // with the stack's owner id
  // The migration's own submission, then the take-over's one write: it finds what it declares and marks the entry
  // point's description as its own (docs/ownership.md).
  expect(await writes()).toEqual([`PUT ${ENTRYPOINT}?waf_migration=pending&phase_two=1`, `PUT ${ENTRYPOINT}`]);
  expect((await client.rulesets.getEntrypoint({ zoneId })).description).toMatch(/(^| )zg:[0-9a-f]{10}$/);
  adopted = await entrypoint();
  expect(adopted.order).toEqual(['managed-ruleset', 'owasp-core-ruleset']);
  expect(up.outputs.order!.value).toEqual(adopted.order);
  expect(up.outputs.ruleIds!.value).toEqual(adopted.ids);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('an exception added first: the preview shows that rule and the order; up makes one write', async () => {
  rules = [OFFICE, ...MIGRATED];
  await sandbox.emulator.admin.clearRequests();
  const { op, paths, text } = await previewStep();
  expect([op, paths]).toEqual(['update', ['order', 'rules.office']]);
  expect(text).toMatch(/\+ office\s*: \{\s*\+ description: "Office network"/);
  // The preview's check by the service: the up's PUT with dry_run=true.
  expect(await dryRuns()).toEqual([`PUT ${ENTRYPOINT}`]);
  expect(await upThenClean()).toEqual([`PUT ${ENTRYPOINT}`]);
  // The up's write is the service's check: no dry run.
  expect(lastDryRuns).toEqual([]);
  const after = await entrypoint();
  expect(after.order).toEqual(['office', 'managed-ruleset', 'owasp-core-ruleset']);
  // Unchanged rules keep the ids the migration gave them.
  expect(after.ids).toMatchObject(adopted.ids);
});

test('a category override changed: the preview shows that rule only', async () => {
  const [managed, owasp] = MIGRATED as [WafManagedRuleArgs, WafManagedRuleArgs];
  const categories = [{ category: 'paranoia-level-2', enabled: true }, ...owasp.execute!.categories!.slice(1)];
  rules = [OFFICE, managed, { ...owasp, execute: { ...owasp.execute!, categories } }];
  const { op, paths, text } = await previewStep();
  expect([op, paths]).toEqual(['update', ['rules.owasp-core-ruleset']]);
  expect(text).toMatch(/category: "paranoia-level-2"\s*~ enabled\s*: false => true/);
  const before = await entrypoint();
  expect(await upThenClean()).toEqual([`PUT ${ENTRYPOINT}`]);
  const after = await entrypoint();
  expect(after.rules['owasp-core-ruleset']!.execute!.categories).toEqual(categories);
  expect(after.ids).toEqual(before.ids);
});

test('two rules reordered: the preview shows the order only', async () => {
  const [office, managed, owasp] = rules as [WafManagedRuleArgs, WafManagedRuleArgs, WafManagedRuleArgs];
  rules = [office, owasp, managed];
  const { op, paths, text } = await previewStep();
  expect([op, paths]).toEqual(['update', ['order']]);
  expect(text).toMatch(/~ \[1\]: "managed-ruleset" => "owasp-core-ruleset"\s*~ \[2\]: "owasp-core-ruleset" => "managed-ruleset"/);
  const before = await entrypoint();
  expect(await upThenClean()).toEqual([`PUT ${ENTRYPOINT}`]);
  const after = await entrypoint();
  expect(after.order).toEqual(['office', 'owasp-core-ruleset', 'managed-ruleset']);
  expect(after.ids).toEqual(before.ids);
});

test('a rule removed: the preview shows that rule and the order', async () => {
  rules = rules.filter((rule) => rule.ref !== 'office');
  const { op, paths, text } = await previewStep();
  expect([op, paths]).toEqual(['update', ['order', 'rules.office']]);
  expect(text).toMatch(/- office\s*: \{/);
  const before = await entrypoint();
  expect(await upThenClean()).toEqual([`PUT ${ENTRYPOINT}`]);
  const after = await entrypoint();
  expect(after.order).toEqual(['owasp-core-ruleset', 'managed-ruleset']);
  const { office: _gone, ...kept } = before.ids;
  expect(after.ids).toEqual(kept);
});

test('an exception added in the dashboard is not undone by an unrelated up: preview and up refuse naming it; after refresh the preview shows its removal', async () => {
  const saved = await client.rulesets.getEntrypoint({ zoneId });
  const oncall = { ref: 'oncall', action: 'skip', expression: 'ip.src eq 203.0.113.50', action_parameters: { ruleset: 'current' }, enabled: true };
  await client.rulesets.updateEntrypoint({ zoneId, ruleset: { name: saved.name, rules: [oncall as never, ...saved.rules] } });
  const declared = rules;
  rules = [{ ...OFFICE, ref: 'partner', expression: 'ip.src eq 198.51.100.7' }, ...declared];
  await sandbox.emulator.admin.clearRequests();
  await expect(stack.preview({ color: 'never' })).rejects.toThrow(/refused before any change: the entry point changed since this stack last wrote or refreshed it \(version \d+, now \d+; changed: rules\.oncall, order\)/);
  await expect(stack.up({ color: 'never' })).rejects.toThrow(/changed: rules\.oncall, order\), and this update would undo that change\. Run pulumi refresh/);
  expect(await writes()).toEqual([]);
  expect((await entrypoint()).order[0]).toBe('oncall');

  await stack.refresh({ color: 'never' });
  const { op, paths } = await previewStep();
  expect([op, paths]).toEqual(['update', ['order', 'rules.oncall', 'rules.partner']]);
  rules = declared;
  expect(await upThenClean()).toEqual([`PUT ${ENTRYPOINT}`]);
  expect((await entrypoint()).order).toEqual(declared.map((rule) => rule.ref));
});

test('drift made through the service API is found by refresh, shown as that rule, and undone by up', async () => {
  const saved = await client.rulesets.getEntrypoint({ zoneId });
  await client.rulesets.updateEntrypoint({
    zoneId,
    ruleset: { name: saved.name, rules: saved.rules.map((rule) => (rule.ref === 'managed-ruleset' ? { ...rule, enabled: false } : rule)) },
  });
  await sandbox.emulator.admin.clearRequests();
  const refresh = await stack.refresh({ color: 'never' });
  expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
  expect((await writes())).toEqual([]);
  const { op, paths, text } = await previewStep();
  expect([op, paths]).toEqual(['update', ['rules.managed-ruleset']]);
  expect(text).toMatch(/~ enabled\s*: false => true/);
  expect(await upThenClean()).toEqual([`PUT ${ENTRYPOINT}`]);
  expect((await entrypoint()).rules['managed-ruleset']).toMatchObject({ enabled: true });
});

test('destroy puts back what create recorded; the migration, protected, stays', async () => {
  await sandbox.emulator.admin.clearRequests();
  const destroy = await stack.destroy({ color: 'never', excludeProtected: true });
  expect(destroy.summary.resourceChanges).toMatchObject({ delete: 1 });
  expect(await writes()).toEqual([`PUT ${ENTRYPOINT}`]);
  const after = await entrypoint();
  expect({ order: after.order, rules: after.rules }).toEqual({ order: adopted.order, rules: adopted.rules });
  expect(after.ids).toEqual(adopted.ids);
  expect(await client.wafMigration.status({ zoneId })).toMatchObject({ migration_state: 'complete', new_waf_status: 'enabled' });
});
