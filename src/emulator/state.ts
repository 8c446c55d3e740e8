import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import {
  ConnectionSchema,
  CookieSchema,
  CspPolicySchema,
  FilterSchema,
  FirewallRuleSchema,
  MigrationStateSchema,
  PageGuardSettingsSchema,
  SavedRulesetSchema,
  ScriptDetailSchema,
  WafOverrideSchema,
  WafPackageSchema,
  formatZodIssues,
  readableIssue,
  type FirewallRuleWire,
  type RulesetRule,
} from '../schemas';
import { ZONE_APIS } from '../schemas/service';

/** The plans a zone can be on, cheapest first. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Firewall rules a zone may hold per plan, unless a seed says otherwise (the public plans' published quotas). */
export const DEFAULT_RULE_QUOTA: Record<Plan, number> = { free: 5, pro: 20, business: 100, enterprise: 1000 };

/** Where the public service's retirement of the legacy firewall rules and filters API stands for a zone. */
export const LEGACY_FIREWALL_STATES = ['available', 'maintenance', 'retired'] as const;
export type LegacyFirewallState = (typeof LEGACY_FIREWALL_STATES)[number];

/** Credentials accepted for every zone. */
export const AccountCredentialsSchema = z.strictObject({
  /** The account's API tokens, the first one the primary (what the banner and `info()` show as `apiToken`). */
  apiTokens: z.array(z.string().min(1)).min(1, 'must hold at least one token'),
  apiEmail: z.string().min(1),
  apiKey: z.string().min(1),
  /**
   * The APIs a token may use, by token (docs/service.md#authentication, ZONE_APIS), for the tokens given a list; a
   * token not in it may use every API of the zones it opens.
   */
  tokenApis: z.record(z.string(), z.array(z.enum(ZONE_APIS)).min(1)).default({}),
});
export type AccountCredentials = z.infer<typeof AccountCredentialsSchema>;

/** A zone the emulator serves. */
export const ZoneRecordSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hexadecimal characters'),
  name: z.string().min(1),
  plan: z.enum(PLANS),
  /** Firewall rules the zone may hold. */
  ruleQuota: z.number().int().min(0),
  /** Hostnames of the zone (the detected items are spread over them). */
  hosts: z.array(z.string()),
  /** The tokens accepted for this zone only, the first one the primary; never empty. */
  tokens: z.array(z.string().min(1)).min(1, 'must hold at least one token'),
  /** How long a migration stays pending before it completes; 0 completes it at once. */
  migrationDelayMs: z.number().int().min(0),
  /** The legacy firewall rules and filters API: served, in maintenance mode (reads only), or retired (410). */
  legacyFirewall: z.enum(LEGACY_FIREWALL_STATES).default('available'),
});
export type ZoneRecord = z.infer<typeof ZoneRecordSchema>;

/** A filter as stored: the wire object plus the rule it was created with in a single call, if any. */
export const FilterRecordSchema = FilterSchema.extend({ ownerRuleId: z.string().optional() });
export type FilterRecord = z.infer<typeof FilterRecordSchema>;

/** A firewall rule as stored: its filter by id, so that a filter shared by several rules is stored once. */
export const RuleRecordSchema = FirewallRuleSchema.omit({ filter: true }).extend({ filterId: z.string() });
export type RuleRecord = z.infer<typeof RuleRecordSchema>;

/** Where a zone stands in the WAF migration, as stored; `complete` is derived from `completeAt`. */
export const WafRecordSchema = z.strictObject({
  /** Whether the previous WAF managed rules are on (before the migration). */
  previousWafEnabled: z.boolean(),
  /** Group overrides of the previous core rule set: not migrated (docs/service.md), kept to show they are dropped. */
  groupOverrides: z.record(z.string(), z.string()),
  /** Rule overrides of the previous core rule set: not migrated either. */
  ruleOverrides: z.record(z.string(), z.string()),
  migrationState: MigrationStateSchema.exclude(['complete']),
  /** When a pending migration becomes complete (ISO timestamp). */
  completeAt: z.string().optional(),
  /** When the migration started (ISO timestamp): `created` of the status. */
  startedAt: z.string().optional(),
  /** Every saved version of the http_request_firewall_managed entry point ruleset, oldest first; the last is current. */
  entrypointVersions: z.array(SavedRulesetSchema),
  /** Every saved version of the zone's other entry points (custom rules, rate limiting rules), by phase, oldest first. */
  phaseVersions: z.record(z.string(), z.array(SavedRulesetSchema)).optional(),
});
export type WafRecord = z.infer<typeof WafRecordSchema>;

