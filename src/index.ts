// pulumi-zoneguard: Pulumi resources for a zone's page security, CSP policies, firewall rules and the WAF
// managed rules migration. Each name has one path (test/api-report.test.ts): the typed API client is
// `pulumi-zoneguard/client`, the wire schemas `pulumi-zoneguard/schemas`, the insights `pulumi-zoneguard/insights`, the
// expression checker `pulumi-zoneguard/expression`, the emulator `pulumi-zoneguard/emulator`.
import './node-version'; // first: an unsupported Node fails here, saying what to install
import './pulumi-copies'; // then: a second @pulumi/pulumi beside the program's fails here, naming both
export { PageGuardSettings, type PageGuardSettingsArgs } from './resources/page-guard-settings';
export { CspPolicy, type CspPolicyArgs } from './resources/csp-policy';
export { FirewallRuleWithFilter, type FirewallRuleWithFilterArgs } from './resources/firewall-rule-with-filter';
export { FirewallFilter, type FirewallFilterArgs } from './resources/firewall-filter';
export { FirewallRule, type FirewallRuleArgs } from './resources/firewall-rule';
export { planFirewallRulesUpgrade, type PlanFirewallRulesUpgradeArgs, type FirewallRulesUpgradePlan, type PlannedRule } from './resources/firewall-upgrade';
export {
  WafMigration,
  planWafMigration,
  MANAGED_RULESET_ID,
  OWASP_RULESET_ID,
  type WafMigrationArgs,
  type WafMigrationAdjustments,
  type WafMigrationPlan,
  type WafConversion,
} from './resources/waf-migration';
export {
  WafManagedRules,
  rulesFromRuleset,
  OWASP_ANOMALY_SCORE_RULE_ID,
  type WafManagedRulesArgs,
  type WafManagedRuleArgs,
  type WafManagedRule,
} from './resources/waf-managed-rules';
export { CustomRule, type CustomRuleArgs } from './resources/custom-rule';
export { RateLimitRule, type RateLimitRuleArgs } from './resources/rate-limit-rule';
export { clientFromStackConfig } from './resources/stack-client';
