// What a WAF migration of a zone would submit, read through the client without changing anything. The provider's
// create and update use the same reading, so planWafMigration shows exactly what `pulumi up` would submit.
import type { ZoneGuardClient } from '../client';
import { ZoneGuardError } from '../client/errors';
import type { EntrypointRuleset, FirewallRuleWire, WafOverride, WafPackage } from '../schemas';
import { NO_ADJUSTMENTS, applyAdjustments, type Adjustments } from './adjustments';
import { withMigrationRefs } from './refs';
import { migrationLimits, type FirewallRuleFacts, type MigrationLimits } from './limits';
import { conversionNotes, type WafConversion } from './notes';

/** A URI-based override of the previous WAF, as the incompatibility report names it. */
export interface BlockingOverride {
  id: string;
  description: string | null;
  urls: string[];
}

/** Why a zone cannot migrate as it is, and how to fix it. */
export interface Incompatibility {
  reason: string;
  /** The URI-based overrides that keep the zone from migrating (docs/service.md#migration-eligibility). */
  overrides: BlockingOverride[];
  /** The operation that deletes one of them. */
  deleteOperation: string;
}

/** The migration of a zone as it would be submitted now: read only, nothing changed. */
export interface WafMigrationPlan {
  zoneId: string;
  /** The compatibility check's verdict. */
  compatible: boolean;
  /** start (not migrated), validation, pending or complete. */
  migrationState: string;
  previousWafStatus: 'enabled' | 'disabled';
  newWafStatus: 'enabled' | 'disabled';
  /** Set when the zone is not compatible. */
  incompatibility: Incompatibility | null;
  /** The converted configuration with the adjustments applied; null when the zone cannot be converted now. */
  ruleset: EntrypointRuleset | null;
  /** What the conversion changes or drops, and the adjustments applied. */
  conversion: WafConversion;
  /** The zone against the 200-rule and 4 KB limits. */
  limits: MigrationLimits;
  /** Everything that keeps the migration from being submitted: incompatibility, adjustments, limits. Empty when ready. */
  problems: string[];
}

/** The operation that deletes a URI-based override, written once for messages. */
export function deleteOverrideOperation(zoneId: string): string {
  return `DELETE /zones/${zoneId}/firewall/waf/overrides/{id} (client.wafOverrides.delete({ zoneId, overrideId }))`;
}

/** The incompatibility report of a zone whose compatibility check answered false. Pure. */
export function incompatibilityOf(zoneId: string, overrides: readonly WafOverride[]): Incompatibility {
  const blocking = overrides.map((o) => ({ id: o.id, description: o.description ?? null, urls: [...o.urls] }));
  const deleteOperation = deleteOverrideOperation(zoneId);
  const reason =
    blocking.length === 0
      ? `zone ${zoneId} is not compatible with the migration (the compatibility check answered compatible: false) and has no URI-based WAF override to delete; contact support`
      : `zone ${zoneId} cannot migrate: it has ${blocking.length} URI-based WAF override${blocking.length === 1 ? '' : 's'} ` +
        `(${blocking.map((o) => `${o.id}${o.urls.length > 0 ? ` for ${o.urls.join(', ')}` : ''}`).join('; ')}); ` +
        `delete ${blocking.length === 1 ? 'it' : 'each'} with ${deleteOperation}, then run pulumi up again`;
  return { reason, overrides: blocking, deleteOperation };
}

/** A firewall rule as the limits and conversion notes need it. */
export function ruleFacts(rule: FirewallRuleWire): FirewallRuleFacts {
  return {
    id: rule.id,
    expression: rule.filter.expression,
    action: String(rule.action),
    paused: rule.paused,
    ...(rule.products ? { products: [...rule.products] } : {}),
  };
}

/** Reads a list that the service withdraws (410) once the zone migrated: withdrawn reads as empty. */
async function unlessWithdrawn<T>(read: () => Promise<T[]>): Promise<T[]> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ZoneGuardError && error.status === 410) return [];
    throw error;
  }
}

/**
 * Reads a zone's migration through the client and decides, with the pure functions, what would be submitted:
 * compatibility and status first; the previous WAF, the firewall rules and the converted configuration only while
 * the zone has not finished migrating (after that the previous WAF API is withdrawn and nothing is converted).
 */
export async function readMigrationPlan(
  client: ZoneGuardClient,
  zoneId: string,
  adjustments: Adjustments = NO_ADJUSTMENTS,
): Promise<WafMigrationPlan> {
  const compatibility = await client.wafMigration.check({ zoneId });
  const status = await client.wafMigration.status({ zoneId });
  const state = String(status.migration_state);
  const migrating = state === 'start' || state === 'validation';

  // A zone that finished migrating answers compatible: false too; only a zone still to migrate is blocked by it.
  const overrides = compatibility.compatible || !migrating ? [] : await unlessWithdrawn(() => client.wafOverrides.list({ zoneId }).toArray());
  const packages: WafPackage[] = migrating ? await unlessWithdrawn(() => client.wafPackages.list({ zoneId }).toArray()) : [];
  const rules = migrating ? (await client.firewallRules.list({ zoneId }).toArray()).map(ruleFacts) : [];
  const limits = migrationLimits(rules);
  // The check answers compatible: false past the limits too; then the limits say why, not a generic incompatibility.
  const incompatibility =
    compatibility.compatible || !migrating || (overrides.length === 0 && limits.problems.length > 0) ? null : incompatibilityOf(zoneId, overrides);
  const converted = migrating && compatibility.compatible ? await client.wafMigration.config({ zoneId }) : null;

  const adjusted = converted ? applyAdjustments(withMigrationRefs(converted), adjustments) : null;
  const conversion = conversionNotes({ packages, firewallRules: rules, adjusted: adjusted?.applied ?? [] });
  const problems = [...(incompatibility ? [incompatibility.reason] : []), ...(adjusted?.problems ?? []), ...limits.problems];
  return {
    zoneId,
    compatible: compatibility.compatible,
    migrationState: state,
    previousWafStatus: status.old_waf_status,
    newWafStatus: status.new_waf_status,
    incompatibility,
    ruleset: adjusted?.ruleset ?? null,
    conversion,
    limits,
    problems,
  };
}
