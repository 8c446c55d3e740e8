import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  Connection,
  Cookie,
  CspPolicy,
  Filter,
  FirewallRule,
  PageGuardSettings,
  SavedRuleset,
  ScriptDetail,
  WafOverride,
  WafPackage,
} from '../schemas';

/** The plans a zone can be on, cheapest first. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Firewall rules a zone may hold per plan, unless a seed says otherwise (the public plans' published quotas). */
export const DEFAULT_RULE_QUOTA: Record<Plan, number> = { free: 5, pro: 20, business: 100, enterprise: 1000 };

/** Where the public service's retirement of the legacy firewall rules and filters API stands for a zone. */
export const LEGACY_FIREWALL_STATES = ['available', 'maintenance', 'retired'] as const;
export type LegacyFirewallState = (typeof LEGACY_FIREWALL_STATES)[number];

/** Credentials accepted for every zone. */
export interface AccountCredentials {
  /** The account's API tokens, the first one the primary (what the banner and `info()` show as `apiToken`). */
  apiTokens: string[];
  apiEmail: string;
  apiKey: string;
}

/** A zone the emulator serves. */
export interface ZoneRecord {
  id: string;
  name: string;
  plan: Plan;
  /** Firewall rules the zone may hold. */
  ruleQuota: number;
  /** Hostnames of the zone (the detected items are spread over them). */
  hosts: string[];
  /** The tokens accepted for this zone only, the first one the primary; never empty. */
  tokens: string[];
  /** How long a migration stays pending before it completes; 0 completes it at once. */
  migrationDelayMs: number;
  /** The legacy firewall rules and filters API: served, in maintenance mode (reads only), or retired (410). */
  legacyFirewall: LegacyFirewallState;
}

/** A filter as stored: the wire object plus the rule it was created with in a single call, if any. */
export type FilterRecord = Filter & { ownerRuleId?: string };

/** A firewall rule as stored: its filter by id, so that a filter shared by several rules is stored once. */
export type RuleRecord = Omit<FirewallRule, 'filter'> & { filterId: string };

/** Where a zone stands in the WAF migration, as stored; `complete` is derived from `completeAt`. */
export interface WafRecord {
  /** Whether the previous WAF managed rules are on (before the migration). */
  previousWafEnabled: boolean;
  /** Group overrides of the previous core rule set: not migrated (spec), kept to show they are dropped. */
  groupOverrides: Record<string, string>;
  /** Rule overrides of the previous core rule set: not migrated either. */
  ruleOverrides: Record<string, string>;
  migrationState: 'start' | 'validation' | 'pending';
  /** When a pending migration becomes complete (ISO timestamp). */
  completeAt?: string;
  /** When the migration started (ISO timestamp): `created` of the status. */
  startedAt?: string;
  /** Every saved version of the http_request_firewall_managed entry point ruleset, oldest first; the last is current. */
  entrypointVersions: SavedRuleset[];
}

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

/** The JSON document `--state FILE` holds. */
export interface StateSnapshot {
  version: 2;
  credentials: AccountCredentials;
  zones: ZoneRecord[];
  settings: Record<string, PageGuardSettings>;
  waf: Record<string, WafRecord>;
  scripts: Record<string, ScriptDetail[]>;
  connections: Record<string, Connection[]>;
  cookies: Record<string, Cookie[]>;
  policies: Record<string, CspPolicy[]>;
  filters: Record<string, FilterRecord[]>;
  rules: Record<string, RuleRecord[]>;
  wafOverrides: Record<string, WafOverride[]>;
  wafPackages: Record<string, WafPackage[]>;
}

/** Everything the emulator knows. Handlers change it synchronously, so concurrent requests cannot interleave. */
export class EmulatorState {
  credentials: AccountCredentials = { apiTokens: [], apiEmail: '', apiKey: '' };
  readonly zones = new Map<string, ZoneRecord>();
  readonly settings = new Map<string, PageGuardSettings>();
  readonly waf = new Map<string, WafRecord>();
  readonly scripts = new Collection<ScriptDetail>();
  readonly connections = new Collection<Connection>();
  readonly cookies = new Collection<Cookie>();
  readonly policies = new Collection<CspPolicy>();
  readonly filters = new Collection<FilterRecord>();
  readonly rules = new Collection<RuleRecord>();
  readonly wafOverrides = new Collection<WafOverride>();
  readonly wafPackages = new Collection<WafPackage>();
  /** Set by every mutation; the server writes the state file before answering and clears it. */
  dirty = false;

  private get collections() {
    return [
      this.scripts,
      this.connections,
      this.cookies,
      this.policies,
      this.filters,
      this.rules,
      this.wafOverrides,
      this.wafPackages,
    ] as const;
  }

  /** Forgets a zone and everything in it. */
  removeZone(zoneId: string): void {
    this.zones.delete(zoneId);
    this.settings.delete(zoneId);
    this.waf.delete(zoneId);
    for (const collection of this.collections) collection.clearZone(zoneId);
    this.dirty = true;
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
      settings: Object.fromEntries(this.settings),
      waf: Object.fromEntries(this.waf),
      scripts: this.scripts.toJSON(),
      connections: this.connections.toJSON(),
      cookies: this.cookies.toJSON(),
      policies: this.policies.toJSON(),
      filters: this.filters.toJSON(),
      rules: this.rules.toJSON(),
      wafOverrides: this.wafOverrides.toJSON(),
      wafPackages: this.wafPackages.toJSON(),
    };
  }

  restore(snapshot: StateSnapshot): void {
    if (snapshot.version !== 2) throw new Error(`unsupported state file version ${String(snapshot.version)}`);
    this.credentials = snapshot.credentials;
    this.zones.clear();
    for (const zone of snapshot.zones) this.zones.set(zone.id, zone);
    this.settings.clear();
    for (const [zoneId, settings] of Object.entries(snapshot.settings)) this.settings.set(zoneId, settings);
    this.waf.clear();
    for (const [zoneId, waf] of Object.entries(snapshot.waf)) this.waf.set(zoneId, waf);
    this.scripts.load(snapshot.scripts);
    this.connections.load(snapshot.connections);
    this.cookies.load(snapshot.cookies);
    this.policies.load(snapshot.policies);
    this.filters.load(snapshot.filters);
    this.rules.load(snapshot.rules);
    this.wafOverrides.load(snapshot.wafOverrides);
    this.wafPackages.load(snapshot.wafPackages);
    this.dirty = false;
  }
}

/** Reads a state file written by `saveStateFile`. */
export function loadStateFile(path: string): StateSnapshot {
  return JSON.parse(readFileSync(path, 'utf8')) as StateSnapshot;
}

/**
 * Writes the state atomically, mode 0600: a temporary file beside the target, then a rename, so a crash mid-write leaves
 * the previous file whole. Synchronous on purpose: the response is sent only once the state is on disk.
 */
export function saveStateFile(path: string, snapshot: StateSnapshot): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  // Readable by its owner only, from its creation on: the file holds every credential the emulator accepts. A stale
  // temporary file of this process is removed first, since an existing file would keep its own mode.
  rmSync(temporary, { force: true });
  writeFileSync(temporary, JSON.stringify(snapshot), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, path);
}
