// The limits past which the caller cannot complete a migration (docs/service.md#migration-limits), checked before
// anything is submitted. Pure.
import { WAF_MIGRATION_LIMITS, expressionBytes } from '../schemas';

/** A firewall rule as the limits and the conversion notes need it. */
export interface FirewallRuleFacts {
  id: string;
  expression: string;
  action: string;
  paused?: boolean;
  products?: string[];
}

/** The zone against the migration's limits (docs/service.md#migration-limits), and one line per limit exceeded. */
export interface MigrationLimits {
  firewallRules: number;
  maxFirewallRules: number;
  longestExpressionBytes: number;
  /** The rule with the longest expression, when the zone has rules. */
  longestExpressionRuleId: string | null;
  maxExpressionBytes: number;
  problems: string[];
}

/**
 * Checks the zone's firewall rules against the 200-rule and 4 KB limits before anything is submitted: past them the
 * caller cannot complete the migration, support must. Every rule over 4 KB is named, not just the first.
 */
export function migrationLimits(rules: readonly FirewallRuleFacts[]): MigrationLimits {
  const { maxFirewallRules, maxExpressionBytes } = WAF_MIGRATION_LIMITS;
  const problems: string[] = [];
  if (rules.length > maxFirewallRules) {
    problems.push(
      `the zone has ${rules.length} firewall rules to migrate, more than ${maxFirewallRules}: the migration cannot be completed without support; delete rules you no longer need, or contact support`,
    );
  }
  let longestExpressionBytes = 0;
  let longestExpressionRuleId: string | null = null;
  for (const rule of rules) {
    const bytes = expressionBytes(rule.expression);
    if (bytes > longestExpressionBytes) {
      longestExpressionBytes = bytes;
      longestExpressionRuleId = rule.id;
    }
    if (bytes > maxExpressionBytes) {
      problems.push(
        `firewall rule ${rule.id} has an expression of ${bytes} bytes, more than ${maxExpressionBytes}: the migration cannot be completed without support; shorten the expression (split the rule), or contact support`,
      );
    }
  }
  return {
    firewallRules: rules.length,
    maxFirewallRules,
    longestExpressionBytes,
    longestExpressionRuleId,
    maxExpressionBytes,
    problems,
  };
}
