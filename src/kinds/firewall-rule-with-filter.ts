import { z } from 'zod';
import { adoption, declareKind, zoneField } from './declaration';
import { CheckedExpressionSchema, FIREWALL_RULE_IDENTITY, RULE_INPUTS, firewallRuleFields } from './firewall-rule';

/**
 * A firewall rule made with its filter in one call (`POST /zones/{zone_id}/firewall/rules`). The filter belongs to
 * the rule (docs/service.md#single-call-filter): a new expression is a new rule.
 */
export const FirewallRuleWithFilterKind = declareKind('FirewallRuleWithFilter', {
  // `products` against `action` is checked apart (src/providers/kit/firewall.ts).
  args: z.object({ ...RULE_INPUTS, expression: CheckedExpressionSchema }).strict(),
  fields: [zoneField('replace'), { input: 'expression', wire: 'filter.expression', change: 'replace' }, ...firewallRuleFields(), ...adoption('adoptRuleId')],
  outputs: ['ruleId', 'filterId'],
  // Its filter is its own: made with it, deleted with it (docs/service.md#single-call-filter).
  identity: { ...FIREWALL_RULE_IDENTITY, owns: { object: 'filter', output: 'filterId', wire: 'filter.id' } },
  example: { expression: '(http.request.uri.path eq "/admin")', action: 'block' },
  createdWith: ['expression'],
});
