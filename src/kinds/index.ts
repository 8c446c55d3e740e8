// The registry of resource kinds: every per-kind part of zoneguard derives from this list (src/kinds/declaration.ts).
import type { KindDeclaration } from './declaration';
import { PageGuardSettingsKind } from './page-guard-settings';
import { CspPolicyKind } from './csp-policy';
import { FirewallRuleWithFilterKind } from './firewall-rule-with-filter';
import { FirewallFilterKind } from './firewall-filter';
import { FirewallRuleKind } from './firewall-rule';
import { WafMigrationKind } from './waf-migration';
import { WafManagedRulesKind } from './waf-managed-rules';
import { CustomRuleKind } from './custom-rule';
import { RateLimitRuleKind } from './rate-limit-rule';

/** Every kind, in the order the docs list them. A kind is added here and nowhere else by hand. */
export const KINDS = [
  PageGuardSettingsKind,
  CspPolicyKind,
  FirewallRuleWithFilterKind,
  FirewallFilterKind,
  FirewallRuleKind,
  WafMigrationKind,
  WafManagedRulesKind,
  CustomRuleKind,
  RateLimitRuleKind,
] as const;

/** The resource types of zoneguard; the last part of each type token `pulumi-nodejs:dynamic/zoneguard:<Kind>`. */
export type ResourceKind = (typeof KINDS)[number]['kind'];

/** The declaration of each kind, by name. */
export type Declarations = { [D in (typeof KINDS)[number] as D['kind']]: D };

/** Every kind's name, in registry order. */
export const RESOURCE_KINDS: readonly ResourceKind[] = KINDS.map((declaration) => declaration.kind);

/** Module part of every type token. Changing it would change every URN. */
export const TYPE_MODULE = 'zoneguard';

/** The type token the engine records for a kind: `pulumi-nodejs:dynamic/zoneguard:<Kind>`. */
export const typeToken = (kind: ResourceKind) => `pulumi-nodejs:dynamic/${TYPE_MODULE}:${kind}`;

/**
 * The resource that keeps a stack's owner id (src/resources/stack-owner.ts, docs/ownership.md#owner-id): loaded by
 * its stored provider text like a kind's, but no kind of the registry (it holds no object of the service).
 */
export const STACK_OWNER = 'StackOwner';
/** Its type token. Changing it would change its URN. */
export const STACK_OWNER_TYPE = `pulumi-nodejs:dynamic/${TYPE_MODULE}:${STACK_OWNER}`;

const byName = new Map<string, KindDeclaration>(KINDS.map((declaration) => [declaration.kind, declaration]));

/** The declaration of `kind`, typed. */
export function declarationOf<K extends ResourceKind>(kind: K): Declarations[K] {
  return byName.get(kind) as Declarations[K];
}

/** The kind a type token names, or undefined for a resource that is not zoneguard's (or a kind this version does not know). */
export function kindOfType(type: string): ResourceKind | undefined {
  const prefix = `pulumi-nodejs:dynamic/${TYPE_MODULE}:`;
  if (!type.startsWith(prefix)) return undefined;
  const kind = type.slice(prefix.length);
  return byName.has(kind) ? (kind as ResourceKind) : undefined;
}

/** A one-line description of the resource for messages: `CspPolicy 'login' 1c2d… in zone 023e…`, or `WafMigration 'shop' of zone 023e…`. */
export function label(kind: ResourceKind, props: { zoneId?: unknown }, name: string | undefined, id?: string): string {
  const who = name === undefined ? kind : `${kind} '${name}'`;
  if (declarationOf(kind).identity.scope === 'zone') return `${who} of zone ${String(props.zoneId)}`;
  return `${who}${id ? ` ${id}` : ''} in zone ${String(props.zoneId)}`;
}

export { declareKind, diffPlan, propertiesOf, wireValue } from './declaration';
export type { Field, FieldChange, Identity, KindDeclaration, MarkerPlace, ObjectType } from './declaration';
export { bodyOf, defaultsOf, inputsOf, inputsOfOutputs, omittedDefaultsOf, outputsOf, requestOf, wireFields, type InputsOf, type OutputsOf } from './wire';
export { FIREWALL_RULE_IDENTITY } from './firewall-rule';
export { PHASE_RULE_WIRE_FIELDS, phaseRuleFromWire, phaseRuleToWire, type RuleOnWire } from './phase-rule-wire';
export { PageGuardSettingsKind, CspPolicyKind, FirewallRuleWithFilterKind, FirewallFilterKind, FirewallRuleKind };
export { WafMigrationKind, WafManagedRulesKind, CustomRuleKind, RateLimitRuleKind };
