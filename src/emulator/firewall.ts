import { CUSTOM_PHASE, type ErrorItem, type Filter, type FirewallRuleWire, type RulesetRule } from '../schemas';
import { convertFirewallRules, phaseQuota } from '../rulesets';
import { ErrorCode, Messages, ServiceError } from './errors';
import { validateExpression } from './expression';
import { stableId } from './ids';
import { nextEntrypointVersion } from './rulesets';
import {
  LEGACY_FIREWALL_STATES,
  type EmulatorState,
  type FilterRecord,
  type LegacyFirewallState,
  type RuleRecord,
  type WafRecord,
  type ZoneRecord,
} from './state';

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

/**
 * Moves a zone's legacy firewall API to `to` as the public service retires it (docs/service.md#legacy-conversion):
 * leaving `available`, the zone's firewall rules are converted into custom rules appended to its
 * http_request_firewall_custom entry point (one new version), in the legacy evaluation's order; the legacy rules stay
 * readable in maintenance. Refused, with nothing changed, when the move goes backwards or the converted rules would
 * put the phase over its quota (the service's conversion failed for such zones). `record` is the zone's WAF record,
 * which holds its entry points.
 */
export function moveLegacyFirewall(state: EmulatorState, zone: ZoneRecord, record: WafRecord, to: LegacyFirewallState, now: Date): ZoneRecord {
  const from = zone.legacyFirewall;
  if (LEGACY_FIREWALL_STATES.indexOf(to) < LEGACY_FIREWALL_STATES.indexOf(from)) {
    throw ServiceError.of(409, ErrorCode.conflict, Messages.legacyFirewallBackwards(zone.id, from, to));
  }
  if (from === 'available' && to !== 'available') {
    const converted = convertFirewallRules(state.collections.firewallRules.list(zone.id).map((rule) => ruleToWire(state, zone.id, rule)));
    const versions = record.phaseVersions?.[CUSTOM_PHASE] ?? [];
    const latest = versions.at(-1);
    const existing = latest?.rules ?? [];
    const quota = phaseQuota(CUSTOM_PHASE, zone.plan);
    if (quota !== undefined && existing.length + converted.length > quota) {
      throw ServiceError.of(409, ErrorCode.conflict, Messages.legacyConversionOverQuota(zone.id, zone.plan, quota, existing.length, converted.length));
    }
    if (converted.length > 0) {
      const rules = [...existing, ...withFreeRefs(existing, converted)];
      const saved = nextEntrypointVersion(
        { name: latest?.name ?? 'default', description: latest?.description ?? '', rules },
        latest,
        stableId(zone.id, 'entrypoint', CUSTOM_PHASE),
        now,
        CUSTOM_PHASE,
      );
      record.phaseVersions = { ...record.phaseVersions, [CUSTOM_PHASE]: [...versions, saved] };
    }
  }
  const moved: ZoneRecord = { ...zone, legacyFirewall: to };
  state.zones.set(zone.id, moved);
  return moved;
}

/** A ref must be unique in its ruleset: a converted rule whose ref is taken keeps none, and gets its id as ref. */
function withFreeRefs(existing: readonly RulesetRule[], converted: readonly RulesetRule[]): RulesetRule[] {
  const taken = new Set(existing.flatMap((rule) => (rule.ref === undefined ? [] : [rule.ref])));
  return converted.map(({ ref, ...rule }) => {
    if (ref === undefined || taken.has(ref)) return rule;
    taken.add(ref);
    return { ...rule, ref };
  });
}
