import type { FastifyInstance } from 'fastify';
import { ZoneIdSchema } from '../schemas';
import { params, parseBody, type EmulatorContext } from './context';
import { ErrorCode, Messages, ServiceError, okEnvelope } from './errors';
import { faultsBodySchema } from './faults';
import type { EmulatorCredentials } from './credentials';
import {
  AddTokenBodySchema,
  RevokeTokenBodySchema,
  RotateKeyBodySchema,
  RotateTokenBodySchema,
  addToken,
  revokeToken,
  rotateKey,
  rotateToken,
  tokenGrants,
} from './credentials';
import { filterToWire, moveLegacyFirewall, ruleToWire } from './firewall';
import { momentOf } from './history';
import { wafRecordOf } from './routes/waf-migration';
import { applyZoneSeed, ZoneSeedSchema } from './seed';
import { COLLECTION_NAMES, LEGACY_FIREWALL_STATES, type CollectionName, type EmulatorState, type ZoneRecord } from './state';
import { z } from 'zod';
import { wafStatus } from './waf';

/** Body of PUT /__admin/zones/{id}/legacy-firewall. */
const LegacyFirewallMoveSchema = z.strictObject({ state: z.enum(LEGACY_FIREWALL_STATES) });

/** A zone as the admin API describes it. */
export function describeZone(zone: ZoneRecord) {
  const [token = ''] = zone.tokens;
  return {
    id: zone.id,
    name: zone.name,
    plan: zone.plan,
    hosts: zone.hosts,
    ruleQuota: zone.ruleQuota,
    token,
    migrationDelayMs: zone.migrationDelayMs,
    legacyFirewall: zone.legacyFirewall,
  };
}

/** The credentials the emulator accepts: the account's primary token and key, each zone's primary token, and every token. */
export function describeCredentials(state: EmulatorState): EmulatorCredentials {
  const { apiTokens, apiEmail, apiKey } = state.credentials;
  const [apiToken = ''] = apiTokens;
  return {
    apiToken,
    apiEmail,
    apiKey,
    zoneTokens: Object.fromEntries([...state.zones.values()].map((zone) => [zone.id, describeZone(zone).token])),
    tokens: tokenGrants(state),
  };
}

/** Everything stored for one zone, in wire shapes where there is one. */
export function inventory(context: EmulatorContext, zone: ZoneRecord) {
  const { state } = context;
  const waf = state.waf.get(zone.id);
  return {
    zone: describeZone(zone),
    pageGuard: state.pageGuard.get(zone.id),
    counts: Object.fromEntries(COLLECTION_NAMES.map((name) => [name, state.collections[name].count(zone.id)])) as Record<CollectionName, number>,
    cspPolicies: state.collections.cspPolicies.list(zone.id),
    filters: state.collections.filters.list(zone.id).map((filter) => ({ ...filterToWire(filter), ownerRuleId: filter.ownerRuleId ?? null })),
    firewallRules: state.collections.firewallRules.list(zone.id).map((rule) => ruleToWire(state, zone.id, rule)),
    wafOverrides: state.collections.wafOverrides.list(zone.id),
    wafPackages: state.collections.wafPackages.list(zone.id),
    waf: waf
      ? {
          ...wafStatus(waf, context.now()),
          previousWafEnabled: waf.previousWafEnabled,
          groupOverrides: waf.groupOverrides,
          ruleOverrides: waf.ruleOverrides,
          entrypoint: waf.entrypointVersions.at(-1) ?? null,
        }
      : null,
  };
}

/** The admin API (under /__admin): seeding, faults, the request log and counters, reset. No credentials. */
export function registerAdminRoutes(admin: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  admin.get('/info', async () =>
    okEnvelope({ credentials: describeCredentials(state), zones: [...state.zones.values()].map(describeZone) }),
  );

  admin.post('/reset', async () => {
    context.reseed();
    context.faults.clear();
    context.clearLog();
    context.history.clear();
    return okEnvelope({ zones: [...state.zones.values()].map(describeZone) });
  });

  registerZoneRoutes(admin, context);
  registerFaultAndLogRoutes(admin, context);
  registerCredentialRoutes(admin, state);
}

