import { createOnly, declareKind, inPlace, zoneField, type Identity } from './declaration';

/** A firewall rule's own fields, in place in both forms and under the same names on the wire (docs/service.md#firewall-rules). */
export const FIREWALL_RULE_FIELDS = ['action', 'paused', 'priority', 'description', 'ref', 'products'] as const;

/** A firewall rule is one object whichever kind holds it. */
export const FIREWALL_RULE_IDENTITY = { object: 'firewallRule', scope: 'object', idOutput: 'ruleId', adoptInput: 'adoptRuleId', noun: 'firewall rule', marker: 'ref' } as const satisfies Identity;

/** A firewall rule on a filter by id, the second call of the two-call flow (docs/service.md#two-flows). */
export const FirewallRuleKind = declareKind('FirewallRule', {
  fields: [zoneField('replace'), { input: 'filterId', wire: 'filter.id', change: 'update' }, ...inPlace(...FIREWALL_RULE_FIELDS), createOnly('adoptRuleId')],
  outputs: ['ruleId'],
  identity: FIREWALL_RULE_IDENTITY,
});
