// The typed API client of the service: got + the shared zod schemas.
import '../node-version'; // first: an unsupported Node fails here, saying what to install
export { ZoneGuardClient, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT, type ZoneGuardClientOptions } from './client';
// The groups as types only: a group is made by its client, never alone (src/client/client.ts).
export type { ConnectionsGroup, CookiesGroup, CspPoliciesGroup, FiltersGroup, FirewallRulesGroup, PageGuardGroup, RulesetsGroup } from './client';
export type { ScriptsGroup, WafMigrationGroup, WafOverridesGroup, WafPackagesGroup } from './client';
export type { Credentials } from './credentials';
export { DEFAULT_BASE_URL, SETTING_SOURCES, SettingsError } from './settings';
export {
  ZoneGuardError,
  BadRequestError,
  AuthenticationError,
  NotFoundError,
  RouteNotFoundError,
  ConflictError,
  RateLimitedError,
  RetiredApiError,
  ServerError,
  ConnectionError,
  TimeoutError,
  ResponseValidationError,
  ResponseTooLargeError,
} from './errors';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
export { DEFAULT_RATE_BUDGET, type RateBudgetLimits } from './rate-budget';
export { PageIterator, type Page } from './pagination';
export type { ClientLogger } from './transport';
export type { DetectedListArgs, PageArgs, ZoneArgs } from './groups/common';
export type { FilterListArgs } from './groups/filters';
export type { FirewallRuleListArgs } from './groups/firewall-rules';
