import type { Stack } from '@pulumi/pulumi/automation';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { WafMigration } from '../../src/resources/waf-migration';
import { holdsServiceObject, openSandbox, type EngineSandbox } from './harness';
import { engine, unique, upOrThrow } from '../resilience/support';

// What each way of destroying a stack that holds a WafMigration really does (docs/firewall-and-migration.md,
// "Destroying a stack with a migration"): a policy, a rule and the migration of one zone, with the Pulumi CLI v3.274 (as v3.259).
jest.setTimeout(240_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('waf-migration-destroy');
});
afterAll(() => sandbox?.close());

const wait = { timeoutSeconds: 60, pollIntervalSeconds: 1 };

/** A new Pro zone with the previous WAF on, and a stack of a policy, a rule and the migration there. */
async function deployed(options: { protect?: boolean; retainOnDelete?: boolean }) {
  const zone = await sandbox.emulator.admin.seedZone({ name: `${unique('destroy')}.example`, plan: 'pro', previousWaf: { enabled: true } });
  const stack = await sandbox.stack(unique('destroy'), async () => {
    new CspPolicy('policy', { zoneId: zone.id, action: 'log', expression: 'http.host eq "shop.example.com"', value: "script-src 'self'" });
    new FirewallRuleWithFilter('rule', { zoneId: zone.id, expression: '(http.user_agent contains "sqlmap")', action: 'block' });
    new WafMigration('waf', { zoneId: zone.id, mode: 'direct', wait }, options);
    return {};
  });
  await upOrThrow(stack);
  return { zoneId: zone.id, stack };
}

/** The names of zoneguard's resources the stack's state holds (the stack's owner id aside: it holds no object). */
async function inState(stack: Stack): Promise<string[]> {
  const resources = ((await stack.exportStack()).deployment.resources ?? []) as Array<{ type: string; urn: string }>;
  return resources.filter(holdsServiceObject).map((resource) => resource.urn.split('::').pop()!).sort();
}

/** What the zone holds that the stack made: its policies and rules, and where its migration stands. */
async function zoneHolds(zoneId: string) {
  const inventory = await sandbox.emulator.admin.inventory(zoneId);
  return { policies: inventory.counts.cspPolicies, firewallRules: inventory.counts.firewallRules, migration: inventory.waf?.migration_state };
}

test('a plain destroy deletes the policy, then fails on the protected migration, which keeps the rule of its zone', async () => {
  const { zoneId, stack } = await deployed({});
  const run = await engine((opts) => stack.destroy(opts));
  expect(run.ok).toBe(false);
  expect(run.resourceErrors.map((e) => e.message)).toEqual([expect.stringMatching(/^resource "urn:pulumi:.*::waf" cannot be deleted\s+because it is protected/)]);
  // The migration depends on the zone's rule (zone-order.ts): the rule would be deleted after it, so it stays.
  expect(await zoneHolds(zoneId)).toEqual({ policies: 0, firewallRules: 1, migration: 'complete' });
  expect(await inState(stack)).toEqual(['rule', 'waf']);
});

test("following the engine's advice (protect: false, up, destroy): the up creates again what the first destroy deleted, then the provider refuses the migration's delete, which ends the destroy", async () => {
  const options: { protect?: boolean } = {};
  const { zoneId, stack } = await deployed(options);
  const first = await engine((opts) => stack.destroy(opts));
  expect(first.resourceErrors.map((e) => e.message)).toEqual([expect.stringMatching(/cannot be deleted\s+because it is protected\.\s+To unprotect the resource/)]);
  expect(await inState(stack)).toEqual(['rule', 'waf']);

  options.protect = false;
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toEqual({ create: 1, same: 4 }); // the stack, its owner id, the rule and the migration
  expect(await zoneHolds(zoneId)).toEqual({ policies: 1, firewallRules: 1, migration: 'complete' });

  const second = await engine((opts) => stack.destroy(opts));
  expect(second.ok).toBe(false);
  expect(second.resourceErrors.map((e) => e.message)).toEqual([
    expect.stringContaining(`WafMigration of zone ${zoneId} cannot be deleted: the migration to the new WAF managed rules cannot be undone`),
  ]);
  // The migration's delete came first in both runs of this test (CLI v3.259, and v3.274 since), and its refusal ended the destroy: the policy the up created
  // again stays, on the zone and in the stack.
  expect(await zoneHolds(zoneId)).toEqual({ policies: 1, firewallRules: 1, migration: 'complete' });
  expect(await inState(stack)).toEqual(['policy', 'rule', 'waf']);
});

test('destroy --exclude-protected succeeds, keeping the migration and the rule of its zone it depends on', async () => {
  const { zoneId, stack } = await deployed({});
  const run = await engine((opts) => stack.destroy({ ...opts, excludeProtected: true }));
  expect(run.ok).toBe(true);
  // The migration depends on the zone's firewall rules (zone-order.ts), and the engine keeps what a protected
  // resource depends on.
  expect(await zoneHolds(zoneId)).toEqual({ policies: 0, firewallRules: 1, migration: 'complete' });
  expect(await inState(stack)).toEqual(['rule', 'waf']);
});

test('with retainOnDelete: true recorded by an up, a plain destroy empties the stack and leaves the zone migrated', async () => {
  const { zoneId, stack } = await deployed({ protect: false, retainOnDelete: true });
  const run = await engine((opts) => stack.destroy(opts));
  expect(run.ok).toBe(true);
  expect(await zoneHolds(zoneId)).toEqual({ policies: 0, firewallRules: 0, migration: 'complete' });
  expect(await inState(stack)).toEqual([]);
});
