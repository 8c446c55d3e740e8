import { declareKind } from './declaration';

/**
 * A firewall rule made with its filter in one call (`POST /zones/{zone_id}/firewall/rules`). The filter belongs to
 * the rule (docs/service.md#single-call-filter): a new expression is a new rule.
 */
export const FirewallRuleWithFilterKind = declareKind({
  kind: 'FirewallRuleWithFilter',
  fields: [
    { input: 'zoneId', wire: 'zone_id', change: 'replace' },
    { input: 'expression', wire: 'filter.expression', change: 'replace' },
    { input: 'action', wire: 'action', change: 'update' },
    { input: 'paused', wire: 'paused', change: 'update' },
    { input: 'priority', wire: 'priority', change: 'update' },
    { input: 'description', wire: 'description', change: 'update' },
    { input: 'ref', wire: 'ref', change: 'update' },
    { input: 'products', wire: 'products', change: 'update' },
    { input: 'adoptRuleId', wire: '', change: 'create' },
  ],
  outputs: ['ruleId', 'filterId'],
  identity: { object: 'firewallRule', scope: 'object', idOutput: 'ruleId', adoptInput: 'adoptRuleId', noun: 'firewall rule', marker: 'ref' },
});
