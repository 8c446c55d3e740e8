import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HexIdSchema, readableIssue } from '../schemas';
import { queryIntSchema } from '../schemas/common';
import { ErrorCode, Messages, ServiceError } from './errors';
import { FaultEngine } from './faults';
import { saveStateFile, type EmulatorState, type StateSnapshot, type ZoneMoment, type ZoneRecord } from './state';

/** The path every service route lives under. */
export const API_PREFIX = '/client/v4';
/** The path the admin API lives under. */
export const ADMIN_PREFIX = '/__admin';
/** Request log entries kept (the oldest are dropped past it, so a long benchmark does not grow without end). */
export const REQUEST_LOG_LIMIT = 10_000;

/** One service request as the admin API reports it. */
export interface RequestLogEntry {
  method: string;
  /** The full path, without the query. */
  path: string;
  query: Record<string, unknown>;
  /** The status answered; 0 when the connection was reset by a fault. */
  status: number;
  zoneId?: string;
  /** ISO timestamp of the request's arrival. */
  at: string;
  /** The fault that answered instead of the service, if any. */
  fault?: string;
}

/** Counters of service requests. */
export interface RequestCounters {
  total: number;
  /** By `METHOD path-template`, the template relative to the base URL (`POST /zones/:zone_id/firewall/rules`). */
  byRoute: Record<string, number>;
  /** By status answered ("0" for reset connections). */
  byStatus: Record<string, number>;
}

/** What every route and hook shares. */
export class EmulatorContext {
  readonly faults = new FaultEngine();
  log: RequestLogEntry[] = [];
  counters: RequestCounters = { total: 0, byRoute: {}, byStatus: {} };
  /** The zones whose history is kept (emulator/history.ts), each with its moments, oldest first. */
  readonly history = new Map<string, ZoneMoment[]>();

  constructor(
    readonly state: EmulatorState,
    /** Restores the starting state (the seed given at start). */
    readonly reseed: () => void,
    readonly statePath?: string,
    /** The clock; tests of the state machine may replace it. */
    readonly now: () => Date = () => new Date(),
  ) {}

  record(entry: RequestLogEntry, routeKey: string): void {
    this.log.push(entry);
    if (this.log.length > REQUEST_LOG_LIMIT) this.log.splice(0, this.log.length - REQUEST_LOG_LIMIT);
    this.counters.total++;
    this.counters.byRoute[routeKey] = (this.counters.byRoute[routeKey] ?? 0) + 1;
    const status = String(entry.status);
    this.counters.byStatus[status] = (this.counters.byStatus[status] ?? 0) + 1;
  }

  clearLog(): void {
    this.log = [];
    this.counters = { total: 0, byRoute: {}, byStatus: {} };
  }

  /** The state file's content as last written: what a change that cannot be written is rolled back to. */
  private written: string | undefined;

  /**
   * Follows every change into the state file: writes it when the state differs from what the file holds. When the
   * file cannot be written, the state goes back to what the file holds, and the answer is why (undefined: written,
   * or nothing to write). No flag to set by hand: a handler changes the state, and this finds the change.
   */
  persist(): string | undefined {
    if (this.statePath === undefined) return undefined;
    const text = JSON.stringify(this.state.snapshot());
    if (text === this.written) return undefined;
    try {
      saveStateFile(this.statePath, text);
      this.written = text;
      return undefined;
    } catch (error) {
      if (this.written !== undefined) this.state.restore(JSON.parse(this.written) as StateSnapshot);
      return Messages.stateNotWritten(this.statePath, (error as Error).message);
    }
  }
}

/** The request's path relative to the base URL, without the query (`/zones/.../firewall/rules`). */
export function apiPath(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  return path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
}

