import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { EntrypointRulesetSchema, MANAGED_RULESET_NAMES, WAF_MIGRATION_LIMITS, WafMigrationModeSchema, type ErrorItem, type SavedRuleset } from '../../schemas';
import { parseBody, parseQuery, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { newId, stableId } from '../ids';
import { MIGRATION_PHASE, effectiveMigrationState, migrationLimitProblem } from '../waf';
import { assertPhaseTwo, wafRecordOf } from './waf-migration';

const ENTRYPOINT = `/zones/:zone_id/rulesets/phases/${MIGRATION_PHASE}/entrypoint`;

/**
 * The http_request_firewall_managed entry point: PUT with waf_migration moves the zone through the spec's state
 * machine (start → pending → complete, or start → validation → pending → complete on Enterprise; no way back).
 */
export function registerRulesetRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;

  api.get(ENTRYPOINT, async (request) => {
    const zone = zoneOf(context, request);
    const entrypoint = wafRecordOf(context, zone.id).entrypoint;
    if (!entrypoint) throw ServiceError.of(404, ErrorCode.notFound, Messages.entrypointNotFound(zone.id));
    return okEnvelope(entrypoint);
  });

  api.put(ENTRYPOINT, async (request) => {
    const zone = zoneOf(context, request);
    assertPhaseTwo(request);
    const rawMode = single(query(request).waf_migration);
    if (rawMode === undefined) throw ServiceError.of(400, ErrorCode.validation, Messages.wafMigrationRequired);
    const { waf_migration: mode } = parseQuery(z.object({ waf_migration: WafMigrationModeSchema }), { waf_migration: rawMode });
    const body = parseBody(EntrypointRulesetSchema, request.body);
    const unknown: ErrorItem[] = [];
    body.rules.forEach((rule, index) => {
      const rulesetId = rule.action_parameters?.id;
      if (rule.action === 'execute' && (rulesetId === undefined || MANAGED_RULESET_NAMES[rulesetId] === undefined)) {
        const known = Object.entries(MANAGED_RULESET_NAMES).map(([id, name]) => `${id} (${name})`).join(' or ');
        unknown.push({ code: ErrorCode.validation, message: Messages.unknownManagedRuleset(`rules.${index}.action_parameters.id`, rulesetId ?? '(none)', known) });
      }
    });
    if (unknown.length > 0) throw new ServiceError(400, unknown);

    const record = wafRecordOf(context, zone.id);
    const now = context.now();
    const current = effectiveMigrationState(record, now);
    if (current === 'pending' || current === 'complete') throw ServiceError.of(409, ErrorCode.conflict, Messages.migrationDone(zone.id, current));
    if (mode === 'validation' && zone.plan !== 'enterprise') {
      throw ServiceError.of(400, ErrorCode.migrationPlan, Messages.validationNeedsEnterprise(zone.id, zone.plan));
    }
    const overrides = state.wafOverrides.count(zone.id);
    if (overrides > 0) throw ServiceError.of(409, ErrorCode.migrationIncompatible, Messages.migrationIncompatible(zone.id, overrides));
    const limit = migrationLimitProblem(state.rules.list(zone.id), (id) => state.filters.get(zone.id, id));
    if (limit?.kind === 'count') {
      throw ServiceError.of(400, ErrorCode.migrationNeedsSupport, Messages.migrationTooManyRules(limit.count, WAF_MIGRATION_LIMITS.maxFirewallRules));
    }
    if (limit?.kind === 'expression') {
      throw ServiceError.of(400, ErrorCode.migrationNeedsSupport, Messages.migrationExpressionTooLong(limit.ruleId, limit.bytes, WAF_MIGRATION_LIMITS.maxExpressionBytes));
    }

    const version = String(Number(record.entrypoint?.version ?? '0') + 1);
    const lastUpdated = now.toISOString();
    const saved: SavedRuleset = {
      id: record.entrypoint?.id ?? stableId(zone.id, 'entrypoint', MIGRATION_PHASE),
      name: body.name,
      description: body.description ?? '',
      kind: 'zone',
      phase: MIGRATION_PHASE,
      version,
      last_updated: lastUpdated,
      rules: body.rules.map((rule) => {
        const id = rule.id !== undefined && rule.id !== '' ? rule.id : newId();
        return { ...rule, id, version, ref: rule.ref !== undefined && rule.ref !== '' ? rule.ref : id };
      }),
    };
    record.entrypoint = saved;
    record.startedAt ??= lastUpdated;
    if (mode === 'validation') {
      record.migrationState = 'validation';
    } else {
      // The new WAF is on from now; the previous one goes off when the pending delay has passed.
      record.migrationState = 'pending';
      record.completeAt = new Date(now.getTime() + zone.migrationDelayMs).toISOString();
    }
    state.dirty = true;
    return okEnvelope(saved);
  });
}
