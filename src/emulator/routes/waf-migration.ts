import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Compatibility } from '../../schemas';
import { query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import type { WafRecord } from '../state';
import { convertPreviousWaf, effectiveMigrationState, wafStatus } from '../waf';

/** Every migration call carries phase_two=1 (spec, Versioning). */
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

/** /zones/{zone_id}/waf_migration/check, /config and /status. */
export function registerWafMigrationRoutes(api: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;

  api.get('/zones/:zone_id/waf_migration/check', async (request) => {
    const zone = zoneOf(context, request);
    assertPhaseTwo(request);
    const migrationState = effectiveMigrationState(wafRecordOf(context, zone.id), context.now());
    const compatible = state.wafOverrides.count(zone.id) === 0 && (migrationState === 'start' || migrationState === 'validation');
    const result: Compatibility = { compatible, migration_state: migrationState };
    return okEnvelope(result);
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
      convertPreviousWaf(record.previousWafEnabled, state.wafPackages.list(zone.id), state.rules.list(zone.id), (id) => state.filters.get(zone.id, id)),
    );
  });

  api.get('/zones/:zone_id/waf_migration/status', async (request) => {
    const zone = zoneOf(context, request);
    return okEnvelope(wafStatus(wafRecordOf(context, zone.id), context.now()));
  });
}
