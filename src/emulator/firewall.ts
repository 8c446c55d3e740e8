import type { ErrorItem, Filter, FirewallRuleWire } from '../schemas';
import { ErrorCode, Messages, ServiceError } from './errors';
import { validateExpression } from './expression';
import type { EmulatorState, FilterRecord, LegacyFirewallState, RuleRecord } from './state';

/** Route templates of the legacy firewall rules and filters API (relative to the base URL). */
const LEGACY_FIREWALL_ROUTE = /^\/zones\/:zone_id\/(firewall\/rules|filters)(\/|$)/;

/**
 * Why a zone refuses a call to its legacy firewall API, or undefined when it serves it (docs/emulator.md, "The
 * retired legacy firewall API"). Pure: the zone's state, the method and the route template decide.
 */
export function legacyFirewallRefusal(state: LegacyFirewallState, method: string, route: string | undefined): ServiceError | undefined {
  if (state === 'available' || route === undefined || !LEGACY_FIREWALL_ROUTE.test(route)) return undefined;
  if (state === 'retired') return ServiceError.of(410, ErrorCode.legacyFirewallRetired, Messages.legacyFirewallRetired);
  return method === 'GET' || method === 'HEAD' ? undefined : ServiceError.of(400, ErrorCode.legacyFirewallRetired, Messages.legacyFirewallMaintenance);
}

/** A filter on the wire (the owner is the emulator's own bookkeeping). */
export function filterToWire(filter: FilterRecord): Filter {
  const { ownerRuleId: _owner, ...wire } = filter;
  return wire;
}

/** A rule on the wire, with its filter. */
export function ruleToWire(state: EmulatorState, zoneId: string, rule: RuleRecord): FirewallRuleWire {
  const { filterId, ...fields } = rule;
  const filter = state.collections.filters.get(zoneId, filterId);
  return { ...fields, filter: filter ? filterToWire(filter) : { id: filterId, expression: '', paused: false } };
}

/** The rule a filter was created with in a single call, while that rule still uses it. */
export function lockingRule(state: EmulatorState, zoneId: string, filter: FilterRecord): RuleRecord | undefined {
  if (filter.ownerRuleId === undefined) return undefined;
  const owner = state.collections.firewallRules.get(zoneId, filter.ownerRuleId);
  return owner?.filterId === filter.id ? owner : undefined;
}

/** The rules that reference a filter. */
export function rulesUsing(state: EmulatorState, zoneId: string, filterId: string): RuleRecord[] {
  return state.collections.firewallRules.list(zoneId).filter((rule) => rule.filterId === filterId);
}

/**
 * Problems of the new expressions of one request: the rules-language check, a duplicate of an existing filter
 * (10102), a duplicate of an earlier item of the same request (10202). `field(i)` names the expression's place.
 */
export function expressionProblems(
  state: EmulatorState,
  zoneId: string,
  expressions: { index: number; expression: string; exceptFilterId?: string }[],
  field: (index: number) => string,
): ErrorItem[] {
  const problems: ErrorItem[] = [];
  const existing = state.collections.filters.list(zoneId);
  const firstSeen = new Map<string, number>();
  for (const { index, expression, exceptFilterId } of expressions) {
    const problem = validateExpression(expression);
    if (problem !== undefined) {
      problems.push({ code: ErrorCode.validation, message: `${field(index)}: ${problem}` });
      continue;
    }
    const duplicate = existing.find((f) => f.expression === expression && f.id !== exceptFilterId);
    const earlier = firstSeen.get(expression);
    if (duplicate) problems.push({ code: ErrorCode.duplicateFilter, message: Messages.duplicateFilter(field(index), duplicate.id) });
    else if (earlier !== undefined) problems.push({ code: ErrorCode.duplicateInRequest, message: Messages.duplicateInRequest(field(index), earlier) });
    else firstSeen.set(expression, index);
  }
  return problems;
}
