// The implementations the stored provider closures load by package specifier (`pulumi-zoneguard/providers`).
import '../node-version'; // first: an unsupported Node fails here, saying what to install
import type { ResourceKind } from './kit/closure';
import type { Implementation } from './kit/implementation';
import { KINDS } from '../kinds';
import { ownershipSpec, withOwnership } from './kit/ownership';
import { withInputsPresent } from './kit/check';
import { cspPolicy } from './csp-policy';
import { pageGuardSettings } from './page-guard-settings';
import { firewallRuleWithFilter } from './firewall-rule-with-filter';
import { firewallFilter } from './firewall-filter';
import { firewallRule } from './firewall-rule';
import { wafMigration } from './waf-migration';
import { wafManagedRules } from './waf-managed-rules';
import { customRule } from './custom-rule';
import { rateLimitRule } from './rate-limit-rule';
import { isDynamicProviderHost, quietHostEchoes, withQuietFailures } from './kit/quiet';

// Every kind's handlers; `satisfies` makes a kind of the registry without its handlers a compile error.
const handlers = {
  PageGuardSettings: pageGuardSettings,
  CspPolicy: cspPolicy,
  FirewallRuleWithFilter: firewallRuleWithFilter,
  FirewallFilter: firewallFilter,
  FirewallRule: firewallRule,
  WafMigration: wafMigration,
  WafManagedRules: wafManagedRules,
  CustomRule: customRule,
  RateLimitRule: rateLimitRule,
} satisfies Record<ResourceKind, Implementation>;

// Every kind behind the ownership guard (kit/ownership.ts), which takes what it needs from the kind's declaration,
// and with a check that refuses missing inputs in one failure before any kind reads them (kit/check.ts).
const implementations = Object.fromEntries(
  KINDS.map((declaration) => [
    declaration.kind,
    withInputsPresent(declaration.kind, withOwnership(declaration.kind, handlers[declaration.kind], ownershipSpec(declaration))),
  ]),
) as Record<ResourceKind, Implementation>;

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
