import type { z } from 'zod';
import { ErrorCode, formatZodIssues, type ErrorItem } from '../schemas';

/** The service's error codes (docs/service.md#errors), defined once in src/schemas/service.ts. */
export { ErrorCode };

/** A domain error: thrown anywhere in a handler, turned into the service's error envelope by one wrapper. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly status: number,
    readonly errors: ErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => e.message).join('; '));
  }

  /** One error item. */
  static of(status: number, code: number, message: string, headers?: Record<string, string>): ServiceError {
    return new ServiceError(status, [{ code, message }], headers);
  }

  /** A zod failure: one error item per issue, `path: message`, the path prefixed where the value sits. */
  static fromZod(error: z.ZodError, prefix = '', code: number = ErrorCode.validation): ServiceError {
    return new ServiceError(
      400,
      formatZodIssues(error, prefix).map((message) => ({ code, message })),
    );
  }
}

/** The message templates, in one place so tests can assert them verbatim. */
export const Messages = {
  noCredentials: 'Authentication error: send Authorization: Bearer <token>, or X-Auth-Email and X-Auth-Key',
  badToken: 'Authentication error: invalid API token',
  badKey: 'Authentication error: invalid X-Auth-Email or X-Auth-Key',
  tokenNotForZone: (zoneId: string) => `Authentication error: the API token is not valid for zone ${zoneId}`,
  apiNotAllowed: (api: string, zoneId: string) => `Authentication error: the API token is not allowed the ${api} API of zone ${zoneId}`,
  noRoute: 'No route for that URI',
  invalidId: (path: string) => `Could not route to ${path}, perhaps your object identifier is invalid?`,
  zoneNotFound: (zoneId: string) => `zone ${zoneId} not found`,
  notFound: (kind: string, id: string) => `${kind} ${id} not found`,
  malformedJson: (detail: string) => `Malformed JSON in request body: ${detail}`,
  unsupportedType: (type: string) => `Content-Type must be application/json, got ${type}`,
  unsupportedCharset: (charset: string) => `Content-Type charset must be utf-8 (JSON is UTF-8), got ${charset}`,
  bodyTooLarge: (limit: number) => `Request body is larger than ${limit} bytes`,
  bodyRequired: 'request body: required (a JSON document)',
  rateLimited: 'Rate limited. Please wait and consider throttling your request speed',
  injectedServerError: (status: number) => `Internal server error (injected fault, HTTP ${status})`,
  internal: (detail: string) => `Internal server error: ${detail}`,
  duplicateFilter: (field: string, existingId: string) => `${field}: config duplicates an already existing config (filter ${existingId} has this expression)`,
  duplicateInRequest: (field: string, firstIndex: number) => `${field}: duplicates the expression of the filter at index ${firstIndex} of this request`,
  filterLocked: (filterId: string, ruleId: string) =>
    `filter ${filterId} was created together with firewall rule ${ruleId} in one call and cannot be changed or deleted on its own; change or delete the rule`,
  filterHeldByRule: (field: string, filterId: string, ownerId: string) =>
    `${field}: filter ${filterId} belongs to firewall rule ${ownerId}, created together with it in one call, and no other rule may reference it; create a filter of its own (POST /zones/{zone_id}/filters) and reference that`,
  filterInUse: (filterId: string, ruleIds: string[]) =>
    `filter ${filterId} is referenced by firewall rule ${ruleIds.join(', ')}; delete or repoint the rule first`,
  ruleQuotaExceeded: (zoneId: string, plan: string, quota: number, existing: number, filterIds: string[]) =>
    `firewall rule quota exceeded: zone ${zoneId} (${plan} plan) allows ${quota} rules and has ${existing}; no rule was created` +
    (filterIds.length === 1
      ? `, but filter ${filterIds[0]} was created: reference it by id once the quota allows`
      : filterIds.length > 1
        ? `, but filters ${filterIds.join(', ')} were created: reference them by id once the quota allows`
        : ''),
  productsRequired: (field: string) => `${field}: required when action is bypass`,
  productsRefused: (field: string) => `${field}: allowed only when action is bypass`,
  idMismatch: (bodyId: string, pathId: string) => `id: ${bodyId} does not match the identifier in the path (${pathId})`,
  filterReference: (field: string, filterId: string) => `${field}: filter ${filterId} not found`,
  statusValue: (value: string) => `status: ${value} is not a status; use active, infrequent or inactive`,
  pageValue: 'page: must be a whole number of at least 1, or all',
  booleanQuery: (field: string) => `${field}: must be true or false`,
  phaseTwoRequired: 'phase_two: must be 1 (the second phase of the migration): add ?phase_two=1',
  migrationIncompatible: (zoneId: string, count: number) =>
    `zone ${zoneId} cannot migrate: it has ${count} URI-based WAF override${count === 1 ? '' : 's'}; delete ${count === 1 ? 'it' : 'them'} with DELETE /zones/${zoneId}/firewall/waf/overrides/{id}, then migrate`,
  migrationTooManyRules: (count: number, max: number) =>
    `the migration cannot be completed: the zone has ${count} firewall rules to migrate, more than ${max}; contact support to migrate this zone`,
  migrationExpressionTooLong: (ruleId: string, bytes: number, max: number) =>
    `the migration cannot be completed: firewall rule ${ruleId} has an expression of ${bytes} bytes, more than ${max}; contact support to migrate this zone`,
  validationNeedsEnterprise: (zoneId: string, plan: string) =>
    `waf_migration: validation mode is available to Enterprise zones only; zone ${zoneId} is on the ${plan} plan: use waf_migration=pending`,
  migrationDone: (zoneId: string, state: string) =>
    `zone ${zoneId} has already migrated to the new WAF managed rules (migration_state ${state}); the migration cannot be repeated or undone`,
  unknownManagedRuleset: (field: string, id: string, known: string) => `${field}: ${id} is not a managed ruleset; use ${known}`,
  previousWafWithdrawn: (zoneId: string) =>
    `the previous WAF managed rules API is not available for zone ${zoneId}: the zone migrated to the new WAF managed rules; use the rulesets API`,
  adminOrigin: (origin: string) => `admin API: requests from web pages are refused (Origin ${origin}); call it from a program, e.g. EmulatorAdmin`,
  adminHost: (host: string, allowed: string[]) => `admin API: Host ${host} is not this emulator's address; it answers ${allowed.join(' or ')} only`,
  serviceHost: (host: string, allowed: string[]) =>
    `Host ${host} is not this emulator's address; on loopback it answers ${allowed.join(' or ')} only (a page whose name resolves to 127.0.0.1 is refused)`,
  adminToken: 'admin API: send Authorization: Bearer <admin token> (printed when the emulator started; required off loopback)',
  tokenTaken: (field: string) => `${field}: this value is already a token of this emulator; choose another or leave it out`,
  tokenNotFound: 'token: not a token this emulator accepts (revoked, rotated, or never issued)',
  lastToken: (zoneId: string | null) =>
    `token: the last API token of ${zoneId === null ? 'the account' : `zone ${zoneId}`} cannot be revoked; rotate it instead, or add another first`,
  rulesetAction: (field: string, action: string, phase: string, allowed: readonly string[]) =>
    `${field}: ${action} is not an action of the ${phase} phase; use ${allowed.join(' or ')}`,
  ruleIdFormat: (field: string, what: string) => `${field}: must be ${what}: 32 lowercase hexadecimal characters`,
  ruleIdUnknown: (field: string, id: string) =>
    `${field}: the entry point has no rule ${id}; leave id out (or empty) to add a rule, the service assigns its id`,
  duplicateValue: (field: string, value: string, first: string) => `${field}: ${value} is already used by ${first}; each must be unique`,
  parameterRequired: (field: string, action: string, what: string) => `${field}: required for ${action}: ${what}`,
  parameterRefused: (field: string, action: string) => `${field}: not a parameter of ${action}`,
  skipNotInPhase: (field: string, phase: string) => `${field}: not available in the ${phase} phase; skip ruleset "current", rulesets, or rules`,
  skipTargetsCombined: (field: string, targets: readonly string[]) => `${field}: ${targets.join(' and ')} cannot be combined; use one`,
  skipRuleset: (field: string, value: string) => `${field}: ${value} is not a ruleset to skip; use current`,
  emptyList: (field: string) => `${field}: must not be empty`,
  overrideAction: (field: string, action: string, allowed: readonly string[]) =>
    `${field}: ${action} is not an override action; use ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1) ?? ''}`,
  overrideSetsNothing: (field: string, fields: string) => `${field}: must set at least one of ${fields}`,
  entrypointVersionNotFound: (zoneId: string, version: string) =>
    `zone ${zoneId} has no version ${version} of its http_request_firewall_managed entry point ruleset`,
  legacyFirewallMaintenance:
    'firewallrules.api.maintenance_mode: the firewall rules and filters API is in maintenance mode for this zone and no longer accepts modifications; use custom rules of the rulesets API (phase http_request_firewall_custom)',
  legacyFirewallRetired:
    'the firewall rules and filters API is retired for this zone (end of life 2025-06-15); use custom rules of the rulesets API (phase http_request_firewall_custom)',
  legacyFirewallBackwards: (zoneId: string, from: string, to: string) =>
    `zone ${zoneId}: the legacy firewall API cannot go from ${from} back to ${to}; the public service retires it one way only (docs/service.md#firewall-legacy)`,
  legacyConversionOverQuota: (zoneId: string, plan: string, quota: number, existing: number, converted: number) =>
    `zone ${zoneId} (${plan} plan): converting its ${converted} firewall rules beside the ${existing} custom rules already in http_request_firewall_custom would leave ${existing + converted}, over the phase's ${quota}; the service's conversion fails for such a zone: delete firewall rules (or custom rules) until they fit, then move the zone again; nothing changed`,
  notEmulated: (method: string, route: string) =>
    `${method} ${route} is part of the public API but not emulated by zoneguard's emulator (docs/emulator.md, "What it does not do")`,
  stateNotWritten: (path: string, detail: string) =>
    `the change was not applied: the state file ${path} could not be written (${detail}); fix the path or its permissions and retry`,
  malformedUri: 'Could not route to that URI: an identifier is malformed (bad percent-encoding, or longer than 100 characters)',
  headersTooLarge: 'Request headers are larger than the service accepts',
  malformedRequest: 'Malformed HTTP request',
  entrypointNotFound: (zoneId: string, phase = 'http_request_firewall_managed') => `zone ${zoneId} has no ${phase} entry point ruleset`,
  rulesetNotFound: (zoneId: string, rulesetId: string) => `zone ${zoneId} has no ruleset ${rulesetId}`,
  rulesetVersionNotFound: (rulesetId: string, version: string) => `ruleset ${rulesetId} has no version ${version}`,
  ruleNotFound: (rulesetId: string, ruleId: string) => `ruleset ${rulesetId} has no rule ${ruleId}`,
  positionRule: (field: string, ruleId: string) => `${field}: the ruleset has no rule ${ruleId}; name a rule of this ruleset, or use { index: n }`,
  positionIndex: (field: string, max: number) => `${field}: must be between 1 and ${max} (the places of this ruleset)`,
  entrypointExists: (phase: string) => `'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase ${phase}`,
  kindNotEmulated: (kind: string) =>
    `kind: ${kind} is a kind of ruleset the emulator does not hold (docs/emulator.md, "What it does not do"); it holds the zone's entry points (kind zone)`,
  phaseNotEmulated: (phase: string, phases: readonly string[], field = 'ruleset_phase') =>
    `${field}: ${phase} is a phase the emulator does not hold (docs/emulator.md, "What it does not do"); it holds ${phases.join(', ')}`,
  phaseQuota: (zoneId: string, phase: string, plan: string, quota: number, count: number) =>
    `rules: the ${phase} phase of zone ${zoneId} (${plan} plan) allows ${quota} rules; this write would leave ${count}; nothing was saved`,
  dryRunValue: 'dry_run: must be true or false',
  required: (field: string, what: string) => `${field}: required: ${what}`,
  notOneOf: (field: string, value: string, allowed: readonly (string | number)[]) => `${field}: ${value} is not allowed; use ${allowed.join(', ')}`,
  notInPhase: (field: string, phase: string) => `${field}: not available in the ${phase} phase`,
  mustInclude: (field: string, value: string) => `${field}: must include ${value}`,
  atLeast: (field: string, min: number) => `${field}: must be a whole number of at least ${min}`,
  between: (field: string, min: number, max: number) => `${field}: must be a whole number from ${min} to ${max}`,
  timeoutWithChallenge: (field: string, action: string) => `${field}: must be 0 with ${action} (a challenge lasts until it is passed)`,
} as const;

/** The failure envelope every error answers with. */
export function errorEnvelope(errors: ErrorItem[]) {
  return { success: false, errors, messages: [], result: null };
}

/** The success envelope; `result_info` only where given (page security lists, docs/service.md#envelope); `messages` are the service's notes. */
export function okEnvelope(result: unknown, resultInfo?: unknown, messages: ErrorItem[] = []) {
  return resultInfo === undefined
    ? { success: true, errors: [], messages, result }
    : { success: true, errors: [], messages, result, result_info: resultInfo };
}
