import { declareKind } from './declaration';

/** A firewall rule on a filter by id, the second call of the two-call flow (docs/service.md#two-flows). */
export const FirewallRuleKind = declareKind({
  kind: 'FirewallRule',
  fields: [
    { input: 'zoneId', wire: 'zone_id', change: 'replace' },
    { input: 'filterId', wire: 'filter.id', change: 'update' },
    { input: 'action', wire: 'action', change: 'update' },
    { input: 'paused', wire: 'paused', change: 'update' },
    { input: 'priority', wire: 'priority', change: 'update' },
    { input: 'description', wire: 'description', change: 'update' },
    { input: 'ref', wire: 'ref', change: 'update' },
    { input: 'products', wire: 'products', change: 'update' },
    { input: 'adoptRuleId', wire: '', change: 'create' },
  ],
  outputs: ['ruleId'],
  identity: { object: 'firewallRule', scope: 'object', idOutput: 'ruleId', adoptInput: 'adoptRuleId', noun: 'firewall rule', marker: 'ref' },
});
