import { authHeaders, checkBaseUrl, secretsOf, secretValuesOf, type Credentials } from './credentials';
import {
  DEFAULT_RATE_BUDGET,
  DEFAULT_REQUESTS_PER_SECOND,
  perSecondBudget,
  requestsPerSecondProblem,
  sharedRateBudget,
  withPerSecondCap,
  type Budget,
  type BudgetKeyParts,
  type RateBudgetLimits,
} from './rate-budget';
import { storeRateBudget } from './rate-budget-store';
import { credentialGate } from './refused-credentials';
import { ConnectionsGroup } from './groups/connections';
import { CookiesGroup } from './groups/cookies';
import { FiltersGroup } from './groups/filters';
import { FirewallRulesGroup } from './groups/firewall-rules';
import { PageGuardGroup } from './groups/page-guard';
import { CspPoliciesGroup } from './groups/csp-policy';
import { RulesetsGroup } from './groups/rulesets';
import { ScriptsGroup } from './groups/scripts';
import { WafMigrationGroup } from './groups/waf-migration';
import { WafOverridesGroup } from './groups/waf-overrides';
import { WafPackagesGroup } from './groups/waf-packages';
import { resolveRetryPolicy, type RetryPolicy } from './retry';
import { createTransport, type ClientLogger } from './transport';

export type { ConnectionsGroup, CookiesGroup, CspPoliciesGroup, FiltersGroup, FirewallRulesGroup, PageGuardGroup, RulesetsGroup };
export type { ScriptsGroup, WafMigrationGroup, WafOverridesGroup, WafPackagesGroup };

/** Options of a ZoneGuardClient. Only `baseUrl` and `credentials` are required. */
export interface ZoneGuardClientOptions {
  /** The API base, ending in the version segment, e.g. `https://api.example.com/client/v4`. https, or http to loopback only. */
  baseUrl: string;
  /** An API token, or an email with its API key. Kept out of every error, log event and serializable object. */
  credentials: Credentials;
  /** Per-attempt timeout in milliseconds; default 30000. */
  timeoutMs?: number;
  /** Fields overriding DEFAULT_RETRY_POLICY; `false` for a single attempt. */
  retry?: Partial<RetryPolicy> | false;
  /** Client-side budget shared by every client of the process with the same credentials and base URL; default 1200 per 300000 ms; `false` for none. */
  rateBudget?: RateBudgetLimits | false;
  /**
   * A `redis://` or `rediss://` URL: the rate budget is then counted in that Redis store, shared by every process
   * on any machine with the same credentials and base URL. Unreachable, it is said once and the process's own budget applies.
   */
  rateBudgetStore?: string;
  /**
   * At most this many requests a second from the process to the service's host, whatever the credentials: the
   * service's limit per IP address. Default 200 (the service's); `false` for none. Shared by every client of the
   * process with the same base URL origin and cap.
   */
  rateBudgetPerSecond?: number | false;
  /** Largest answer the client reads, in bytes; a larger one fails with ResponseTooLargeError. Default 10 MiB. */
  maxResponseBytes?: number;
  /** The User-Agent header; default `pulumi-zoneguard`. */
  userAgent?: string;
  /** Progress events (request, response, retry, throttle), without credentials. */
  logger?: ClientLogger;
}

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Default size limit of an answer: a page holds at most 100 items of a few KB, so 10 MiB is far above any honest
 * answer, and low enough that a runaway one (a proxy streaming a file, a loop) cannot exhaust the process.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Default User-Agent. */
export const DEFAULT_USER_AGENT = 'pulumi-zoneguard';

/**
 * The typed client of the service. Groups are named after their concept, one name in every layer
 * (docs/CONTRACTS.md#names): `client.cspPolicies.create(...)`. Every method takes `{ zoneId, ...body }`, every list
 * is an async iterator over all its pages. The credentials live in
 * a closure of the transport, not on this object: `JSON.stringify(client)` and `util.inspect(client)` show none.
 */
