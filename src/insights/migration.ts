import { ZoneGuardError, type ZoneGuardClient } from '../client';
import {
  WAF_MIGRATION_LIMITS,
  type Compatibility,
  type EntrypointRuleset,
  type FirewallRule,
  type RulesetRule,
  type WafOverride,
  type WafPackage,
  type WafStatus,
} from '../schemas';

/** What the conversion does to one setting of the previous WAF. */
export type ConversionEffect = 'kept' | 'changed' | 'converted' | 'dropped' | 'blocks';

/** One line of the plan's change table. */
export interface ConversionChange {
  setting: string;
  before: string;
  after: string;
  effect: ConversionEffect;
  note?: string;
}

/** Everything the plan is made from; the previous-WAF reads are undefined once the service withdrew them. */
export interface MigrationFacts {
  zoneId: string;
  compatibility: Compatibility;
  status: WafStatus;
  /** The converted configuration; undefined when the service would not convert (e.g. already migrated). */
  config: EntrypointRuleset | undefined;
  packages: WafPackage[] | undefined;
  overrides: WafOverride[] | undefined;
  firewallRules: FirewallRule[];
}

/** A migration plan: compatibility, the converted configuration and what the conversion changes or drops. */
export interface MigrationPlan {
  zoneId: string;
  compatible: boolean;
  migrationState: string;
  oldWafStatus: string;
  newWafStatus: string;
  /** Why the zone cannot migrate (or not without support), each with what to do. */
  blockers: string[];
  config: EntrypointRuleset | undefined;
  changes: ConversionChange[];
}

/** Score thresholds of the new core ruleset and the names the spec gives them. */
const THRESHOLD_NAMES: Record<number, string> = { 25: 'High', 40: 'Medium', 60: 'Low' };

/** The managed core ruleset's execute rule: the one whose overrides carry a score threshold or paranoia categories. */
function coreRulesetRule(config: EntrypointRuleset | undefined): RulesetRule | undefined {
  return config?.rules.find(
    (r) =>
      r.action === 'execute' &&
      ((r.action_parameters?.overrides?.rules ?? []).some((o) => o.score_threshold !== undefined) ||
        (r.action_parameters?.overrides?.categories ?? []).some((c) => c.category.startsWith('paranoia-level-'))),
  );
}

/** The paranoia level a core ruleset execution keeps: the highest level whose category is not switched off. */
export function paranoiaLevel(rule: RulesetRule): number | undefined {
  const off = new Set(
    (rule.action_parameters?.overrides?.categories ?? [])
      .filter((c) => c.enabled === false)
      .map((c) => /^paranoia-level-(\d)$/.exec(c.category)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number),
  );
  if (off.size === 0) return undefined;
  for (let level = 4; level >= 1; level -= 1) if (!off.has(level)) return level;
  return undefined;
}

function thresholdText(threshold: number | undefined): string {
  if (threshold === undefined) return 'no score threshold';
  const name = THRESHOLD_NAMES[threshold];
  return `score threshold ${threshold}${name ? ` (${name})` : ''}`;
}

