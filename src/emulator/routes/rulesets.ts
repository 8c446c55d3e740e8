import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { RulesetPhaseSchema, WafMigrationModeSchema, type RulesetRule, type SavedRuleset } from '../../schemas';
import { EntrypointCreateSchema, EntrypointUpdateSchema, RuleCreateSchema, RulePatchSchema } from '../../schemas/rulesets';
import { entitlementProblem, phaseQuota, ruleProblems } from '../../rulesets';
import { checkExpression } from '../../expression';
import { params, parseBody, parseQuery, query, single, zoneOf, type EmulatorContext } from '../context';
import { validateExpression } from '../expression';
import { ErrorCode, Messages, ServiceError, okEnvelope } from '../errors';
import { stableId } from '../ids';
import { entrypointProblems, nextEntrypointVersion, placeRule, problemMessage, versionSummary } from '../rulesets';
import type { WafRecord, ZoneRecord } from '../state';
import { MIGRATION_PHASE, effectiveMigrationState } from '../waf';
import { assertPhaseTwo, migrationBlockers, wafRecordOf } from './waf-migration';

const PHASES: readonly string[] = RulesetPhaseSchema.options;
const ENTRYPOINT = '/zones/:zone_id/rulesets/phases/:ruleset_phase/entrypoint';
const RULESET = '/zones/:zone_id/rulesets/:ruleset_id';

/** The saved versions of a zone's entry point of `phase`, oldest first; `create` makes the list for a first write. */
function versionsOf(record: WafRecord, phase: string, create = false): SavedRuleset[] {
  if (phase === MIGRATION_PHASE) return record.entrypointVersions;
  const found = record.phaseVersions?.[phase];
  if (found || !create) return found ?? [];
  record.phaseVersions ??= {};
  return (record.phaseVersions[phase] = []);
}

/** A phase the emulator holds; refused with 501 for a phase of the public API it does not hold. */
function heldPhase(phase: string, field?: string): string {
  if (!PHASES.includes(phase)) throw ServiceError.of(501, ErrorCode.notEmulated, Messages.phaseNotEmulated(phase, PHASES, field));
  return phase;
}

/** The phase of the path (heldPhase). */
const phaseOf = (request: FastifyRequest): string => heldPhase(params(request).ruleset_phase ?? '');

/** `dry_run=true`: validate and answer as if written, change nothing (docs/service.md#rulesets); any value but true or false is a 400. */
function isDryRun(request: FastifyRequest): boolean {
  const raw = single(query(request).dry_run);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw ServiceError.of(400, ErrorCode.validation, Messages.dryRunValue);
}

const refuse = (messages: string[]) => new ServiceError(400, messages.map((message) => ({ code: ErrorCode.validation, message })));

/**
 * Saves the next version of a zone's entry point of `phase` holding `rules`, after the plan's quota of rules (a write
 * that does not add rules passes, so a zone over its quota can still shrink) and its entitlements (fields of Bot
 * Management on the enterprise plan only). A dry run stops before the save and
 * answers null, as the public API does. Last writer wins: no version is compared.
 */
function save(
  context: EmulatorContext,
  zone: ZoneRecord,
  phase: string,
  next: { name?: string; description?: string; rules: RulesetRule[] },
  dryRun: boolean,
  now = context.now(),
) {
  const versions = versionsOf(wafRecordOf(context, zone.id), phase, !dryRun);
  const latest = versions.at(-1);
  const quota = phaseQuota(phase, zone.plan);
  if (quota !== undefined && next.rules.length > quota && next.rules.length > (latest?.rules.length ?? 0)) {
    throw ServiceError.of(400, ErrorCode.validation, Messages.phaseQuota(zone.id, phase, zone.plan, quota, next.rules.length));
  }
  const entitlements = next.rules.flatMap((rule, index) => {
    const fields = [rule.expression, rule.ratelimit?.counting_expression].flatMap((text) => {
      const checked = text ? checkExpression(text) : undefined;
      return checked?.ok ? checked.fields : [];
    });
    const problem = entitlementProblem(fields, zone.plan);
    return problem === undefined ? [] : [`rules.${index}.expression: ${problem}; nothing was saved`];
  });
  if (entitlements.length > 0) throw refuse(entitlements);
  if (dryRun) return okEnvelope(null);
  const saved = nextEntrypointVersion(next, latest, stableId(zone.id, 'entrypoint', phase), now, phase);
  versions.push(saved);
  return okEnvelope(saved);
}

