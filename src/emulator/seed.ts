import { z } from 'zod';
import {
  ConnectionSchema,
  CookieSchema,
  FirewallActionSchema,
  FirewallProductSchema,
  HexIdSchema,
  PageGuardSettingsSchema,
  ScriptDetailSchema,
  WafActionModeSchema,
  WafOverrideSchema,
  WafSensitivitySchema,
  ZoneIdSchema,
  FilterExpressionSchema,
} from '../schemas';
import { CspPolicyCreateSchema } from '../schemas/csp-policy';
import { stableHash, stableId, stableToken } from './ids';
import { findToken } from './credentials';
import { ErrorCode, Messages, ServiceError } from './errors';
import { DEFAULT_RULE_QUOTA, LEGACY_FIREWALL_STATES, PLANS, renameLegacyFields, type EmulatorState, type ZoneRecord } from './state';
import { OWASP_PACKAGE_NAME } from './waf';
import { moveLegacyFirewall } from './firewall';

/** The longest migration delay a seed may set: the service's migration takes up to an hour (docs/service.md). */
export const MAX_MIGRATION_DELAY_MS = 86_400_000;

/** The previous WAF of a seeded zone: on/off, the core rule set's sensitivity and action, its overrides. */
export const PreviousWafSeedSchema = z.strictObject({
  enabled: z.boolean().default(true),
  sensitivity: WafSensitivitySchema.default('default'),
  actionMode: WafActionModeSchema.default('block'),
  /** Group overrides of the core rule set (group id to mode); the migration drops them. */
  groupOverrides: z.record(z.string(), z.string()).default({}),
  /** Rule overrides of the core rule set (rule id to action); the migration drops them. */
  ruleOverrides: z.record(z.string(), z.string()).default({}),
});

/** A firewall rule created with its filter when a zone is seeded (no quota applies to seeding). */
export const FirewallRuleSeedSchema = z.strictObject({
  id: HexIdSchema.optional(),
  expression: FilterExpressionSchema,
  action: FirewallActionSchema,
  paused: z.boolean().default(false),
  description: z.string().optional(),
  priority: z.number().int().nullable().optional(),
  products: z.array(FirewallProductSchema).optional(),
});

/** One zone of a seed: everything but name and plan is optional. Seeding an existing id replaces that zone. */
export const ZoneSeedSchema = z.strictObject({
  id: ZoneIdSchema.optional(),
  name: z.string().min(1, 'must not be empty'),
  plan: z.enum(PLANS),
  /** Firewall rules the zone may hold; defaults to the plan's quota. */
  ruleQuota: z.number().int().min(0).optional(),
  hosts: z.array(z.string().min(1)).optional(),
  /** The zone-scoped API token; derived from the zone id when absent. */
  token: z.string().min(1).optional(),
  /** How long an entry point update with waf_migration=pending stays pending; defaults to 0, at most a day. */
  migrationDelayMs: z.number().int().min(0).max(MAX_MIGRATION_DELAY_MS, `must be at most ${MAX_MIGRATION_DELAY_MS} (a day)`).optional(),
  /**
   * The legacy firewall rules and filters API of the zone: `available` (default), `maintenance` (reads answer,
   * changes get 400 code 10020) or `retired` (every call gets 410 code 10020), as the public service retires it.
   */
  legacyFirewall: z.enum(LEGACY_FIREWALL_STATES).optional(),
  pageGuard: PageGuardSettingsSchema.partial().optional(),
  scripts: z.array(ScriptDetailSchema.partial({ id: true })).optional(),
  connections: z.array(ConnectionSchema.partial({ id: true })).optional(),
  cookies: z.array(CookieSchema.partial({ id: true })).optional(),
  cspPolicies: z.array(CspPolicyCreateSchema.extend({ id: HexIdSchema.optional() })).optional(),
  /** The previous WAF; absent means the zone has none (no packages, nothing to convert). */
  previousWaf: PreviousWafSeedSchema.optional(),
  /** URI-based overrides of the previous WAF: while any exists the zone cannot migrate. */
  wafOverrides: z.array(WafOverrideSchema.partial({ id: true })).optional(),
  firewallRules: z.array(FirewallRuleSeedSchema).optional(),
});
export type ZoneSeed = z.input<typeof ZoneSeedSchema>;

