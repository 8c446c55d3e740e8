// Facts of the service that are not shapes: the managed rulesets the migration executes, its conversion tables and
// limits, and the error codes. One definition each, written as docs/service.md describes them; the emulator, the
// client, the providers and the CLI import them from here, so no two of them can disagree.
import type { WafActionMode, WafSensitivity } from './waf-overrides';

/** The vendor's managed ruleset: the converted configuration executes it for the previous managed rules. */
export const MANAGED_RULESET_ID = 'efb7b8c949ac4650a09736fc376e9aee';
/** The OWASP core ruleset: the converted configuration executes it for the previous OWASP core rule set. */
export const OWASP_RULESET_ID = '4814384a9e5d4991b9815dcfc25d2f1f';
/** The OWASP ruleset's anomaly score rule: its override carries the score threshold and the action. */
export const OWASP_ANOMALY_SCORE_RULE_ID = '6179ae15870a4bb7b2d480d4843b323c';

/** The managed rulesets an entry point rule may execute, by id, with their names (docs/service.md#managed-rulesets). */
export const MANAGED_RULESET_NAMES: Readonly<Record<string, string>> = {
  [MANAGED_RULESET_ID]: 'Cloudflare Managed Ruleset',
  [OWASP_RULESET_ID]: 'Cloudflare OWASP Core Ruleset',
};

/** Limits past which the caller cannot complete a migration and must contact support (docs/service.md#migration-limits). */
export const WAF_MIGRATION_LIMITS = {
  /** At most this many firewall rules to migrate. */
  maxFirewallRules: 200,
  /** At most this many bytes (UTF-8) in one firewall rule expression. */
  maxExpressionBytes: 4096,
} as const;

/** Length of an expression in the unit of the migration limit: UTF-8 bytes (a lone surrogate counts as U+FFFD, 3). */
export function expressionBytes(expression: string): number {
  return Buffer.byteLength(expression, 'utf8');
}

/** How one previous sensitivity carries over to the new OWASP ruleset. */
export interface SensitivityConversion {
  /** The new ruleset's paranoia level (PL1, PL2): levels above it are turned off by category. */
  paranoiaLevel: 1 | 2;
  /** The anomaly score at or above which a request matches. */
  scoreThreshold: number;
  /** The name the service gives that threshold. */
  thresholdLevel: 'High' | 'Medium';
}

/** docs/service.md#sensitivity-conversion; a sensitivity of off converts as default, deployed disabled. */
export const SENSITIVITY_CONVERSION: Readonly<Record<Exclude<WafSensitivity, 'off'>, SensitivityConversion>> = {
  high: { paranoiaLevel: 2, scoreThreshold: 40, thresholdLevel: 'Medium' },
  medium: { paranoiaLevel: 1, scoreThreshold: 25, thresholdLevel: 'High' },
  low: { paranoiaLevel: 1, scoreThreshold: 40, thresholdLevel: 'Medium' },
  default: { paranoiaLevel: 2, scoreThreshold: 40, thresholdLevel: 'Medium' },
};

/** The conversion of a sensitivity, off included (docs/service.md#sensitivity-conversion). */
export function sensitivityConversion(sensitivity: WafSensitivity): SensitivityConversion {
  return SENSITIVITY_CONVERSION[sensitivity === 'off' ? 'default' : sensitivity];
}

/** The previous core rule set's action in the new ruleset: an almost direct mapping, Simulate becomes Log. */
export const ACTION_CONVERSION: Readonly<Record<WafActionMode, string>> = { simulate: 'log', block: 'block', challenge: 'challenge' };

/**
 * Error codes of the service (docs/service.md#errors), with the HTTP status each goes with: the public API's where
 * it has one (10000, 7000, 7003, 971, 10102, 10202), this project's for the rest. The emulator answers them;
 * the providers tell failures apart by them, never by message text.
 */
