// The resource classes under the SDK's mocks: each constructs (an input the SDK's Resource already holds, such as
// `__name`, would fail the construction in every program) and hands its provider its logical name.
import * as pulumi from '@pulumi/pulumi';
import { NAME_KEY } from '../../src/providers';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
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

test.each<[string, () => pulumi.CustomResource]>([
  ['PageGuardSettings', () => new PageGuardSettings('settings', { zoneId, enabled: true })],
  ['CspPolicy', () => new CspPolicy('policy', { zoneId, action: 'log', expression: 'true', value: "script-src 'self'" })],
  ['FirewallRuleWithFilter', () => new FirewallRuleWithFilter('rule', { zoneId, expression: '(ip.src eq 192.0.2.1)', action: 'block' })],
  ['WafMigration', () => new WafMigration('waf', { zoneId, mode: 'direct' })],
])('%s constructs and passes its name to the provider', async (kind, construct) => {
  const resource = construct();
  expect(await urnOf(resource)).toMatch(new RegExp(`zoneguard:${kind}::`));
  const entry = registered.find((r) => r.type.endsWith(`:${kind}`));
  expect(entry?.inputs[NAME_KEY]).toBe(entry?.name);
});