/** A seed file (`--seed FILE`): account credentials and zones. */
export const SeedFileSchema = z.strictObject({
  credentials: z
    .object({ apiToken: z.string().min(1), apiEmail: z.string().min(1), apiKey: z.string().min(1) })
    .partial()
    .optional(),
  zones: z.array(ZoneSeedSchema),
});
export type SeedFile = z.input<typeof SeedFileSchema>;

/** A seed file as read from disk (`--seed FILE`): a zone's old field names still load (docs/emulator.md#old-field-names). */
export const SeedFileJsonSchema = z.preprocess((json: unknown) => {
  if (typeof json !== 'object' || json === null || !('zones' in json) || !Array.isArray(json.zones)) return json;
  return { ...json, zones: json.zones.map(renameLegacyFields) };
}, SeedFileSchema);

/** The account credentials when a seed names none: fixed, so that a restarted emulator accepts the same ones. */
export const DEFAULT_CREDENTIALS: { apiToken: string; apiEmail: string; apiKey: string } = {
  apiToken: stableToken('zg_', 40, 'zoneguard emulator account token'),
  apiEmail: 'admin@acme.example',
  apiKey: stableHash('zoneguard emulator global key').slice(0, 37),
};

/** The zone-scoped token of a zone when its seed names none. */
export function defaultZoneToken(zoneId: string): string {
  return stableToken('zgz_', 40, 'zoneguard emulator zone token', zoneId);
}

/** When seeded objects were first seen: a fixed date, so the demo is the same on every run. */
const SEED_EPOCH = Date.parse('2026-09-01T08:00:00Z');
export const seedTime = (hoursAfterEpoch: number, fractional = false): string => {
  const iso = new Date(SEED_EPOCH + Math.round(hoursAfterEpoch * 3600_000)).toISOString();
  return fractional ? iso : iso.replace(/\.\d{3}Z$/, 'Z');
};

/** A zone's seed, parsed. */
type ParsedZoneSeed = z.output<typeof ZoneSeedSchema>;

/** The seed's detected items, policies, firewall rules (each with a filter of its own) and the previous WAF's URI-based overrides, in zone `id`. */
function seedObjects(state: EmulatorState, id: string, seed: ParsedZoneSeed): void {
  (seed.scripts ?? []).forEach((s, i) => state.collections.scripts.set(id, { ...s, id: s.id ?? stableId(id, 'script', i, s.url) }));
  (seed.connections ?? []).forEach((c, i) =>
    state.collections.connections.set(id, { ...c, id: c.id ?? stableId(id, 'connection', i, c.url) }),
  );
  (seed.cookies ?? []).forEach((c, i) =>
    state.collections.cookies.set(id, { ...c, id: c.id ?? stableId(id, 'cookie', i, c.name, c.host) }),
  );
  (seed.cspPolicies ?? []).forEach((p, i) => state.collections.cspPolicies.set(id, { ...p, id: p.id ?? stableId(id, 'policy', i) }));
  (seed.firewallRules ?? []).forEach((r, i) => {
    const ruleId = r.id ?? stableId(id, 'rule', i);
    const filterId = stableId(id, 'filter', i, r.expression);
    state.collections.filters.set(id, { id: filterId, expression: r.expression, paused: false, ownerRuleId: ruleId });
    state.collections.firewallRules.set(id, {
      id: ruleId,
      paused: r.paused,
      action: r.action,
      priority: r.priority ?? null,
      ...(r.description !== undefined ? { description: r.description } : {}),
      ...(r.products !== undefined ? { products: r.products } : {}),
      filterId,
    });
  });
  (seed.wafOverrides ?? []).forEach((o, i) =>
    state.collections.wafOverrides.set(id, { ...o, id: o.id ?? stableId(id, 'waf-override', i) }),
  );
}

