import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { ZoneIdSchema } from '../schemas';
import { ZONE_APIS, type ZoneApi } from '../schemas/service';
import { ErrorCode, Messages, ServiceError } from './errors';
import type { EmulatorState } from './state';

/** An API token the emulator accepts, with its scope: the account (every zone) or one zone. */
export interface TokenGrant {
  token: string;
  /** The zone the token opens; null for an account token. */
  zoneId: string | null;
  /** The APIs the token may use (ZONE_APIS, docs/service.md#authentication); absent: every one. */
  apis?: ZoneApi[];
}

/** The credentials an emulator accepts. */
export interface EmulatorCredentials {
  apiToken: string;
  apiEmail: string;
  apiKey: string;
  /** The primary token of each zone, accepted for that zone only. */
  zoneTokens: Record<string, string>;
  /** Every token accepted (the primaries and those added), with the zone it opens (null: every zone). */
  tokens: TokenGrant[];
}

/** A token value chosen by the caller: what an `Authorization: Bearer` header can carry. */
const TokenValueSchema = z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 visible ASCII characters, no spaces');

/**
 * `POST /__admin/credentials/tokens`: a new token for the account, or for one zone; its value given or generated; and
 * the APIs it may use (all when absent), as the public service grants a token some permissions and not others.
 */
export const AddTokenBodySchema = z.strictObject({
  zoneId: ZoneIdSchema.optional(),
  token: TokenValueSchema.optional(),
  apis: z.array(z.enum(ZONE_APIS)).min(1).optional(),
});
/** `POST /__admin/credentials/tokens/rotate`: a token replaced by a new one of the same scope. */
export const RotateTokenBodySchema = z.strictObject({ token: z.string().min(1), newToken: TokenValueSchema.optional() });
/** `POST /__admin/credentials/tokens/revoke`: a token that stops working. */
export const RevokeTokenBodySchema = z.strictObject({ token: z.string().min(1) });
/** `POST /__admin/credentials/key/rotate`: the account's API key replaced (given or generated). */
export const RotateKeyBodySchema = z.strictObject({ apiKey: TokenValueSchema.optional() });

/**
 * The user a request counts against (docs/service.md#rate-limit: the service counts per user, across the dashboard
 * and every token of that user). Every credential of the emulator, tokens and key, valid or not, belongs to its one
 * user: two tokens share one count, as two tokens of one person do on the service.
 */
export const EMULATOR_USER = 'default';

/** The user whose count a request is in: the emulator's one user (EMULATOR_USER), whatever its credentials. */
export function userOf(_headers: IncomingHttpHeaders): string {
  return EMULATOR_USER;
}

/** Every token accepted, account tokens first. */
export function tokenGrants(state: EmulatorState): TokenGrant[] {
  const grant = (token: string, zoneId: string | null): TokenGrant => {
    const apis = state.credentials.tokenApis[token];
    return apis ? { token, zoneId, apis: [...apis] } : { token, zoneId };
  };
  return [
    ...state.credentials.apiTokens.map((token) => grant(token, null)),
    ...[...state.zones.values()].flatMap((zone) => zone.tokens.map((token) => grant(token, zone.id))),
  ];
}

/** Records the APIs a token may use (every one when `apis` is undefined). */
function setApis(state: EmulatorState, token: string, apis: ZoneApi[] | undefined): void {
  delete state.credentials.tokenApis[token];
  if (apis) state.credentials.tokenApis[token] = [...apis];
}

/** The scope of a token, or undefined when the emulator does not accept it. */
export function findToken(state: EmulatorState, token: string): TokenGrant | undefined {
  return tokenGrants(state).find((grant) => grant.token === token);
}

/** The token list a grant lives in (the account's or its zone's): the one place the admin operations change. */
function tokenList(state: EmulatorState, zoneId: string | null): string[] {
  if (zoneId === null) return state.credentials.apiTokens;
  const zone = state.zones.get(zoneId);
  if (!zone) throw ServiceError.of(404, ErrorCode.notFound, Messages.zoneNotFound(zoneId));
  return zone.tokens;
}

/** A fresh token: random, so that an added or rotated token cannot be guessed from the seed as the defaults can. */
function generateToken(zoneId: string | null): string {
  return `${zoneId === null ? 'zg_' : 'zgz_'}${randomBytes(30).toString('base64url')}`.slice(0, 40);
}

function newValue(state: EmulatorState, zoneId: string | null, chosen: string | undefined, field: string): string {
  const value = chosen ?? generateToken(zoneId);
  if (findToken(state, value)) throw ServiceError.of(409, ErrorCode.conflict, Messages.tokenTaken(field));
  return value;
}

function existing(state: EmulatorState, token: string): TokenGrant {
  const grant = findToken(state, token);
  if (!grant) throw ServiceError.of(404, ErrorCode.notFound, Messages.tokenNotFound);
  return grant;
}

/** Adds a token to the account or to a zone; the ones already there keep working. */
export function addToken(state: EmulatorState, body: z.output<typeof AddTokenBodySchema>): TokenGrant {
  const zoneId = body.zoneId ?? null;
  const list = tokenList(state, zoneId);
  const token = newValue(state, zoneId, body.token, 'token');
  list.push(token);
  setApis(state, token, body.apis);
  return findToken(state, token)!;
}

/** Replaces a token by a new one of the same scope, in the same place (a primary token stays the primary). */
export function rotateToken(state: EmulatorState, body: z.output<typeof RotateTokenBodySchema>): TokenGrant {
  const { zoneId, apis } = existing(state, body.token);
  const list = tokenList(state, zoneId);
  const token = newValue(state, zoneId, body.newToken, 'newToken');
  list[list.indexOf(body.token)] = token;
  setApis(state, body.token, undefined);
  setApis(state, token, apis);
  return findToken(state, token)!;
}

/**
 * Revokes a token. The account and every zone keep at least one token, so that what `info()` and the banner show
 * is always a working credential: to stop the last one, rotate it.
 */
export function revokeToken(state: EmulatorState, body: z.output<typeof RevokeTokenBodySchema>): TokenGrant {
  const grant = existing(state, body.token);
  const list = tokenList(state, grant.zoneId);
  if (list.length === 1) throw ServiceError.of(409, ErrorCode.conflict, Messages.lastToken(grant.zoneId));
  list.splice(list.indexOf(body.token), 1);
  setApis(state, body.token, undefined);
  return grant;
}

/** Replaces the account's API key (the email stays); the old key stops working. */
export function rotateKey(state: EmulatorState, body: z.output<typeof RotateKeyBodySchema>): { apiEmail: string; apiKey: string } {
  const apiKey = body.apiKey ?? randomBytes(19).toString('hex').slice(0, 37);
  state.credentials.apiKey = apiKey;
  return { apiEmail: state.credentials.apiEmail, apiKey };
}
