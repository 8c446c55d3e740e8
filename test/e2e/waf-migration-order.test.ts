import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { WafMigration } from '../../src/resources/waf-migration';
import { openSandbox, type EngineSandbox } from './harness';
import { unique, upOrThrow } from '../resilience/support';

// A bypass rule and the migration of its zone declared in one program, with no dependsOn: the migration waits for
// the rule, so the rule is converted (conversion.bypassRuleIds). The rule's create is slowed down, so a migration
// submitted in parallel with it, as before, would miss it every time. docs/firewall-and-migration.md.
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('waf-migration-order');
});
afterAll(() => sandbox?.close());

test('a bypass rule declared after the migration of its zone is converted, without dependsOn', async () => {
  const zone = await sandbox.emulator.admin.seedZone({ name: `${unique('order')}.example`, plan: 'pro', previousWaf: { enabled: true } });
  const other = await sandbox.emulator.admin.seedZone({ name: `${unique('other')}.example`, plan: 'pro', previousWaf: { enabled: true } });
  await sandbox.emulator.admin.setFaults({ latencyMs: 2000, match: { method: 'POST', pathPrefix: `/zones/${zone.id}/firewall/rules` } });
  const stack = await sandbox.stack(unique('order'), async () => {
    const migration = new WafMigration('waf', { zoneId: zone.id, mode: 'direct', wait: { timeoutSeconds: 60, pollIntervalSeconds: 1 } }, { protect: false });
    const rule = new FirewallRuleWithFilter('monitoring', {
      zoneId: zone.id,
      expression: '(http.request.uri.path eq "/health")',
      action: 'bypass',
      products: ['waf'],
    });
    // A rule of another zone is no dependency of this migration.
    const elsewhere = new FirewallRuleWithFilter('elsewhere', { zoneId: other.id, expression: '(http.request.uri.path eq "/x")', action: 'block' });
    return { ruleId: rule.ruleId, elsewhereId: elsewhere.ruleId, conversion: migration.conversion, urn: migration.urn };
  });
  await upOrThrow(stack);
  const outputs = await stack.outputs();
  expect((outputs.conversion!.value as { bypassRuleIds: string[] }).bypassRuleIds).toEqual([outputs.ruleId!.value]);

  // The state records the dependency on the rule of its zone alone.
  const resources = ((await stack.exportStack()).deployment.resources ?? []) as Array<{ urn: string; dependencies?: string[] }>;
  const migration = resources.find((resource) => resource.urn === outputs.urn!.value)!;
  // The rule, and the stack's owner id, which every zoneguard resource depends on (docs/ownership.md#owner-id).
  expect([...(migration.dependencies ?? [])].sort()).toEqual([expect.stringMatching(/::monitoring$/), expect.stringMatching(/::zoneguard-owner$/)]);
  await sandbox.emulator.admin.clearFaults();
});
