import { createOnly, declareKind, inPlace, zoneField } from './declaration';
import { FIREWALL_RULE_FIELDS, FIREWALL_RULE_IDENTITY } from './firewall-rule';

/**
 * A firewall rule made with its filter in one call (`POST /zones/{zone_id}/firewall/rules`). The filter belongs to
 * the rule (docs/service.md#single-call-filter): a new expression is a new rule.
 */
export const FirewallRuleWithFilterKind = declareKind('FirewallRuleWithFilter', {
  fields: [zoneField('replace'), { input: 'expression', wire: 'filter.expression', change: 'replace' }, ...inPlace(...FIREWALL_RULE_FIELDS), createOnly('adoptRuleId')],
  outputs: ['ruleId', 'filterId'],
  // Its filter is its own: made with it, deleted with it (docs/service.md#single-call-filter).
  identity: { ...FIREWALL_RULE_IDENTITY, owns: { object: 'filter', output: 'filterId' } },
});
