// What `zoneguard export` reads of a zone, and which of its objects each kind declares. Reads only; the rest pure.
import { NotFoundError, type ZoneGuardClient } from '../client';
import {
  type CspPolicyWire,
  type Filter,
  type FirewallRuleWire,
  type PageGuardSettingsWire,
  type RulesetPhase,
  type SavedRuleset,
  CUSTOM_PHASE,
  MANAGED_PHASE,
  RATELIMIT_PHASE,
} from '../schemas';
import { managedEntrypointBlocker } from '../rulesets';
import { declarationOf, type KindDeclaration, type ObjectType, type ResourceKind } from '../kinds';

/**
 * What `export` reads from a zone: its page security settings, CSP policies, firewall rules and filters, and, once
 * the zone has migrated to the new WAF, its managed rules entry point.
 */
export interface ZoneSnapshot {
  zoneId: string;
  settings: PageGuardSettingsWire;
  cspPolicies: CspPolicyWire[];
  firewallRules: FirewallRuleWire[];
  filters: Filter[];
  /** The http_request_firewall_managed entry point of a migrated zone; absent before the migration or in validation. */
  wafRules?: SavedRuleset;
  /** The zone's migration state (`start`, `validation`, `pending`, `complete`); absent when not read. */
  migrationState?: string;
  /** The zone's entry points of the custom and rate limiting phases; absent while the zone has none. */
  customRules?: SavedRuleset;
  rateLimitRules?: SavedRuleset;
}

/** The zone's entry point of `phase`, or undefined while it has none. */
async function readEntrypoint(client: ZoneGuardClient, zoneId: string, phase: RulesetPhase): Promise<SavedRuleset | undefined> {
  try {
    return await client.rulesets.getEntrypoint({ zoneId, phase });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * The entry point WafManagedRules would take over: only on a zone its create accepts (migrated; in validation the
 * WafMigration resource owns it), and only when the zone has one.
 */
async function readWafRules(client: ZoneGuardClient, zoneId: string, migrationState: string): Promise<SavedRuleset | undefined> {
  if (managedEntrypointBlocker(migrationState) !== undefined) return undefined;
  return readEntrypoint(client, zoneId, MANAGED_PHASE);
}

/** Reads everything the exported program declares (reads only). */
export async function readZoneSnapshot({ client, zoneId }: { client: ZoneGuardClient; zoneId: string }): Promise<ZoneSnapshot> {
  const settings = await client.pageGuard.get({ zoneId });
  const cspPolicies = await client.cspPolicies.list({ zoneId }).toArray();
  const firewallRules = await client.firewallRules.list({ zoneId }).toArray();
  const filters = await client.filters.list({ zoneId }).toArray();
  const migrationState = String((await client.wafMigration.status({ zoneId })).migration_state);
  const wafRules = await readWafRules(client, zoneId, migrationState);
  const customRules = await readEntrypoint(client, zoneId, CUSTOM_PHASE);
  const rateLimitRules = await readEntrypoint(client, zoneId, RATELIMIT_PHASE);
  return {
    zoneId,
    settings,
    cspPolicies,
    firewallRules,
    filters,
    ...(wafRules ? { wafRules } : {}),
    migrationState,
    ...(customRules ? { customRules } : {}),
    ...(rateLimitRules ? { rateLimitRules } : {}),
  };
}

/**
 * The filters `export` declares as a FirewallFilter of their own (the two-call form): those several rules share, and
 * those no rule uses. A filter exactly one rule uses goes with that rule, as a FirewallRuleWithFilter
 * (docs/firewall-and-migration.md, "Which form"). Pure.
 */
export function standaloneFilterIds(rules: readonly FirewallRuleWire[], filters: readonly Filter[]): Set<string> {
  const uses = new Map<string, number>();
  for (const rule of rules) uses.set(rule.filter.id, (uses.get(rule.filter.id) ?? 0) + 1);
  const standalone = new Set([...uses].filter(([, count]) => count > 1).map(([id]) => id));
  for (const filter of filters) if (!uses.has(filter.id)) standalone.add(filter.id);
  return standalone;
}

/** The mode a WafMigration declares for a zone in `state`, or undefined before the migration (nothing to hold). Pure. */
export function migrationModeOf(state: string | undefined): 'direct' | 'validation' | undefined {
  if (state === 'validation') return 'validation';
  if (state === 'pending' || state === 'complete') return 'direct';
  return undefined;
}

/** The entry point of each phase whose rules a kind of the registry holds (identity.phase). */
const PHASE_RULES: Record<string, (snapshot: ZoneSnapshot) => SavedRuleset | undefined> = {
  [CUSTOM_PHASE]: ({ customRules }) => customRules,
  [RATELIMIT_PHASE]: ({ rateLimitRules }) => rateLimitRules,
};

/** The filters the snapshot holds, by id: a shared filter a rule lists but the filter list missed is there too, from the rule's copy of it. */
function filtersOf(snapshot: ZoneSnapshot): Filter[] {
  const filters = new Map(snapshot.firewallRules.map((r) => [r.filter.id, { paused: false, ...r.filter }] as const));
  for (const filter of snapshot.filters) filters.set(filter.id, filter);
  return [...filters.values()];
}

/**
 * The objects of each type a snapshot holds, and where two kinds hold one type, the share of the kind `identity`
 * says is its own (`phase`, `owns`). A type of the registry (src/kinds) the snapshot does not read is a compile error.
 */
const OBJECTS: Record<ObjectType, (snapshot: ZoneSnapshot, identity: KindDeclaration['identity']) => readonly object[]> = {
  pageGuardSettings: ({ settings }) => [settings],
  cspPolicy: ({ cspPolicies }) => cspPolicies,
  // A rule whose filter no other rule uses is the kind's that owns its filter (FirewallRuleWithFilter); the others
  // are the kind's on a filter by id (FirewallRule), their filter declared of its own.
  firewallRule: ({ firewallRules, filters }, { owns }) => {
    const standalone = standaloneFilterIds(firewallRules, filters);
    return firewallRules.filter((rule) => standalone.has(rule.filter.id) !== (owns?.object === 'filter'));
  },
  filter: (snapshot) => {
    const standalone = standaloneFilterIds(snapshot.firewallRules, snapshot.filters);
    return filtersOf(snapshot).filter((filter) => standalone.has(filter.id));
  },
  wafMigration: ({ migrationState }) => (migrationModeOf(migrationState) ? [{ mode: migrationModeOf(migrationState) }] : []),
  managedEntrypoint: ({ wafRules }) => (wafRules ? [wafRules] : []),
  rulesetRule: (snapshot, { phase }) => (phase === undefined ? undefined : PHASE_RULES[phase]?.(snapshot))?.rules ?? [],
};

/**
 * The objects of a snapshot a kind declares, each once whichever kinds share its type: a ruleset rule is the kind's
 * of its phase, a firewall rule the single-call kind's when its filter is its alone, a filter a FirewallFilter's
 * when several rules or none use it. Pure.
 */
export function objectsOf(kind: ResourceKind, snapshot: ZoneSnapshot): readonly object[] {
  const { identity } = declarationOf(kind) as KindDeclaration;
  return OBJECTS[identity.object](snapshot, identity);
}
