// What the three firewall resources share (FirewallRuleWithFilter, FirewallFilter, FirewallRule): the checked
// expression, how the rule's fields compare, products with bypass, the errors told apart by code, the retired API's hint.
import type * as pulumi from '@pulumi/pulumi';
import type { z } from 'zod';
import { RetiredApiError, ZoneGuardError } from '../../client/errors';
import { ErrorCode, FirewallProductSchema, productsProblem, type Filter, type FirewallRuleWire } from '../../schemas';
import { omittedDefaultsOf, type KindDeclaration, type ResourceKind } from '../../kinds';
import { PREVIEW_UNKNOWN, containsUnknown } from './check';
import { ReadCoalescer } from './coalesce';
import type { Context } from './context';
import { ProviderError, step, unlessNotFound } from './implementation';

/**
 * How a field of a firewall kind compares in a diff: products as a set (the service may answer another order), and a
 * value absent from the state as its default where the service's answer `answer` may leave the field out
 * (omittedDefaultsOf: `priority`, `description`, `ref`). Every answer holds `paused`: absent from a state, it is not
 * known, and compares as absent.
 */
export function normalizeFieldOf(declaration: KindDeclaration, answer: z.ZodType): (field: string, value: unknown) => unknown {
  const absent: Readonly<Record<string, unknown>> = omittedDefaultsOf(declaration, answer);
  return (field, value) => {
    if (field === 'products' && Array.isArray(value)) return [...value].map(String).sort();
    return value === undefined && field in absent ? absent[field] : value;
  };
}

/**
 * `products` goes with `action`: required (at least one) with bypass, refused otherwise, as the service does. Checked
 * apart from the schema (a refinement across fields would keep the kit from leaving unknown fields out).
 */
export function productsFailures(resource: string, news: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  const { action, products } = news;
  if (action === undefined || action === PREVIEW_UNKNOWN || containsUnknown(products)) return [];
  const problem = productsProblem(String(action), Array.isArray(products) ? products : products === undefined ? undefined : []);
  if (problem === 'required') {
    return [
      {
        property: 'products',
        reason: `${resource}.products: required when action is bypass: list what the rule bypasses, for example ["waf"] (one of ${FirewallProductSchema.options.join(', ')})`,
      },
    ];
  }
  if (problem === 'refused') {
    return [
      {
        property: 'products',
        reason: `${resource}.products: allowed only when action is bypass (action is ${String(action)}); remove products or set action: 'bypass'`,
      },
    ];
  }
  return [];
}

/** Whether a failure carries the service's error `code` (docs/service.md#errors): codes, never message text. */
export function hasCode(error: unknown, code: number): error is ZoneGuardError {
  return error instanceof ZoneGuardError && error.codes.includes(code);
}

/** Whether a failed create is the rule quota (the filter may have been created anyway: docs/service.md#rule-quota). */
export function isQuotaError(error: unknown): error is ZoneGuardError {
  return hasCode(error, ErrorCode.ruleQuotaExceeded);
}

/** Whether a failed create is a filter with the same expression that already exists (10102). */
export function isDuplicateFilterError(error: unknown): error is ZoneGuardError {
  return hasCode(error, ErrorCode.duplicateFilter);
}

/** Whether the service refused because of the object's state: a locked filter, or a filter in use (10027). */
export function isConflictError(error: unknown): error is ZoneGuardError {
  return hasCode(error, ErrorCode.conflict);
}

/** What a refusal of the retired legacy API means for the firewall resources, and what to do (docs/firewall-and-migration.md). */
export const RETIRED_API_HINT =
  '; the service has retired the legacy firewall rules and filters API for this zone and converted its firewall rules ' +
  'into custom rules, so this resource can no longer be written, created or read. Move it to a CustomRule: ' +
  '`zoneguard firewall-upgrade-plan --zone <zone id> --stack-export <file> --program` prints the CustomRule of each ' +
  'converted rule (adoptRuleId, takeOver); declare those in place of the firewall resources and remove these from ' +
  'the program: the next pulumi up takes the rules over and the firewall resources leave the state without a call ' +
  '(docs/firewall-and-migration.md#move)';

/** `step`, with the meaning of a retired API added to its message (410, or 10020 in maintenance mode). */
export async function firewallStep<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await step(what, call);
  } catch (error) {
    if (error instanceof ProviderError && error.cause instanceof RetiredApiError) {
      throw new ProviderError(`${error.message}${RETIRED_API_HINT}`, { cause: error.cause });
    }
    throw error;
  }
}

/** A diagnosis made after a refusal, best effort: it must never hide the service's error. */
export async function bestEffort<T>(call: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await call();
  } catch {
    return fallback;
  }
}

/**
 * A refresh's reads of a zone's firewall rules, shared by FirewallRule and FirewallRuleWithFilter (both are rules of
 * one list), served from walks of the list in pages of 100 (kit/coalesce.ts).
 */
export const ruleReads = new ReadCoalescer<FirewallRuleWire>({
  read: (client, zoneId, ruleId) => unlessNotFound(() => client.firewallRules.get({ zoneId, ruleId }), undefined),
  pages: (client, zoneId) => client.firewallRules.list({ zoneId }).pages(),
});

/** A refresh's reads of a zone's filters, served the same way. */
export const filterReads = new ReadCoalescer<Filter>({
  read: (client, zoneId, filterId) => unlessNotFound(() => client.filters.get({ zoneId, filterId }), undefined),
  pages: (client, zoneId) => client.filters.list({ zoneId }).pages(),
});

/**
 * A write of any firewall resource to a zone: afterwards no read of the zone's rules or filters is answered from a
 * walk made before it. Both, whatever the kind: a rule's create or delete can create or delete its filter.
 */
export async function firewallWrite<T>(zoneId: string, call: () => Promise<T>): Promise<T> {
  return ruleReads.writing(zoneId, () => filterReads.writing(zoneId, call));
}

/**
 * What the flows of the firewall kinds share (kit/flow.ts): the kind and what its steps call the object, the
 * firewall's steps and writes, and the coalesced reads of the zone's objects.
 */
export function firewallObject<W extends { id: string }>(kind: ResourceKind, object: string, reads: ReadCoalescer<W>) {
  return {
    kind,
    object,
    step: firewallStep,
    writing: firewallWrite,
    read: (ctx: Context, zoneId: string, id: string) => reads.read(ctx.client, zoneId, id),
    listing: (ctx: Context, zoneId: string) => reads.listing(ctx.client, zoneId),
  };
}
