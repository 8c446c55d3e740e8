import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Compatibility } from '../../schemas';
import { query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import type { WafRecord, ZoneRecord } from '../state';
import { WAF_MIGRATION_LIMITS } from '../../schemas';
import { convertPreviousWaf, effectiveMigrationState, migrationLimitProblem, wafStatus } from '../waf';

/** Every migration call carries phase_two=1 (docs/service.md#migration-calls). */
export function assertPhaseTwo(request: FastifyRequest): void {
  if (single(query(request).phase_two) !== '1') throw ServiceError.of(400, ErrorCode.validation, Messages.phaseTwoRequired);
}

/** The zone's migration record (every zone has one from its seed). */
export function wafRecordOf(context: EmulatorContext, zoneId: string): WafRecord {
  const record = context.state.waf.get(zoneId);
  if (record) return record;
  const fresh: WafRecord = { previousWafEnabled: false, groupOverrides: {}, ruleOverrides: {}, migrationState: 'start', entrypointVersions: [] };
  context.state.waf.set(zoneId, fresh);
  return fresh;
}

/**
 * What keeps a zone that has not migrated yet from migrating, in the order the entry point PUT refuses them: URI-based
 * overrides (409 10031), then the limits (400 10032: more than 200 firewall rules, or an expression over 4 KB; every
 * firewall rule of the zone counts, docs/emulator.md "Compatibility"). The check reports the same list.
 */
export function migrationBlockers(context: EmulatorContext, zone: ZoneRecord): ServiceError[] {
  const { state } = context;
  const blockers: ServiceError[] = [];
  const overrides = state.collections.wafOverrides.count(zone.id);
  if (overrides > 0) blockers.push(ServiceError.of(409, ErrorCode.migrationIncompatible, Messages.migrationIncompatible(zone.id, overrides)));
  const limit = migrationLimitProblem(state.collections.firewallRules.list(zone.id), (id) => state.collections.filters.get(zone.id, id));
  if (limit?.kind === 'count') {
    blockers.push(ServiceError.of(400, ErrorCode.migrationNeedsSupport, Messages.migrationTooManyRules(limit.count, WAF_MIGRATION_LIMITS.maxFirewallRules)));
  }
  if (limit?.kind === 'expression') {
    blockers.push(
      ServiceError.of(
        400,
        ErrorCode.migrationNeedsSupport,
        Messages.migrationExpressionTooLong(limit.ruleId, limit.bytes, WAF_MIGRATION_LIMITS.maxExpressionBytes),
      ),
    );
  }
  return blockers;
}

/** /zones/{zone_id}/waf_migration/check, /config and /status. */
export function registerWafMigrationRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;

  api.get('/zones/:zone_id/waf_migration/check', async (request) => {
    const zone = zoneOf(context, request);
    assertPhaseTwo(request);
    const migrationState = effectiveMigrationState(wafRecordOf(context, zone.id), context.now());
    const migrating = migrationState === 'start' || migrationState === 'validation';
    // Why not, in the envelope's messages, so a client sees it before submitting (the result keeps the public shape).
    const blockers = migrating ? migrationBlockers(context, zone).flatMap((blocker) => blocker.errors) : [];
    const result: Compatibility = { compatible: migrating && blockers.length === 0, migration_state: migrationState };
    return okEnvelope(result, undefined, blockers);
  });

  api.get('/zones/:zone_id/waf_migration/config', async (request) => {
    const zone = zoneOf(context, request);
    assertPhaseTwo(request);
    const record = wafRecordOf(context, zone.id);
    const migrationState = effectiveMigrationState(record, context.now());
    if (migrationState === 'pending' || migrationState === 'complete') {
      throw ServiceError.of(409, ErrorCode.conflict, Messages.migrationDone(zone.id, migrationState));
    }
    return okEnvelope(
      convertPreviousWaf(record.previousWafEnabled, state.collections.wafPackages.list(zone.id), state.collections.firewallRules.list(zone.id), (id) =>
        state.collections.filters.get(zone.id, id),
      ),
    );
  });

  api.get('/zones/:zone_id/waf_migration/status', async (request) => {
    const zone = zoneOf(context, request);
    return okEnvelope(wafStatus(wafRecordOf(context, zone.id), context.now()));
  });
}
