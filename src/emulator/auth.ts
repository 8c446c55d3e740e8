import type { IncomingHttpHeaders } from 'node:http';
import { findToken } from './credentials';
import { ErrorCode, Messages, ServiceError } from './errors';
import type { EmulatorState } from './state';

/** Who a request acts as: the account (every zone) or one zone's token. */
export type Principal = { kind: 'account' } | { kind: 'zone'; zoneId: string };

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
    return grant.zoneId === null ? { kind: 'account' } : { kind: 'zone', zoneId: grant.zoneId };
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

/** Throws 403 when a zone token is used on another zone (checked before the zone's existence, to leak nothing). */
export function authorizeZone(principal: Principal, zoneId: string): void {
  if (principal.kind === 'zone' && principal.zoneId !== zoneId) throw denied(Messages.tokenNotForZone(zoneId));
}
