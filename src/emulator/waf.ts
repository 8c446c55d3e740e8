import {
  ACTION_CONVERSION,
  MANAGED_PHASE,
  MANAGED_RULESET_NAMES,
  WAF_MIGRATION_LIMITS,
  expressionBytes,
  type EntrypointRuleset,
  type MigrationState,
  type RulesetRule,
  type WafPackage,
  type WafStatus,
} from '../schemas';
import { MANAGED_RULESET_ID, sensitivityConversion } from '../schemas/service';
import { OWASP_ANOMALY_SCORE_RULE_ID, OWASP_RULESET_ID } from '../schemas/service';
import { ErrorCode, Messages, ServiceError } from './errors';
import type { FilterRecord, RuleRecord, WafRecord } from './state';

/** Name of the previous WAF's anomaly package (the OWASP core rule set). */
export const OWASP_PACKAGE_NAME = 'OWASP ModSecurity Core Rule Set';

/** The migration state a zone is in now: a pending migration becomes complete once its delay has passed. */
export function effectiveMigrationState(record: WafRecord, now: Date): MigrationState {
  if (record.migrationState === 'pending' && record.completeAt !== undefined && now.getTime() >= Date.parse(record.completeAt)) {
    return 'complete';
  }
  return record.migrationState;
}

/** The status read of a zone's WAF: which of the two WAFs is on in each state of the migration. */
export function wafStatus(record: WafRecord, now: Date): WafStatus {
  const state = effectiveMigrationState(record, now);
  // The previous WAF stays as it was (on or off) until the migration completes; migrating never turns it on.
  const oldOn = state === 'complete' ? false : record.previousWafEnabled;
  const status: WafStatus = {
    migration_state: state,
    old_waf_status: oldOn ? 'enabled' : 'disabled',
    new_waf_status: state === 'start' ? 'disabled' : 'enabled',
  };
  if (record.startedAt !== undefined) {
    status.created = record.startedAt;
    status.source = 'api';
  }
  return status;
}

/** Paranoia levels above the one chosen are switched off by category (the new ruleset tags rules by level). */
function paranoiaCategories(level: 1 | 2) {
  const off = level === 1 ? [2, 3, 4] : [3, 4];
  return off.map((n) => ({ category: `paranoia-level-${n}`, enabled: false }));
}

/**
 * The new configuration equivalent to a zone's previous WAF (the configuration read). Firewall rules that
 * bypass the WAF become skip rules placed first; the vendor package becomes an execute of the managed ruleset;
 * the anomaly package becomes an execute of the OWASP ruleset converted by the tables of docs/service.md. The previous
 * core rule set's group and rule overrides are dropped (docs/service.md#migration-conversion).
 */
export function convertPreviousWaf(
  previousWafEnabled: boolean,
  packages: WafPackage[],
  rules: RuleRecord[],
  filterOf: (id: string) => FilterRecord | undefined,
): EntrypointRuleset {
  const converted: RulesetRule[] = [];
  for (const rule of rules) {
    const filter = filterOf(rule.filterId);
    if (rule.action !== 'bypass' || !rule.products?.includes('waf') || !filter) continue;
    // Skipping the current ruleset skips the rest of this entry point: the managed rulesets below.
    converted.push({
      id: '',
      version: '',
      action: 'skip',
      expression: filter.expression,
      description: `Migrated from firewall rule ${rule.id}`,
      ref: '',
      enabled: !rule.paused,
      action_parameters: { ruleset: 'current' },
    });
  }
  if (packages.some((p) => p.detection_mode === 'traditional')) {
    converted.push({
      id: '',
      version: '',
      action: 'execute',
      expression: 'true',
      description: MANAGED_RULESET_NAMES[MANAGED_RULESET_ID],
      ref: '',
      enabled: previousWafEnabled,
      action_parameters: { id: MANAGED_RULESET_ID, overrides: { rules: [] } },
    });
  }
  const owasp = packages.find((p) => p.detection_mode === 'anomaly');
  if (owasp) {
    const sensitivity = owasp.sensitivity ?? 'default';
    const conversion = sensitivityConversion(sensitivity);
    converted.push({
      id: '',
      version: '',
      action: 'execute',
      expression: 'true',
      description: MANAGED_RULESET_NAMES[OWASP_RULESET_ID],
      ref: '',
      enabled: previousWafEnabled && sensitivity !== 'off',
      action_parameters: {
        id: OWASP_RULESET_ID,
        overrides: {
          categories: paranoiaCategories(conversion.paranoiaLevel),
          rules: [
            {
              id: OWASP_ANOMALY_SCORE_RULE_ID,
              action: ACTION_CONVERSION[owasp.action_mode ?? 'block'],
              score_threshold: conversion.scoreThreshold,
            },
          ],
        },
      },
    });
  }
  return { name: 'default', rules: converted };
}