/** Builds the plan from what the service answered. Pure. */
export function buildMigrationPlan(facts: MigrationFacts): MigrationPlan {
  const blockers: string[] = [];
  const changes: ConversionChange[] = [];
  for (const override of facts.overrides ?? []) {
    blockers.push(
      `URI-based WAF override ${override.id} (${override.urls.join(', ')}) blocks the migration: delete it ` +
        `(DELETE /zones/${facts.zoneId}/firewall/waf/overrides/${override.id})`,
    );
    changes.push({
      setting: `URI-based override ${override.id}`,
      before: override.urls.join(', '),
      after: '-',
      effect: 'blocks',
      note: 'must be deleted before the migration',
    });
  }
  if (facts.firewallRules.length > WAF_MIGRATION_LIMITS.maxFirewallRules) {
    blockers.push(
      `${facts.firewallRules.length} firewall rules to migrate, more than ${WAF_MIGRATION_LIMITS.maxFirewallRules}: contact support`,
    );
  }
  for (const rule of facts.firewallRules) {
    const bytes = Buffer.byteLength(rule.filter.expression, 'utf8');
    if (bytes > WAF_MIGRATION_LIMITS.maxExpressionBytes) {
      blockers.push(`firewall rule ${rule.id} has a ${bytes}-byte expression, more than 4 KB: contact support`);
    }
  }
  if (!facts.compatibility.compatible && blockers.length === 0) blockers.push('the service reports the zone as not compatible');

  for (const rule of facts.firewallRules) {
    if (rule.action !== 'bypass' || !rule.products?.includes('waf')) continue;
    changes.push({
      setting: `Firewall rule ${rule.id}`,
      before: `bypass WAF: ${rule.filter.expression}`,
      after: 'skip rule before the managed rulesets',
      effect: 'converted',
    });
  }

  const owasp = facts.packages?.find((p) => p.detection_mode === 'anomaly');
  const vendor = facts.packages?.find((p) => p.detection_mode === 'traditional');
  const core = coreRulesetRule(facts.config);
  if (vendor) {
    changes.push({ setting: 'Managed rules package', before: vendor.name, after: 'managed ruleset, executed', effect: 'kept' });
  }
  if (owasp) {
    const scoreRule = (core?.action_parameters?.overrides?.rules ?? []).find((o) => o.score_threshold !== undefined);
    const level = core ? paranoiaLevel(core) : undefined;
    changes.push({
      setting: 'Core rule set sensitivity',
      before: owasp.sensitivity ?? 'default',
      after: `${level === undefined ? 'paranoia level not set' : `PL${level}`}, ${thresholdText(scoreRule?.score_threshold)}`,
      effect: 'changed',
      note: 'the previous version had no paranoia level',
    });
    const beforeAction = owasp.action_mode ?? 'block';
    const afterAction = scoreRule?.action ?? '-';
    changes.push({
      setting: 'Core rule set action',
      before: beforeAction,
      after: afterAction,
      effect: beforeAction === afterAction ? 'kept' : 'changed',
      ...(beforeAction === 'simulate' ? { note: 'Simulate becomes Log' } : {}),
    });
    changes.push({
      setting: 'Core rule set group and rule overrides',
      before: 'any',
      after: '-',
      effect: 'dropped',
      note: "not migrated: recreate them with the new ruleset's tag or rule overrides",
    });
  }
  return {
    zoneId: facts.zoneId,
    compatible: facts.compatibility.compatible,
    migrationState: facts.compatibility.migration_state,
    oldWafStatus: facts.status.old_waf_status,
    newWafStatus: facts.status.new_waf_status,
    blockers,
    config: facts.config,
    changes,
  };
}

/** The previous WAF's APIs answer 410 once a zone migrated, and the conversion may be refused: both read as absent. */
async function unlessWithdrawn<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ZoneGuardError && error.status !== undefined && [400, 404, 409, 410].includes(error.status)) return undefined;
    throw error;
  }
}

/** Reads what the plan needs (reads only: nothing on the zone changes). */
export async function readMigrationFacts({ client, zoneId }: { client: ZoneGuardClient; zoneId: string }): Promise<MigrationFacts> {
  const compatibility = await client.wafMigration.check({ zoneId });
  const status = await client.wafMigration.status({ zoneId });
  const config = await unlessWithdrawn(() => client.wafMigration.config({ zoneId }));
  const packages = await unlessWithdrawn(() => client.wafPackages.list({ zoneId }).toArray());
  const overrides = await unlessWithdrawn(() => client.wafOverrides.list({ zoneId }).toArray());
  const firewallRules = (await unlessWithdrawn(() => client.firewallRules.list({ zoneId }).toArray())) ?? [];
  return { zoneId, compatibility, status, config, packages, overrides, firewallRules };
}

/** The migration plan of a zone, from client calls (check, status, config, packages, overrides, rules). */
export async function planMigration(args: { client: ZoneGuardClient; zoneId: string }): Promise<MigrationPlan> {
  return buildMigrationPlan(await readMigrationFacts(args));
}
