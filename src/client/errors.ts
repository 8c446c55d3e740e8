import { EnvelopeSchema, ErrorCode, type ErrorItem } from '../schemas';

/** Where a failed call went: the HTTP method and the path below the base URL (no query, no host). */
export interface CallSite {
  method: string;
  path: string;
}

/** What every error of the client carries besides its message. */
export interface ZoneGuardErrorDetails extends CallSite {
  /** HTTP status of the last answer, undefined when none arrived (connection failure, timeout). */
  status?: number;
  /** The service's error items (`{ code, message }`), empty when it sent none. */
  errors?: ErrorItem[];
  /** How many attempts were made, retries included. */
  attempts?: number;
}

/**
 * Base of every error the client throws. Third-party errors (got's) never leave the client: they are turned into
 * one of the subclasses, and no credential or request header is copied into them.
 */
export class ZoneGuardError extends Error {
  readonly status: number | undefined;
  readonly errors: ErrorItem[];
  readonly method: string;
  readonly path: string;
  readonly attempts: number;

  constructor(message: string, details: ZoneGuardErrorDetails) {
    super(message);
    // Each error's name is its class's (`BadRequestError`), what `error.name` and stack traces show.
    this.name = new.target.name;
    this.status = details.status;
    this.errors = details.errors ?? [];
    this.method = details.method;
    this.path = details.path;
    this.attempts = details.attempts ?? 1;
  }

  /** The service's error codes, for `includes(10102)`-style checks. */
  get codes(): number[] {
    return this.errors.map((item) => item.code);
  }
}

/** The service refused the request as invalid (400 and the other 4xx without a class of their own). */
export class BadRequestError extends ZoneGuardError {}

/** The credentials were missing, wrong, or lack the permission (401, 403). */
export class AuthenticationError extends ZoneGuardError {}

/**
 * The service's own answer that the zone or the object does not exist: 404 with code 10013 in its envelope. The only
 * 404 that means "gone": a provider may forget an object on this one, and on no other.
 */
export class NotFoundError extends ZoneGuardError {}

/**
 * A 404 that is not the service saying an object is gone: no route for the method and path (code 7000), or an
 * answer without the service's envelope (a proxy's or a load balancer's page). The base URL is the usual cause
 * (`…/client/v3`, the bare origin, an extra segment). Not a NotFoundError on purpose: nothing may be read as
 * deleted on it.
 */
export class RouteNotFoundError extends ZoneGuardError {}

/** The request conflicts with the current state (409). */
export class ConflictError extends ZoneGuardError {}

/**
 * The service no longer serves this API for the zone: 410 Gone, or code 10020 (maintenance mode: it no longer
 * accepts modifications). The public service retired the legacy firewall rules and filters API this way, and the
 * previous WAF's API answers 410 once a zone migrated. Retrying cannot help; the API's successor can.
 */
export class RetiredApiError extends ZoneGuardError {}

/** The service's rate limit answered 429 and the retry policy gave up (attempts or deadline spent). */
export class RateLimitedError extends ZoneGuardError {
  /** The service's `Retry-After`, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: ZoneGuardErrorDetails & { retryAfterMs?: number }) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** The service failed (5xx). */
export class ServerError extends ZoneGuardError {}

/** No answer arrived: the connection was refused, reset or dropped. `code` is the system error code. */
export class ConnectionError extends ZoneGuardError {
  readonly code: string;

  constructor(message: string, details: ZoneGuardErrorDetails & { code: string }) {
    super(message, details);
    this.code = details.code;
  }
}

/** The answer was larger than the client's `maxResponseBytes`: reading it stopped there, and the call failed. */
export class ResponseTooLargeError extends ZoneGuardError {
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(message: string, details: ZoneGuardErrorDetails & { limitBytes: number }) {
    super(message, details);
    this.limitBytes = details.limitBytes;
  }
}

/** No answer arrived within the client's timeout (or the service answered 408). */
export class TimeoutError extends ZoneGuardError {
  /** The per-attempt timeout that expired, when the client's own timer fired. */
  readonly timeoutMs: number | undefined;

  constructor(message: string, details: ZoneGuardErrorDetails & { timeoutMs?: number }) {
    super(message, details);
    this.timeoutMs = details.timeoutMs;
  }
}

/** The service answered success, but not in the shape of its schema (or not JSON at all). */
export class ResponseValidationError extends ZoneGuardError {
  /** One line per problem: `path: message`. */
  readonly issues: string[];