/** Why a zone cannot be migrated by its owner (docs/service.md#migration-limits), or undefined when it can. */
export function migrationLimitProblem(
  rules: RuleRecord[],
  filterOf: (id: string) => FilterRecord | undefined,
): { kind: 'count'; count: number } | { kind: 'expression'; ruleId: string; bytes: number } | undefined {
  if (rules.length > WAF_MIGRATION_LIMITS.maxFirewallRules) return { kind: 'count', count: rules.length };
  for (const rule of rules) {
    const expression = filterOf(rule.filterId)?.expression ?? '';
    const bytes = expressionBytes(expression);
    if (bytes > WAF_MIGRATION_LIMITS.maxExpressionBytes) return { kind: 'expression', ruleId: rule.id, bytes };
  }
  return undefined;
}

/** The phase the migration writes, re-exported for the route. */
export const MIGRATION_PHASE = MANAGED_PHASE;

/** Throws 410 once a zone's migration is under way or done: the previous WAF managed rules API is withdrawn. */
export function assertPreviousWafAvailable(record: WafRecord | undefined, zoneId: string, now: Date): void {
  const state = record ? effectiveMigrationState(record, now) : 'start';
  if (state === 'pending' || state === 'complete') {
    throw ServiceError.of(410, ErrorCode.previousWafWithdrawn, Messages.previousWafWithdrawn(zoneId));
  }
}

/**
 * The rule groups of each previous-WAF package, by its detection mode (the vendor package is `traditional`, the
 * OWASP one `anomaly`): a fixed table of the emulator, the public API's group names. A zone's group overrides
 * (`previousWaf.groupOverrides` of the seed) turn a group off by id.
 */
export const PACKAGE_GROUPS: Readonly<Record<'traditional' | 'anomaly', readonly { id: string; name: string; description: string; rules_count: number }[]>> = {
  traditional: [
    {
      id: 'de677e5818985db1285d0e80225f06e5',
      name: 'Cloudflare Specials',
      description: 'Cloudflare rules to protect against common attacks',
      rules_count: 212,
    },
    { id: 'cfda825dfda411ea218cb70e6c88e82e', name: 'Cloudflare WordPress', description: 'Rules for WordPress sites', rules_count: 18 },
    { id: '7a1d0e2b4c6f8a0b2d4e6f8a1c3e5b7d', name: 'Cloudflare PHP', description: 'Rules for PHP applications', rules_count: 9 },
  ],
  anomaly: [
    { id: '2f4dd1c4a0b3c7e9d2f1a6b5c4d3e2f1', name: 'OWASP Generic Attacks', description: 'Generic attack signatures', rules_count: 31 },
    { id: '4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e', name: 'OWASP SQL Injection Attacks', description: 'SQL injection signatures', rules_count: 47 },
    { id: '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b', name: 'OWASP XSS Attacks', description: 'Cross-site scripting signatures', rules_count: 28 },
  ],
};