/**
 * The one table of the emulator's collections: a map per collection keyed by zone then id, each stored item checked
 * by its schema when a state file is read. Adding a collection is one line here.
 */
export const COLLECTION_SCHEMAS = {
  scripts: ScriptDetailSchema,
  connections: ConnectionSchema,
  cookies: CookieSchema,
  cspPolicies: CspPolicySchema,
  filters: FilterRecordSchema,
  firewallRules: RuleRecordSchema,
  wafOverrides: WafOverrideSchema,
  wafPackages: WafPackageSchema,
} as const;
export type CollectionName = keyof typeof COLLECTION_SCHEMAS;
export const COLLECTION_NAMES = Object.keys(COLLECTION_SCHEMAS) as CollectionName[];
type CollectionItem<K extends CollectionName> = z.infer<(typeof COLLECTION_SCHEMAS)[K]>;

/** A map per collection, keyed by zone then id; insertion order is the listing order. */
export class Collection<T extends { id: string }> {
  private readonly byZone = new Map<string, Map<string, T>>();

  list(zoneId: string): T[] {
    return [...(this.byZone.get(zoneId)?.values() ?? [])];
  }

  get(zoneId: string, id: string): T | undefined {
    return this.byZone.get(zoneId)?.get(id);
  }

  set(zoneId: string, item: T): T {
    let items = this.byZone.get(zoneId);
    if (!items) {
      items = new Map();
      this.byZone.set(zoneId, items);
    }
    items.set(item.id, item);
    return item;
  }

  delete(zoneId: string, id: string): boolean {
    return this.byZone.get(zoneId)?.delete(id) ?? false;
  }

  count(zoneId: string): number {
    return this.byZone.get(zoneId)?.size ?? 0;
  }

  clearZone(zoneId: string): void {
    this.byZone.delete(zoneId);
  }

  toJSON(): Record<string, T[]> {
    return Object.fromEntries([...this.byZone].map(([zoneId, items]) => [zoneId, [...items.values()]]));
  }

  load(snapshot: Record<string, T[]> | undefined): void {
    this.byZone.clear();
    for (const [zoneId, items] of Object.entries(snapshot ?? {})) {
      for (const item of items) this.set(zoneId, item);
    }
  }
}

/**
 * Field names that state and seed files written before the one-name-per-concept rename used, by their name now: such
 * a file still loads (docs/emulator.md#old-field-names). Top-level fields of a state file, fields of a seed's zone.
 */
export const LEGACY_FIELD_NAMES = { settings: 'pageGuard', policies: 'cspPolicies' } as const;

/**
 * An object with the fields of LEGACY_FIELD_NAMES under their names now. A field is renamed only when its new name
 * is absent, so a file holding both keeps both and its schema refuses the old one.
 */
export function renameLegacyFields(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const names: Readonly<Record<string, string>> = LEGACY_FIELD_NAMES;
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => {
      const current = Object.hasOwn(names, key) ? names[key] : undefined;
      return [current !== undefined && !Object.hasOwn(json, current) ? current : key, value];
    }),
  );
}

/** The JSON document `--state FILE` holds, checked field by field when it is read. */
export const StateSnapshotSchema = z.strictObject({
  version: z.literal(2, { error: 'must be 2 (this emulator\'s state file format); start without --state, or with a new file' }),
  credentials: AccountCredentialsSchema,
  zones: z.array(ZoneRecordSchema),
  pageGuard: z.record(z.string(), PageGuardSettingsSchema),
  waf: z.record(z.string(), WafRecordSchema),
  ...(Object.fromEntries(COLLECTION_NAMES.map((name) => [name, z.record(z.string(), z.array(COLLECTION_SCHEMAS[name]))])) as {
    [K in CollectionName]: z.ZodRecord<z.ZodString, z.ZodArray<(typeof COLLECTION_SCHEMAS)[K]>>;
  }),
});
export type StateSnapshot = z.infer<typeof StateSnapshotSchema>;