export const ErrorCode = {
  /** 400: the body is not JSON, or not JSON at all (wrong Content-Type). */
  malformedBody: 1001,
  /** 400: a field of the body or the query fails validation; the message is `path: problem`. */
  validation: 1004,
  /** 403: missing, wrong or out-of-scope credentials. */
  authentication: 10000,
  /** 404: no route for that method and path. */
  noRoute: 7000,
  /** 400: an identifier in the path is malformed. */
  invalidId: 7003,
  /** 404: the zone or the object does not exist. */
  notFound: 10013,
  /** 409: the object's state forbids the change (locked filter, filter in use, migration already done). */
  conflict: 10027,
  /** 400: a filter with the same expression already exists in the zone. */
  duplicateFilter: 10102,
  /** 400: two filters of one request body have the same expression. */
  duplicateInRequest: 10202,
  /** 400: the zone's firewall rule quota would be exceeded. */
  ruleQuotaExceeded: 10030,
  /** 409: the zone has URI-based WAF overrides, so it cannot migrate. */
  migrationIncompatible: 10031,
  /** 400: the migration is past the limits the caller may migrate alone; support must be contacted. */
  migrationNeedsSupport: 10032,
  /** 400: validation mode asked for on a plan other than Enterprise. */
  migrationPlan: 10033,
  /** 410: the previous WAF managed rules API is withdrawn for a zone that migrated. */
  previousWafWithdrawn: 10034,
  /**
   * 400: a create of a zone's entry point of a phase that already has one (docs/service.md#ruleset-create), its
   * `source.pointer` `/kind`. The public API's code.
   */
  entrypointExists: 20217,
  /** 429: the service's rate limit (or an injected 429). */
  rateLimited: 971,
  /** 501: a route of the public API that the emulator does not emulate (docs/emulator.md); this project's code. */
  notEmulated: 10040,
  /**
   * 400 (maintenance mode: no more changes) or 410 (retired): the legacy firewall rules and filters API, which the
   * public service retired (docs/emulator.md, "The retired legacy firewall API"). The public API's code.
   */
  legacyFirewallRetired: 10020,
  /** 5xx: an injected server fault, or a bug of the emulator. */
  internal: 10001,
} as const;

/**
 * The APIs of a zone, each the routes below `/zones/{zone_id}/` that one permission of a token opens or refuses
 * (docs/service.md#authentication). The public service grants tokens per permission (Page Shield, Firewall Services,
 * Zone WAF, ...), each opening one or more of these; a refusal is the same 403 code 10000 whatever its cause. So a
 * refusal on one of them says nothing of the others: the client stops the refused credentials per zone and API
 * (src/client/refused-credentials.ts), and the emulator gives a token a list of them. The rulesets are one API here:
 * the public service scopes them per phase, but the three phases this project writes (custom, rate limiting, managed)
 * are all opened by Zone WAF, and a rule's own paths (`/rulesets/{id}/rules/...`) do not name its phase.
 */
export const ZONE_APIS = [
  'page_guard',
  'page_guard/scripts',
  'page_guard/connections',
  'page_guard/cookies',
  'page_guard/policies',
  'firewall/rules',
  'firewall/waf',
  'filters',
  'waf_migration',
  'rulesets',
] as const;
export type ZoneApi = (typeof ZONE_APIS)[number];

/**
 * The API of a path below the base URL (`/zones/{zone_id}/page_guard/policies/...` is `page_guard/policies`), or
 * undefined for a path with no zone, the zone itself, or a route of none of them. Pure.
 */
export function zoneApiOf(path: string): ZoneApi | undefined {
  const below = /^\/zones\/[^/?]+\/([^?]*)/.exec(path)?.[1];
  if (below === undefined) return undefined;
  let found: ZoneApi | undefined;
  for (const api of ZONE_APIS) {
    if ((below === api || below.startsWith(`${api}/`)) && api.length > (found?.length ?? 0)) found = api;
  }
  return found;
}
