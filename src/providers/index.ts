// The implementations the stored provider closures load by package specifier (`pulumi-zoneguard/providers`).
import type { ResourceKind } from './kit/closure';
import type { Implementation } from './kit/implementation';
import { cspPolicy } from './csp-policy';
import { pageGuardSettings } from './page-guard-settings';
import { firewallRuleWithFilter } from './firewall-rule-with-filter';
import { wafMigration } from './waf-migration';

const implementations: Partial<Record<ResourceKind, Implementation>> = {
  PageGuardSettings: pageGuardSettings,
  CspPolicy: cspPolicy,
  FirewallRuleWithFilter: firewallRuleWithFilter,
  WafMigration: wafMigration,
};

/** The implementation of one resource kind; throws for a kind this version does not know. */
export function implementation(kind: ResourceKind): Implementation {
  const found = implementations[kind];
  if (!found) throw new Error(`zoneguard: no provider implementation for ${kind} in this version of pulumi-zoneguard`);
  return found;
}


export { providerFor, type ResourceKind } from './kit/closure';