/** Everything the emulator knows. Handlers change it synchronously, so concurrent requests cannot interleave. */
export class EmulatorState {
  credentials: AccountCredentials = { apiTokens: [''], apiEmail: '', apiKey: '', tokenApis: {} };
  readonly zones = new Map<string, ZoneRecord>();
  readonly pageGuard = new Map<string, z.infer<typeof PageGuardSettingsSchema>>();
  readonly waf = new Map<string, WafRecord>();
  /** One Collection per entry of COLLECTION_SCHEMAS. */
  readonly collections = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, new Collection()])) as {
    readonly [K in CollectionName]: Collection<CollectionItem<K>>;
  };

  /** Forgets a zone and everything in it. */
  removeZone(zoneId: string): void {
    this.zones.delete(zoneId);
    this.pageGuard.delete(zoneId);
    this.waf.delete(zoneId);
    for (const name of COLLECTION_NAMES) this.collections[name].clearZone(zoneId);
  }

  /** Forgets everything. */
  clear(): void {
    for (const zoneId of [...this.zones.keys()]) this.removeZone(zoneId);
  }

  snapshot(): StateSnapshot {
    return {
      version: 2,
      credentials: this.credentials,
      zones: [...this.zones.values()],
      pageGuard: Object.fromEntries(this.pageGuard),
      waf: Object.fromEntries(this.waf),
      ...(Object.fromEntries(COLLECTION_NAMES.map((name) => [name, this.collections[name].toJSON()])) as {
        [K in CollectionName]: Record<string, CollectionItem<K>[]>;
      }),
    };
  }

  restore(snapshot: StateSnapshot): void {
    this.credentials = snapshot.credentials;
    this.zones.clear();
    for (const zone of snapshot.zones) this.zones.set(zone.id, zone);
    this.pageGuard.clear();
    for (const [zoneId, settings] of Object.entries(snapshot.pageGuard)) this.pageGuard.set(zoneId, settings);
    this.waf.clear();
    for (const [zoneId, waf] of Object.entries(snapshot.waf)) this.waf.set(zoneId, waf);
    for (const name of COLLECTION_NAMES) (this.collections[name] as Collection<{ id: string }>).load(snapshot[name]);
  }
}

/**
 * Reads a state file through its schema: a file that is not JSON, or not shaped as the emulator writes it, stops
 * the start with `state file PATH: path: problem` (one per problem), as seed files do.
 */
export function loadStateFile(path: string): StateSnapshot {
  return readCheckedJson('state file', path, z.preprocess(renameLegacyFields, StateSnapshotSchema));
}

/** Reads a JSON file through a schema; every problem becomes `LABEL PATH: path: problem` (seed and state files). */
export function readCheckedJson<S extends z.ZodType>(label: string, path: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${label} ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = schema.safeParse(json, { error: readableIssue });
  if (!parsed.success) throw new Error(`${label} ${path}: ${formatZodIssues(parsed.error).join('; ')}`);
  return parsed.data;
}

/**
 * Writes the state atomically, mode 0600: a temporary file beside the target, then a rename, so a crash mid-write
 * leaves the previous file whole. Synchronous on purpose: the response is sent only once the state is on disk.
 */
export function saveStateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  // Readable by its owner only, from its creation on: the file holds every credential the emulator accepts. A stale
  // temporary file of this process is removed first, since an existing file would keep its own mode.
  rmSync(temporary, { force: true });
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** The zone after one accepted write (or when its history began: `after` is then `start`). */
export interface ZoneMoment {
  /** The write that left the zone so: `DELETE /client/v4/zones/{id}/firewall/rules/{rule id}`, or `start`. */
  after: string;
  legacyFirewall: LegacyFirewallState;
  /** The legacy firewall rules, with their filters, as the legacy API lists them. */
  firewallRules: FirewallRuleWire[];
  /** The rules of the zone's http_request_firewall_custom entry point, in order (none while it has none). */
  customRules: RulesetRule[];
}
