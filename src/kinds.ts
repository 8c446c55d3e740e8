// The names of zoneguard's resource kinds, below every layer that needs them: the providers and resource classes
// (their type tokens), and `zoneguard orphans`, which reads stack exports by type token without loading a provider.

/** The resource types of zoneguard; the last part of each type token `pulumi-nodejs:dynamic/zoneguard:<Kind>`. */
export const RESOURCE_KINDS = ['PageGuardSettings', 'CspPolicy', 'FirewallRuleWithFilter', 'FirewallFilter', 'FirewallRule', 'WafMigration', 'WafManagedRules'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Module part of every type token. Changing it would change every URN. */
export const TYPE_MODULE = 'zoneguard';