/**
 * The entry points of the phases the emulator holds (docs/emulator.md, "Entry point"), their versions, and the
 * rulesets API by ruleset id: the per-rule writes and the versions. For the managed phase, a PUT with waf_migration
 * also moves the zone through the migration (start → pending → complete, or start → validation → pending → complete
 * on Enterprise; no way back).
 */
export function registerRulesetRoutes(api: FastifyInstance, context: EmulatorContext): void {
  registerEntrypointRoutes(api, context);
  registerRuleRoutes(api, context);
}

function registerEntrypointRoutes(api: FastifyInstance, context: EmulatorContext): void {
  // The create-only write of an entry point (docs/service.md#ruleset-create): checked like the PUT, refused when the
  // zone has one of the phase. Nothing is awaited between the check and the save, so of two creates at once one
  // makes it and the other is refused.
  api.post('/zones/:zone_id/rulesets', async (request) => {
    const zone = zoneOf(context, request);
    const dryRun = isDryRun(request);
    const { kind, phase: raw, ...ruleset } = parseBody(EntrypointCreateSchema, request.body);
    if (kind !== 'zone') throw ServiceError.of(501, ErrorCode.notEmulated, Messages.kindNotEmulated(kind));
    const phase = heldPhase(raw, 'phase');
    if (versionsOf(wafRecordOf(context, zone.id), phase).length > 0) {
      throw new ServiceError(400, [{ code: ErrorCode.entrypointExists, message: Messages.entrypointExists(phase), source: { pointer: '/kind' } }]);
    }
    const problems = entrypointProblems(ruleset, undefined, phase);
    if (problems.length > 0) throw refuse(problems);
    return save(context, zone, phase, ruleset, dryRun);
  });

  const current = (request: FastifyRequest) => {
    const zone = zoneOf(context, request);
    const phase = phaseOf(request);
    const versions = versionsOf(wafRecordOf(context, zone.id), phase);
    const latest = versions.at(-1);
    if (!latest) throw ServiceError.of(404, ErrorCode.notFound, Messages.entrypointNotFound(zone.id, phase));
    return { zone, phase, versions, latest };
  };

  api.get(ENTRYPOINT, async (request) => okEnvelope(current(request).latest));

  api.get(`${ENTRYPOINT}/versions`, async (request) => okEnvelope(current(request).versions.map(versionSummary)));

  api.get(`${ENTRYPOINT}/versions/:ruleset_version`, async (request) => {
    const { zone, phase, versions, latest } = current(request);
    const wanted = params(request).ruleset_version ?? '';
    const found = versions.find((version) => version.version === wanted);
    if (!found) {
      throw ServiceError.of(
        404,
        ErrorCode.notFound,
        phase === MIGRATION_PHASE ? Messages.entrypointVersionNotFound(zone.id, wanted) : Messages.rulesetVersionNotFound(latest.id, wanted),
      );
    }
    return okEnvelope(found);
  });

  api.put(ENTRYPOINT, async (request) => {
    const zone = zoneOf(context, request);
    const phase = phaseOf(request);
    const dryRun = isDryRun(request);
    const rawMode = phase === MIGRATION_PHASE ? single(query(request).waf_migration) : undefined;
    if (rawMode !== undefined) assertPhaseTwo(request);
    const mode = rawMode === undefined ? undefined : parseQuery(z.object({ waf_migration: WafMigrationModeSchema }), { waf_migration: rawMode }).waf_migration;
    const update = parseBody(EntrypointUpdateSchema, request.body);
    const record = wafRecordOf(context, zone.id);
    const problems = entrypointProblems(update, versionsOf(record, phase).at(-1), phase);
    if (problems.length > 0) throw refuse(problems);
    const now = context.now();
    if (mode !== undefined) assertMigrationAllowed(context, zone, record, mode, now);
    // Everything is checked before the record changes, so a failure cannot leave it half-applied.
    const answer = save(context, zone, phase, update, dryRun, now);
    if (mode !== undefined && !dryRun) {
      // The new WAF is on from now; the previous one goes off when the pending delay has passed.
      record.startedAt ??= now.toISOString();
      record.migrationState = mode;
      if (mode === 'pending') record.completeAt = new Date(now.getTime() + zone.migrationDelayMs).toISOString();
    }
    return answer;
  });
}

