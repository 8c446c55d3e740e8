import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context';
import { ErrorCode, Messages, ServiceError } from '../errors';

/**
 * Routes of the public API the emulator chooses not to emulate (docs/emulator.md, "What it does not do"). Each
 * answers 501 code 10040 saying so, where an unknown path answers 404 code 7000: a client learns that its call is
 * right and the emulator is the limit.
 */
export const NOT_EMULATED: readonly (readonly ['DELETE' | 'GET' | 'PATCH' | 'PUT', string])[] = [
  ['DELETE', '/zones/:zone_id/firewall/rules'],
  ['PUT', '/zones/:zone_id/firewall/waf/overrides/:override_id'],
  ['PATCH', '/zones/:zone_id/firewall/waf/packages/:package_id'],
  ['GET', '/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id'],
  ['PATCH', '/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id'],
  ['GET', '/zones/:zone_id/firewall/waf/packages/:package_id/rules'],
  ['GET', '/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id'],
  ['PATCH', '/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id'],
];

/** Registers every route of NOT_EMULATED, after the hooks have checked credentials and the zone. */
export function registerNotEmulatedRoutes(api: FastifyInstance, _context: EmulatorContext): void {
  for (const [method, route] of NOT_EMULATED) {
    api.route({
      method,
      url: route,
      handler: async () => {
        throw ServiceError.of(501, ErrorCode.notEmulated, Messages.notEmulated(method, route));
      },
    });
  }
}
