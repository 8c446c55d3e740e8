import type { IncomingHttpHeaders } from 'node:http';
import { zoneApiOf, type ZoneApi } from '../schemas/service';
import { findToken } from './credentials';
import { ErrorCode, Messages, ServiceError } from './errors';
import type { EmulatorState } from './state';

/**
 * Who a request acts as: the account (every zone) or one zone's token, and the APIs it may use (`apis`; absent: every
 * one).
 */
export type Principal = ({ kind: 'account' } | { kind: 'zone'; zoneId: string }) & { apis?: readonly ZoneApi[] };

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const denied = (message: string) => ServiceError.of(403, ErrorCode.authentication, message);

/**
 * Reads the credentials of a request in either form (docs/service.md#authentication): `Authorization: Bearer
 * <token>`, or `X-Auth-Email` with `X-Auth-Key`. Throws 403 code 10000 when they are missing or wrong.
 */
export function authenticate(headers: IncomingHttpHeaders, state: EmulatorState): Principal {
  const authorization = header(headers, 'authorization');
  if (authorization !== undefined) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (token === undefined) throw denied(Messages.badToken);
    const grant = findToken(state, token);
    if (!grant) throw denied(Messages.badToken);
    const apis = grant.apis ? { apis: grant.apis } : {};
    return grant.zoneId === null ? { kind: 'account', ...apis } : { kind: 'zone', zoneId: grant.zoneId, ...apis };
  }
  const email = header(headers, 'x-auth-email');
  const key = header(headers, 'x-auth-key');
  if (email === undefined && key === undefined) throw denied(Messages.noCredentials);
  // Emails are case-insensitive; keys are not.
  if (email?.toLowerCase() === state.credentials.apiEmail.toLowerCase() && key === state.credentials.apiKey) {
    return { kind: 'account' };
  }
  throw denied(Messages.badKey);
}

/**
 * Throws 403 when a zone token is used on another zone, or a token on an API it is not allowed (`path`, below the
 * base URL; docs/service.md#authentication): both checked before the zone's existence, to leak nothing.
 */
export function authorizeZone(principal: Principal, zoneId: string, path: string): void {
  if (principal.kind === 'zone' && principal.zoneId !== zoneId) throw denied(Messages.tokenNotForZone(zoneId));
  if (!principal.apis) return;
  // A route of no API (ZONE_APIS) has no handler either: its 404 says so.
  const api = zoneApiOf(path);
  if (api !== undefined && !principal.apis.includes(api)) throw denied(Messages.apiNotAllowed(api, zoneId));
}
