import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { EntrypointUpdateSchema, WafMigrationModeSchema } from '../../schemas';
import { params, parseBody, parseQuery, query, single, zoneOf, type EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { stableId } from '../ids';
import { entrypointProblems, nextEntrypointVersion, versionSummary } from '../rulesets';
import type { WafRecord, ZoneRecord } from '../state';
import { MIGRATION_PHASE, effectiveMigrationState } from '../waf';
import { assertPhaseTwo, migrationBlockers, wafRecordOf } from './waf-migration';

const ENTRYPOINT = `/zones/:zone_id/rulesets/phases/${MIGRATION_PHASE}/entrypoint`;

/**
 * The http_request_firewall_managed entry point (docs/emulator.md, "Entry point"). A PUT without waf_migration is
 * the ordinary ruleset update, before and after a migration; with waf_migration it also moves the zone through the
 * migration (start → pending → complete, or start → validation → pending → complete on Enterprise; no way back).
 * Every saved version can be read back.
 */
export function registerRulesetRoutes(api: FastifyInstance, context: EmulatorContext): void {

  const current = (request: FastifyRequest) => {
    const zone = zoneOf(context, request);
    const versions = wafRecordOf(context, zone.id).entrypointVersions;
    const latest = versions.at(-1);
    if (!latest) throw ServiceError.of(404, ErrorCode.notFound, Messages.entrypointNotFound(zone.id));
    return { zone, versions, latest };
  };

  api.get(ENTRYPOINT, async (request) => okEnvelope(current(request).latest));

  api.get(`${ENTRYPOINT}/versions`, async (request) => okEnvelope(current(request).versions.map(versionSummary)));

  api.get(`${ENTRYPOINT}/versions/:ruleset_version`, async (request) => {
    const { zone, versions } = current(request);
    const wanted = params(request).ruleset_version ?? '';
    const found = versions.find((version) => version.version === wanted);
    if (!found) throw ServiceError.of(404, ErrorCode.notFound, Messages.entrypointVersionNotFound(zone.id, wanted));
    return okEnvelope(found);
  });

  api.put(ENTRYPOINT, async (request) => {
    const zone = zoneOf(context, request);
    // A dry run applied as a real update would change the zone its caller meant only to test: refused, before anything.
    const body = request.body as Record<string, unknown> | undefined;
    if (query(request).dry_run !== undefined || (typeof body === 'object' && body !== null && Object.hasOwn(body, 'dry_run'))) {
      throw ServiceError.of(501, ErrorCode.notEmulated, Messages.dryRunNotEmulated);
    }
    const rawMode = single(query(request).waf_migration);
    if (rawMode !== undefined) assertPhaseTwo(request);
    const mode = rawMode === undefined ? undefined : parseQuery(z.object({ waf_migration: WafMigrationModeSchema }), { waf_migration: rawMode }).waf_migration;
    const update = parseBody(EntrypointUpdateSchema, request.body);
    const record = wafRecordOf(context, zone.id);
    const latest = record.entrypointVersions.at(-1);
    const problems = entrypointProblems(update, latest);
    if (problems.length > 0) throw new ServiceError(400, problems.map((message) => ({ code: ErrorCode.validation, message })));
    const now = context.now();
    if (mode !== undefined) assertMigrationAllowed(context, zone, record, mode, now);

    // Everything is computed before the record changes, so a failure cannot leave it half-applied.
    const saved = nextEntrypointVersion(update, latest, stableId(zone.id, 'entrypoint', MIGRATION_PHASE), now);
    // The new WAF is on from now; the previous one goes off when the pending delay has passed.
    const completeAt = mode === 'pending' ? new Date(now.getTime() + zone.migrationDelayMs).toISOString() : undefined;
    record.entrypointVersions.push(saved);
    if (mode !== undefined) {
      record.startedAt ??= saved.last_updated;
      record.migrationState = mode;
      if (completeAt !== undefined) record.completeAt = completeAt;
    }
    return okEnvelope(saved);
  });
}

/** Refuses a migration step the zone cannot take now (docs/service.md#migration-limits), before anything changes. */
function assertMigrationAllowed(context: EmulatorContext, zone: ZoneRecord, record: WafRecord, mode: 'pending' | 'validation', now: Date): void {
  const migrationState = effectiveMigrationState(record, now);
  if (migrationState === 'pending' || migrationState === 'complete') {
    throw ServiceError.of(409, ErrorCode.conflict, Messages.migrationDone(zone.id, migrationState));
  }
  if (mode === 'validation' && zone.plan !== 'enterprise') {
    throw ServiceError.of(400, ErrorCode.migrationPlan, Messages.validationNeedsEnterprise(zone.id, zone.plan));
  }
  const [blocker] = migrationBlockers(context, zone);
  if (blocker) throw blocker;
}