/** The zone's WAF: the previous WAF's packages when seeded, and its migration at its start. */
function seedWaf(state: EmulatorState, id: string, seed: ParsedZoneSeed): void {
  if (seed.previousWaf) {
    state.collections.wafPackages.set(id, {
      id: stableId(id, 'waf-package', 'vendor'),
      name: 'CloudFlare',
      description: null,
      zone_id: id,
      detection_mode: 'traditional',
      status: 'active',
    });
    state.collections.wafPackages.set(id, {
      id: stableId(id, 'waf-package', 'owasp'),
      name: OWASP_PACKAGE_NAME,
      description: 'Covers OWASP Top 10 vulnerabilities, and more.',
      zone_id: id,
      detection_mode: 'anomaly',
      status: 'active',
      sensitivity: seed.previousWaf.sensitivity,
      action_mode: seed.previousWaf.actionMode,
    });
  }
  state.waf.set(id, {
    previousWafEnabled: seed.previousWaf?.enabled ?? false,
    groupOverrides: seed.previousWaf?.groupOverrides ?? {},
    ruleOverrides: seed.previousWaf?.ruleOverrides ?? {},
    migrationState: 'start',
    entrypointVersions: [],
  });
}

/** Puts a seeded zone in the state, replacing any zone with the same id, and answers its record. */
export function applyZoneSeed(state: EmulatorState, input: ZoneSeed): ZoneRecord {
  const seed = ZoneSeedSchema.parse(input);
  const id = seed.id ?? stableId('zone', seed.name);
  // A token of another zone, or of the account, would open this zone to whoever holds it, and close it to no one.
  const holder = seed.token === undefined ? undefined : findToken(state, seed.token);
  if (holder !== undefined && holder.zoneId !== id) throw ServiceError.of(409, ErrorCode.conflict, Messages.tokenTaken('token'));
  state.removeZone(id);
  const zone: ZoneRecord = {
    id,
    name: seed.name,
    plan: seed.plan,
    ruleQuota: seed.ruleQuota ?? DEFAULT_RULE_QUOTA[seed.plan],
    hosts: seed.hosts ?? [seed.name, `www.${seed.name}`],
    tokens: [seed.token ?? defaultZoneToken(id)],
    migrationDelayMs: seed.migrationDelayMs ?? 0,
    // Seeded available, then moved: a zone seeded in maintenance or retired has its rules converted (moveLegacyFirewall).
    legacyFirewall: 'available',
  };
  state.zones.set(id, zone);
  state.pageGuard.set(id, {
    enabled: seed.pageGuard?.enabled ?? false,
    updated_at: seed.pageGuard?.updated_at ?? seedTime(0, true),
    use_vendor_reporting_endpoint: seed.pageGuard?.use_vendor_reporting_endpoint ?? true,
    use_connection_url_path: seed.pageGuard?.use_connection_url_path ?? false,
  });
  seedObjects(state, id, seed);
  seedWaf(state, id, seed);
  const waf = state.waf.get(id);
  if (waf === undefined || seed.legacyFirewall === undefined || seed.legacyFirewall === 'available') return zone;
  try {
    return moveLegacyFirewall(state, zone, waf, seed.legacyFirewall, new Date(SEED_EPOCH));
  } catch (error) {
    state.removeZone(id);
    throw error;
  }
}

/** Replaces the whole state by a seed: its credentials (or the defaults) and its zones. */
export function applySeedFile(state: EmulatorState, input: SeedFile): void {
  const seed = SeedFileSchema.parse(input);
  state.clear();
  const credentials = { ...DEFAULT_CREDENTIALS, ...seed.credentials };
  state.credentials = { apiTokens: [credentials.apiToken], apiEmail: credentials.apiEmail, apiKey: credentials.apiKey, tokenApis: {} };
  for (const zone of seed.zones) applyZoneSeed(state, zone);
}