/** The zones: seeded, removed, their legacy firewall API retired, and what each holds. */
function registerZoneRoutes(admin: FastifyInstance, context: EmulatorContext): void {
  const { state } = context;
  const zoneParam = (raw: string | undefined): ZoneRecord => {
    const id = raw ?? '';
    if (!ZoneIdSchema.safeParse(id).success) throw ServiceError.of(400, ErrorCode.invalidId, Messages.invalidId(`/zones/${id}`));
    const zone = state.zones.get(id);
    if (!zone) throw ServiceError.of(404, ErrorCode.notFound, Messages.zoneNotFound(id));
    return zone;
  };

  admin.get('/zones', async () => okEnvelope([...state.zones.values()].map(describeZone)));

  admin.post('/zones', async (request) => {
    const seed = parseBody(ZoneSeedSchema, request.body);
    return okEnvelope(describeZone(applyZoneSeed(state, seed)));
  });

  admin.delete('/zones/:zone_id', async (request) => {
    const zone = zoneParam(params(request).zone_id);
    state.removeZone(zone.id);
    return okEnvelope({ id: zone.id });
  });

  // The service's retirement of the legacy firewall API, one way: available → maintenance → retired. Leaving
  // available converts the zone's firewall rules into custom rules (docs/emulator.md, "The retired legacy firewall API").
  admin.put('/zones/:zone_id/legacy-firewall', async (request) => {
    const zone = zoneParam(params(request).zone_id);
    const { state: to } = parseBody(LegacyFirewallMoveSchema, request.body);
    return okEnvelope(describeZone(moveLegacyFirewall(state, zone, wafRecordOf(context, zone.id), to, context.now())));
  });

  // A zone's history (emulator/history.ts): begun afresh, with the zone as it stands, then one moment per accepted write.
  admin.post('/zones/:zone_id/history', async (request) => {
    const zone = zoneParam(params(request).zone_id);
    const moments = [momentOf(context, zone.id, 'start')!];
    context.history.set(zone.id, moments);
    return okEnvelope(moments);
  });

  admin.get('/zones/:zone_id/history', async (request) => okEnvelope(context.history.get(zoneParam(params(request).zone_id).id) ?? []));

  admin.get('/zones/:zone_id/inventory', async (request) => okEnvelope(inventory(context, zoneParam(params(request).zone_id))));
}

/** The faults, the request log and the counters. */
function registerFaultAndLogRoutes(admin: FastifyInstance, context: EmulatorContext): void {
  admin.get('/faults', async () => okEnvelope(context.faults.describe()));

  admin.put('/faults', async (request) => {
    context.faults.set(parseBody(faultsBodySchema(request.body), request.body));
    return okEnvelope(context.faults.describe());
  });

  admin.delete('/faults', async () => {
    context.faults.clear();
    return okEnvelope([]);
  });

  admin.get('/requests', async () => okEnvelope(context.log));

  admin.delete('/requests', async () => {
    context.clearLog();
    return okEnvelope([]);
  });

  admin.get('/counters', async () => okEnvelope(context.counters));
}

/** Credentials: what a user does when a token leaks or an employee leaves (add, rotate, revoke). */
function registerCredentialRoutes(admin: FastifyInstance, state: EmulatorContext['state']): void {
  admin.post('/credentials/tokens', async (request) => {
    const grant = addToken(state, parseBody(AddTokenBodySchema, request.body ?? {}));
    return okEnvelope(grant);
  });

  admin.post('/credentials/tokens/rotate', async (request) => {
    const grant = rotateToken(state, parseBody(RotateTokenBodySchema, request.body));
    return okEnvelope(grant);
  });

  admin.post('/credentials/tokens/revoke', async (request) => {
    const grant = revokeToken(state, parseBody(RevokeTokenBodySchema, request.body));
    return okEnvelope(grant);
  });

  admin.post('/credentials/key/rotate', async (request) => {
    const key = rotateKey(state, parseBody(RotateKeyBodySchema, request.body ?? {}));
    return okEnvelope(key);
  });
}