function registerRuleRoutes(api: FastifyInstance, context: EmulatorContext): void {
  /** The ruleset of the path: one of the zone's entry points, found by its id. */
  const rulesetOf = (request: FastifyRequest) => {
    const zone = zoneOf(context, request);
    const id = params(request).ruleset_id ?? '';
    const record = wafRecordOf(context, zone.id);
    const phase = PHASES.find((candidate) => stableId(zone.id, 'entrypoint', candidate) === id && versionsOf(record, candidate).length > 0);
    const versions = phase === undefined ? [] : versionsOf(record, phase);
    const latest = versions.at(-1);
    if (phase === undefined || !latest) throw ServiceError.of(404, ErrorCode.notFound, Messages.rulesetNotFound(zone.id, id));
    return { zone, phase, versions, latest };
  };
  /** One rule's problems in its phase, paths from the body (`action_parameters.id`), and its ref against the others'. */
  const checkRule = (rule: RulesetRule, others: readonly RulesetRule[], phase: string) => {
    const problems = ruleProblems(rule, phase, validateExpression).map(problemMessage);
    const taken = rule.ref === undefined || rule.ref === '' ? -1 : others.findIndex((other) => other.ref === rule.ref);
    if (taken >= 0) problems.push(Messages.duplicateValue('ref', rule.ref ?? '', `rules.${taken}.ref`));
    if (problems.length > 0) throw refuse(problems);
  };
  const placed = (result: RulesetRule[] | string) => {
    if (typeof result === 'string') throw refuse([result]);
    return result;
  };

  api.get(RULESET, async (request) => okEnvelope(rulesetOf(request).latest));
  api.get(`${RULESET}/versions`, async (request) => okEnvelope(rulesetOf(request).versions.map(versionSummary)));
  api.get(`${RULESET}/versions/:ruleset_version`, async (request) => {
    const { latest, versions } = rulesetOf(request);
    const wanted = params(request).ruleset_version ?? '';
    const found = versions.find((version) => version.version === wanted);
    if (!found) throw ServiceError.of(404, ErrorCode.notFound, Messages.rulesetVersionNotFound(latest.id, wanted));
    return okEnvelope(found);
  });

  api.post(`${RULESET}/rules`, async (request) => {
    const dryRun = isDryRun(request);
    const { zone, phase, latest } = rulesetOf(request);
    const { position, ...rule } = parseBody(RuleCreateSchema, request.body);
    checkRule(rule, latest.rules, phase);
    return save(context, zone, phase, { name: latest.name, description: latest.description, rules: placed(placeRule(latest.rules, rule, position)) }, dryRun);
  });

  api.patch(`${RULESET}/rules/:rule_id`, async (request) => {
    const dryRun = isDryRun(request);
    const { zone, phase, latest } = rulesetOf(request);
    const ruleId = params(request).rule_id ?? '';
    const index = latest.rules.findIndex((rule) => rule.id === ruleId);
    if (index < 0) throw ServiceError.of(404, ErrorCode.notFound, Messages.ruleNotFound(latest.id, ruleId));
    const { position, ...patch } = parseBody(RulePatchSchema, request.body);
    const rule: RulesetRule = { ...(latest.rules[index] as RulesetRule), ...patch };
    const others = latest.rules.filter((_, k) => k !== index);
    checkRule(rule, others, phase);
    const rules = position === undefined ? latest.rules.map((other, k) => (k === index ? rule : other)) : placed(placeRule(others, rule, position));
    return save(context, zone, phase, { name: latest.name, description: latest.description, rules }, dryRun);
  });

  api.delete(`${RULESET}/rules/:rule_id`, async (request) => {
    const dryRun = isDryRun(request);
    const { zone, phase, latest } = rulesetOf(request);
    const ruleId = params(request).rule_id ?? '';
    if (!latest.rules.some((rule) => rule.id === ruleId)) throw ServiceError.of(404, ErrorCode.notFound, Messages.ruleNotFound(latest.id, ruleId));
    return save(context, zone, phase, { name: latest.name, description: latest.description, rules: latest.rules.filter((rule) => rule.id !== ruleId) }, dryRun);
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