  constructor(message: string, details: ZoneGuardErrorDetails & { issues: string[] }) {
    super(message, details);
    this.issues = details.issues;
  }
}

/** Reason phrases for the statuses the service uses, so messages read `404 Not Found`. */
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** `HTTP 404 Not Found` */
export function describeStatus(status: number): string {
  const reason = REASONS[status];
  return reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
}

/** `10013 policy not found; 1004 ...`, or undefined when the service sent no items. */
function describeItems(errors: ErrorItem[]): string | undefined {
  if (errors.length === 0) return undefined;
  return errors.map((item) => `${item.code} ${item.message}`).join('; ');
}

/** Reads the service's error items from an answer body, tolerating a body that is not an envelope. */
export function errorItemsFrom(body: unknown): ErrorItem[] {
  const envelope = EnvelopeSchema.safeParse(body);
  return envelope.success ? envelope.data.errors : [];
}

/**
 * The one place an HTTP failure becomes an error of the tree. The message names the call and repeats the
 * service's own messages: `GET /zones/…/page_guard/policies/… failed: HTTP 404 Not Found: 10013 policy not found`.
 */
export function errorFromResponse(
  site: CallSite & { status: number; body: unknown; attempts?: number; retryAfterMs?: number },
): ZoneGuardError {
  const { status } = site;
  const errors = errorItemsFrom(site.body);
  const items = describeItems(errors);
  const message = `${site.method} ${site.path} failed: ${describeStatus(status)}${items ? `: ${items}` : ''}`;
  const details = { method: site.method, path: site.path, status, errors, attempts: site.attempts };
  if (status === 410 || errors.some((item) => item.code === ErrorCode.legacyFirewallRetired)) return new RetiredApiError(message, details);
  if (status === 401 || status === 403) return new AuthenticationError(message, details);
  if (status === 404) {
    return errors.some((item) => item.code === ErrorCode.notFound)
      ? new NotFoundError(message, details)
      : new RouteNotFoundError(`${message} (not the service's "not found": check the base URL, which ends in /client/v4)`, details);
  }
  if (status === 408) return new TimeoutError(message, details);
  if (status === 409) return new ConflictError(message, details);
  if (status === 429) return new RateLimitedError(message, { ...details, retryAfterMs: site.retryAfterMs });
  if (status >= 500) return new ServerError(message, details);
  // 400, 405, 413, 422, and a 2xx envelope with success false.
  return new BadRequestError(message, details);
}

/**
 * A connection that failed before any answer (ECONNREFUSED, ECONNRESET, ...), or, with `cutOff`, one that broke
 * while the answer was arriving (fewer bytes than its Content-Length, or a chunked body that never ended).
 */
export function connectionError(site: CallSite & { code: string; attempts?: number; cutOff?: boolean }): ConnectionError {
  const what = site.cutOff ? `the answer was cut off (${site.code})` : `connection error ${site.code}, no answer from the service`;
  const { cutOff: _cutOff, ...details } = site;
  return new ConnectionError(`${site.method} ${site.path} failed: ${what}`, details);
}

/** The answer passed the client's size limit (by its Content-Length, or while it was being read). */
export function tooLargeError(site: CallSite & { status: number; limitBytes: number; attempts?: number }): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `${site.method} ${site.path} failed: the answer (${describeStatus(site.status)}) is larger than ${site.limitBytes} bytes, ` +
      'the client\'s maxResponseBytes; it was not read further',
    site,
  );
}

/** The client's own per-attempt timer fired. */
export function timeoutError(site: CallSite & { timeoutMs: number; attempts?: number }): TimeoutError {
  return new TimeoutError(`${site.method} ${site.path} failed: no answer within ${site.timeoutMs} ms`, { ...site });
}

/** A 2xx answer that is not the envelope, or whose result does not match the schema. */
export function validationError(site: CallSite & { issues: string[]; status: number; attempts?: number }): ResponseValidationError {
  return new ResponseValidationError(
    `${site.method} ${site.path} answered ${describeStatus(site.status)} with an unexpected body: ${site.issues.join('; ')}`,
    { ...site },
  );
}