/** The path parameters of a request. */
export function params(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

/** The query of a request, as fastify parsed it (repeated keys become arrays). */
export function query(request: FastifyRequest): Record<string, string | string[] | undefined> {
  return request.query as Record<string, string | string[] | undefined>;
}

/** The zone a request addresses; the hooks already checked its id, the credentials and its existence. */
export function zoneOf(context: EmulatorContext, request: FastifyRequest): ZoneRecord {
  const zoneId = params(request).zone_id ?? '';
  const zone = context.state.zones.get(zoneId);
  if (!zone) throw ServiceError.of(404, ErrorCode.notFound, Messages.zoneNotFound(zoneId));
  return zone;
}

/** Whether a path parameter is a well-formed identifier. */
export function isHexId(value: string): boolean {
  return HexIdSchema.safeParse(value).success;
}

/** A JSON object (not an array, not null). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The keys of a body that its schema does not name, one issue per object (docs/emulator.md, "Request bodies"): zod's
 * default object mode drops them silently, and a request whose field is misspelt must not succeed as if it were
 * absent. Objects that set their own mode (strict, or a catchall) are left to zod; unions are left to the branch
 * that matches.
 */
export function unknownKeyIssues(schema: z.ZodType, value: unknown, path: PropertyKey[] = []): z.core.$ZodIssue[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return unknownKeyIssues(schema.unwrap() as z.ZodType, value, path);
  if (schema instanceof z.ZodDefault) return unknownKeyIssues(schema.def.innerType as z.ZodType, value, path);
  if (schema instanceof z.ZodPipe) return unknownKeyIssues(schema.in as z.ZodType, value, path);
  if (schema instanceof z.ZodArray) {
    return Array.isArray(value) ? value.flatMap((item, index) => unknownKeyIssues(schema.element as z.ZodType, item, [...path, index])) : [];
  }
  if (schema instanceof z.ZodRecord) {
    return isJsonObject(value) ? Object.entries(value).flatMap(([key, item]) => unknownKeyIssues(schema.valueType as z.ZodType, item, [...path, key])) : [];
  }
  if (!(schema instanceof z.ZodObject) || !isJsonObject(value)) return [];
  const shape = schema.shape as Record<string, z.ZodType>;
  const unknown = schema.def.catchall === undefined ? Object.keys(value).filter((key) => !Object.hasOwn(shape, key)) : [];
  const own: z.core.$ZodIssue[] =
    unknown.length === 0
      ? []
      : [{ code: 'unrecognized_keys', keys: unknown, path, input: value, message: readableIssue({ code: 'unrecognized_keys', keys: unknown, input: value }) }];
  return [...own, ...Object.entries(shape).flatMap(([key, field]) => (Object.hasOwn(value, key) ? unknownKeyIssues(field, value[key], [...path, key]) : []))];
}

/**
 * Parses a body with a schema; a missing body, a failing field or a key the schema does not name becomes a 400 with
 * one `path: message` line per problem, in our words (readableIssue) where the schema sets none.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, prefix = ''): z.output<S> {
  if (body === undefined) throw ServiceError.of(400, ErrorCode.validation, Messages.bodyRequired);
  const parsed = schema.safeParse(body, { error: readableIssue });
  const issues = [...(parsed.success ? [] : parsed.error.issues), ...unknownKeyIssues(schema, body)];
  if (issues.length > 0) throw ServiceError.fromZod(new z.ZodError(issues), prefix);
  return parsed.data as z.output<S>;
}

/**
 * Parses a query with a schema: one error per problem, the field named once (`per_page: must be at most 100`),
 * whether the schema's message names it (`per_page must be ...`) or not.
 */
export function parseQuery<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value, { error: readableIssue });
  if (parsed.success) return parsed.data;
  throw new ServiceError(
    400,
    parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      const problem = path !== '' && issue.message.startsWith(`${path} `) ? issue.message.slice(path.length + 1) : issue.message;
      return { code: ErrorCode.validation, message: path === '' ? problem : `${path}: ${problem}` };
    }),
  );
}

/** A single query value: the first of repeated ones. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * What the lists of firewall rules and of filters both filter on: the zone, the query as sent (for the page and the
 * filters of its own), and its `id`, `description` and `paused`.
 */
export function firewallListQuery(context: EmulatorContext, request: FastifyRequest) {
  const q = query(request);
  return { zone: zoneOf(context, request), q, id: single(q.id), description: single(q.description), paused: booleanQuery('paused', q.paused) };
}

/** A `true`/`false` query flag; anything else is a 400 naming the field. */
export function booleanQuery(field: string, value: string | string[] | undefined): boolean | undefined {
  const text = single(value);
  if (text === undefined) return undefined;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw ServiceError.of(400, ErrorCode.validation, Messages.booleanQuery(field));
}

/**
 * Paging of the lists outside page security (firewall rules, filters, previous-WAF objects;
 * docs/service.md#envelope): per_page 5-100, the public API's bounds.
 */
export function pageOf<T>(items: T[], q: Record<string, string | string[] | undefined>, defaults: { perPage: number }): T[] {
  const schema = z.object({
    page: queryIntSchema('page', 1, Number.MAX_SAFE_INTEGER).optional(),
    per_page: queryIntSchema('per_page', 5, 100).optional(),
  });
  const paging = parseQuery(schema, { page: single(q.page), per_page: single(q.per_page) });
  const page = paging.page ?? 1;
  const perPage = paging.per_page ?? defaults.perPage;
  return items.slice((page - 1) * perPage, page * perPage);
}