export class ZoneGuardClient {
  /** The base URL the client talks to (no trailing slash). */
  readonly baseUrl: string;
  /** Page security settings: /page_guard. */
  readonly pageGuard: PageGuardGroup;
  /** Detected scripts: /page_guard/scripts. */
  readonly scripts: ScriptsGroup;
  /** Detected connections: /page_guard/connections. */
  readonly connections: ConnectionsGroup;
  /** Detected cookies: /page_guard/cookies. */
  readonly cookies: CookiesGroup;
  /** CSP policies: /page_guard/policies. */
  readonly cspPolicies: CspPoliciesGroup;
  /** Firewall rules with their filters: /firewall/rules. */
  readonly firewallRules: FirewallRulesGroup;
  /** Filters: /filters. */
  readonly filters: FiltersGroup;
  /** The WAF managed rules migration: /waf_migration and the managed entry point. */
  readonly wafMigration: WafMigrationGroup;
  /** URI-based overrides of the previous WAF: /firewall/waf/overrides. */
  readonly wafOverrides: WafOverridesGroup;
  /** Packages of the previous WAF: /firewall/waf/packages. */
  readonly wafPackages: WafPackagesGroup;
  /** The rulesets API: entry points of the managed, custom and rate limiting phases, one rule at a time, versions. */
  readonly rulesets: RulesetsGroup;

  constructor(options: ZoneGuardClientOptions) {
    if (!options || typeof options !== 'object') throw new TypeError('ZoneGuardClient needs options { baseUrl, credentials }');
    const baseUrl = checkBaseUrl(options.baseUrl);
    const headers = authHeaders(options.credentials);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new TypeError(`timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
    }
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
      throw new TypeError(`maxResponseBytes must be a whole number of bytes of at least 1, got ${String(maxResponseBytes)}`);
    }
    const limits = options.rateBudget === false ? undefined : (options.rateBudget ?? DEFAULT_RATE_BUDGET);
    const perSecond = options.rateBudgetPerSecond === false ? undefined : (options.rateBudgetPerSecond ?? DEFAULT_REQUESTS_PER_SECOND);
    const perSecondProblem = perSecond === undefined ? undefined : requestsPerSecondProblem(perSecond);
    if (perSecondProblem) throw new TypeError(`rateBudgetPerSecond ${perSecondProblem}`);
    const userBudget = limits && budgetOf({ baseUrl, secrets: secretsOf(options.credentials), limits }, options.rateBudgetStore);
    const transport = createTransport({
      baseUrl,
      authHeaders: headers,
      secrets: secretValuesOf(options.credentials),
      maxResponseBytes,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      timeoutMs,
      retry: resolveRetryPolicy(options.retry),
      budget: perSecond === undefined ? userBudget : withPerSecondCap(userBudget, perSecondBudget(baseUrl, perSecond)),
      gate: credentialGate(baseUrl, secretsOf(options.credentials)),
      logger: options.logger,
    });
    this.baseUrl = baseUrl;
    this.pageGuard = new PageGuardGroup(transport);
    this.scripts = new ScriptsGroup(transport);
    this.connections = new ConnectionsGroup(transport);
    this.cookies = new CookiesGroup(transport);
    this.cspPolicies = new CspPoliciesGroup(transport);
    this.firewallRules = new FirewallRulesGroup(transport);
    this.filters = new FiltersGroup(transport);
    this.wafMigration = new WafMigrationGroup(transport);
    this.wafOverrides = new WafOverridesGroup(transport);
    this.wafPackages = new WafPackagesGroup(transport);
    this.rulesets = new RulesetsGroup(transport);
  }
}

function budgetOf(parts: BudgetKeyParts, storeUrl: string | undefined): Budget {
  return storeUrl === undefined ? sharedRateBudget(parts) : storeRateBudget(parts, storeUrl);
}
