// A zone as its security rules stood after every write the service accepted that changed them: its legacy firewall rules and its
// custom rules, so a test can evaluate what the zone decided at each step of a change, not only before and after it
// (test/e2e/firewall-move.test.ts, docs/emulator.md#zone-history). Kept only for the zones an admin call asked for;
// the service's answers are the same either way.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CUSTOM_PHASE } from '../schemas';
import { API_PREFIX, type EmulatorContext } from './context';
import { ruleToWire } from './firewall';
import type { ZoneMoment } from './state';

/** The zone as it stands. Undefined for a zone the emulator does not serve. */
export function momentOf(context: EmulatorContext, zoneId: string, after: string): ZoneMoment | undefined {
  const { state } = context;
  const zone = state.zones.get(zoneId);
  if (!zone) return undefined;
  return {
    after,
    legacyFirewall: zone.legacyFirewall,
    firewallRules: state.collections.firewallRules.list(zoneId).map((rule) => ruleToWire(state, zoneId, rule)),
    customRules: structuredClone(state.waf.get(zoneId)?.phaseVersions?.[CUSTOM_PHASE]?.at(-1)?.rules ?? []),
  };
}

/** Whether two moments hold the same rules: a write that changed nothing (a dry run) is no new moment. */
const sameRules = (a: ZoneMoment, b: ZoneMoment | undefined) =>
  b !== undefined &&
  a.legacyFirewall === b.legacyFirewall &&
  JSON.stringify([a.firewallRules, a.customRules]) === JSON.stringify([b.firewallRules, b.customRules]);

/**
 * Adds a moment to a watched zone's history after each write the service accepted. Taken as the answer is sent, in the
 * same turn of the event loop as the handler's change (no handler awaits between changing the state and answering),
 * so each moment is a state the zone was in, in the order the writes were applied.
 */
export function recordZoneHistory(app: FastifyInstance, context: EmulatorContext): void {
  app.addHook('onSend', async (request: FastifyRequest, reply, payload) => {
    if (!request.url.startsWith(`${API_PREFIX}/`) || request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400) return payload;
    const zoneId = (request.params as Record<string, string> | undefined)?.zone_id;
    const history = zoneId === undefined ? undefined : context.history.get(zoneId);
    const moment = history && momentOf(context, zoneId!, `${request.method} ${request.url.split('?')[0] ?? ''}`);
    if (moment && !sameRules(moment, history.at(-1))) history.push(moment);
    return payload;
  });
}
