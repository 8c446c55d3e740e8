// The implementations the stored provider closures load by package specifier (`pulumi-zoneguard/providers`).
import '../node-version'; // first: an unsupported Node fails here, saying what to install
import type { ResourceKind } from './kit/closure';
import type { Implementation } from './kit/implementation';
import { withOwnership } from './kit/ownership';
import { cspPolicy } from './csp-policy';
import { pageGuardSettings } from './page-guard-settings';
import { firewallRuleWithFilter } from './firewall-rule-with-filter';
import { firewallFilter } from './firewall-filter';
import { firewallRule } from './firewall-rule';
import { wafMigration } from './waf-migration';
import { wafManagedRules } from './waf-managed-rules';
import { isDynamicProviderHost, quietHostEchoes, withQuietFailures } from './kit/quiet';

const adopt = (key: string) => (inputs: Record<string, unknown>) => (typeof inputs[key] === 'string' ? (inputs[key] as string) : undefined);

// Every kind behind the ownership guard (kit/ownership.ts). The settings and the migration are one per zone: their
// create always takes the zone's over, so it is an adoption of the zone id.
// `satisfies` makes a kind of RESOURCE_KINDS without its implementation a compile error.
const implementations = {
  PageGuardSettings: withOwnership('PageGuardSettings', pageGuardSettings, { noun: 'the page security settings of zone', adoptedId: adopt('zoneId') }),
  CspPolicy: withOwnership('CspPolicy', cspPolicy, { noun: 'policy', adoptedId: adopt('adoptPolicyId'), adoptInput: 'adoptPolicyId' }),
  FirewallRuleWithFilter: withOwnership('FirewallRuleWithFilter', firewallRuleWithFilter, {
    noun: 'firewall rule',
    adoptedId: adopt('adoptRuleId'),
    adoptInput: 'adoptRuleId',
  }),
  FirewallFilter: withOwnership('FirewallFilter', firewallFilter, { noun: 'filter', adoptedId: adopt('adoptFilterId'), adoptInput: 'adoptFilterId' }),
  FirewallRule: withOwnership('FirewallRule', firewallRule, { noun: 'firewall rule', adoptedId: adopt('adoptRuleId'), adoptInput: 'adoptRuleId' }),
  WafMigration: withOwnership('WafMigration', wafMigration, { noun: 'the WAF migration of zone', adoptedId: adopt('zoneId') }),
  WafManagedRules: withOwnership('WafManagedRules', wafManagedRules, { noun: 'the WAF managed rules entry point of zone', adoptedId: adopt('zoneId') }),
} satisfies Record<ResourceKind, Implementation>;

const quiet = new Map<ResourceKind, Implementation>();

/**
 * The implementation of one resource kind; throws for a kind this version does not know. Its reported failures
 * reach the user once, as one line on the resource (src/providers/kit/quiet.ts).
 */
export function implementation(kind: ResourceKind): Implementation {
  // The kind comes from a stored closure, maybe written by another version: look it up as any string.
  const found: Implementation | undefined = Object.hasOwn(implementations, kind) ? implementations[kind] : undefined;
  if (!found) throw new Error(`zoneguard: no provider implementation for ${kind} in this version of pulumi-zoneguard`);
  if (isDynamicProviderHost()) quietHostEchoes();
  let wrapped = quiet.get(kind);
  if (!wrapped) quiet.set(kind, (wrapped = withQuietFailures(found)));
  return wrapped;
}

export { NAME_KEY, providerFor, RESOURCE_KINDS, TYPE_MODULE, type ResourceKind } from './kit/closure';
// Pure: `zoneguard export` declares a migrated zone's entry point with them; the resource class shapes its rules.
export { migrationRefusal } from './waf-managed-rules';
export { rulesByRef, rulesFromRuleset, type ManagedRule, type ManagedRuleWithRef } from '../rulesets';
