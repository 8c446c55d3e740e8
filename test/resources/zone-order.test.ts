import * as pulumi from '@pulumi/pulumi';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { dependsOnZoneRules, sameZone } from '../../src/resources/zone-order';

// Which declared firewall rules a WafMigration waits for: those on its zone, by position. The engine test is
// test/e2e/waf-migration-order.test.ts.
describe('sameZone', () => {
  const A = 'a9b67e024b090640650f12971210b69b';
  const B = 'e3589a6ce30f0c115fa5d6a5e5943265';
  test.each([
    [A, [], []],
    [A, [A], [0]],
    [A, [B], []],
    [A, [B, A, A, B], [1, 2]],
  ])('%s among %j', (zone, zones, indexes) => {
    expect(sameZone(zone, zones)).toEqual(indexes);
  });
});

describe('dependsOnZoneRules, in a run of a program under Pulumi mocks', () => {
  // The wiring alone; the engine test shows the order it gives.
  beforeAll(async () => {
    await pulumi.runtime.setMocks({ newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: () => ({}) }, 'project', 'stack', false);
  });

  const resolved = <T>(output: pulumi.Input<T>) => new Promise<T>((resolve) => pulumi.output(output).apply((value) => resolve(value as T)));
  const A = 'a9b67e024b090640650f12971210b69b';
  const B = 'e3589a6ce30f0c115fa5d6a5e5943265';

  test('the rules of its zone, declared before or after it in the same turn, and the ones the user listed', async () => {
    const declared: Record<string, pulumi.Resource> = {};
    let deps: pulumi.Input<pulumi.Input<pulumi.Resource>[]> = [];
    await pulumi.runtime.runInPulumiStack(async () => {
      declared.before = new FirewallRuleWithFilter('before', { zoneId: A, expression: '(http.request.uri.path eq "/a")', action: 'block' });
      declared.listed = new FirewallRuleWithFilter('listed', { zoneId: B, expression: '(http.request.uri.path eq "/b")', action: 'block' });
      deps = dependsOnZoneRules(A, [declared.listed]);
      declared.otherZone = new FirewallRuleWithFilter('other-zone', { zoneId: B, expression: '(http.request.uri.path eq "/c")', action: 'block' });
      declared.after = new FirewallRule('after', { zoneId: pulumi.output(A), filterId: '0123456789abcdef0123456789abcdef', action: 'block' });
      return {};
    });
    const resources = (await resolved(deps)) as pulumi.Resource[];
    const names = resources.map((resource) => Object.keys(declared).find((name) => declared[name] === resource));
    expect(names).toEqual(['listed', 'before', 'after']);
  });
});
