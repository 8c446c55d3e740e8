// The resource classes under the SDK's mocks: each constructs (an input the SDK's Resource already holds, such as
// `__name`, would fail the construction in every program) and hands its provider its logical name.
import * as pulumi from '@pulumi/pulumi';
import { NAME_KEY } from '../../src/providers';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { WafManagedRules } from '../../src/resources/waf-managed-rules';
import { WafMigration } from '../../src/resources/waf-migration';

const registered: Array<{ type: string; name: string; inputs: Record<string, unknown> }> = [];
beforeAll(async () => {
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  });
});

const zoneId = 'a'.repeat(32);
const urnOf = (resource: pulumi.Resource) => new Promise<string>((resolve) => resource.urn.apply(resolve));

// Each row: the kind, its construction, and outputs the provider computes (not inputs of that construction), which
// the class must still expose as outputs.
test.each<[string, () => pulumi.CustomResource, string[]]>([
  ['PageGuardSettings', () => new PageGuardSettings('settings', { zoneId, enabled: true }), ['updatedAt', 'previous', 'useConnectionUrlPath']],
  ['CspPolicy', () => new CspPolicy('policy', { zoneId, action: 'log', expression: 'true', value: "script-src 'self'" }), ['policyId', 'enabled']],
  ['FirewallRuleWithFilter', () => new FirewallRuleWithFilter('rule', { zoneId, expression: '(ip.src eq 192.0.2.1)', action: 'block' }), ['ruleId', 'filterId', 'paused', 'priority']],
  ['FirewallFilter', () => new FirewallFilter('filter', { zoneId, expression: '(ip.src eq 192.0.2.1)' }), ['filterId', 'paused', 'ref']],
  ['FirewallRule', () => new FirewallRule('two-call-rule', { zoneId, filterId: 'f'.repeat(32), action: 'log' }), ['ruleId', 'products', 'description']],
  ['WafMigration', () => new WafMigration('waf', { zoneId, mode: 'direct' }), ['migrationState', 'conversion', 'wait']],
  ['WafManagedRules', () => new WafManagedRules('managed', { zoneId, rules: [] }), ['ruleIds', 'version', 'recorded']],
])('%s constructs and passes its name to the provider', async (kind, construct, computed) => {
  const resource = construct();
  expect(await urnOf(resource)).toMatch(new RegExp(`zoneguard:${kind}::`));
  const entry = registered.find((r) => r.type.endsWith(`:${kind}`));
  expect(entry?.inputs[NAME_KEY]).toBe(entry?.name);
  expect(computed.filter((key) => !pulumi.Output.isInstance((resource as unknown as Record<string, unknown>)[key]))).toEqual([]);
});
