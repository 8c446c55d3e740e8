import got, { AbortError, RequestError, TimeoutError as GotTimeoutError, type Got, type Response } from 'got';
import type { z } from 'zod';
import { EnvelopeSchema, formatZodIssues, readableIssue, type Envelope, type ResultInfo } from '../schemas';
import {
  connectionError,
  describeStatus,
  errorFromResponse,
  timeoutError,
  tooLargeError,
  validationError,
  type CallSite,
  type ZoneGuardError,
} from './errors';
import type { Page } from './pagination';
import { compiledCheck } from './compiled-check';
import { redactSecrets } from './credentials';
import type { Budget } from './rate-budget';
import { attemptsLeft, computeRetryDelay, isRateLimited, isRetryable, parseRetryAfter, type AttemptFailure, type RetryPolicy } from './retry';

/** Events the client reports to an optional logger. None carries a credential or a header. */
export interface ClientLogger {
  /** An attempt is about to be sent. */
  onRequest?(event: { method: string; path: string; attempt: number }): void;
  /** An attempt got an answer (any status). */
  onResponse?(event: { method: string; path: string; attempt: number; status: number; durationMs: number }): void;
  /** An attempt failed and another follows after `delayMs`. `reason` is `HTTP 503 Service Unavailable`, `ECONNRESET`... */
  onRetry?(event: { method: string; path: string; attempt: number; delayMs: number; reason: string; status?: number }): void;
  /** The rate budget is full: the request waits about `waitMs` (undefined while every slot is in flight). */
  onThrottle?(event: { method: string; path: string; waitMs: number | undefined }): void;
}

/** What the transport needs; assembled by ZoneGuardClient from its options. */
export interface TransportConfig {
  baseUrl: string;
  authHeaders: Record<string, string>;
  /** The credential values, masked in every text that reaches an error (a server may quote them). */
  secrets: readonly string[];
  userAgent: string;
  /** Largest answer read, in bytes; a larger one fails the call with ResponseTooLargeError. */
  maxResponseBytes: number;
  timeoutMs: number;
  retry: RetryPolicy;
  budget: Budget | undefined;
  logger: ClientLogger | undefined;
}

type QueryValue = string | number | boolean | undefined;

/** One call of an endpoint: the method, the path below the base URL, and the schema of its result. */
export interface CallSpec<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base URL, starting with `/`, path parameters already encoded (see `zonePath`). */
  path: string;
  query?: Record<string, QueryValue>;
  /** The request body, sent as JSON. */
  json?: unknown;
  schema: S;
  /** Accept a success answer with no body (204): the result is then `undefined` and not parsed. */
  emptyOk?: boolean;
  /**
   * Retry it as the policy retries a POST: only where the service cannot have acted (429, nothing sent). For a PUT
   * that a repeat does not leave as it was: the WAF migration's entry point answers 409 once the zone migrated.
   */
  retryAsPost?: boolean;
}

/** The two ways an endpoint reads the envelope: the result alone, or a page of items with its result_info. */
export interface Transport {
  call<S extends z.ZodType>(spec: CallSpec<S>): Promise<z.output<S>>;
  page<S extends z.ZodType>(spec: CallSpec<S>): Promise<Page<z.output<S>>>;
}

/** A path below the base URL from raw segments: each is percent-encoded, so an id cannot escape its segment. */
export function zonePath(zoneId: string, ...segments: string[]): string {
  return `/${['zones', zoneId, ...segments].map(encodeSegment).join('/')}`;
}

function encodeSegment(segment: string): string {
  if (typeof segment !== 'string' || segment === '' || segment === '.' || segment === '..') {
    throw new TypeError(`path segment must be a non-empty identifier, got ${JSON.stringify(segment)}`);
  }
  return encodeURIComponent(segment);
}

/** The outcome of one attempt, before the retry decision. */
type Attempt =
  | { ok: true; status: number; body: unknown; empty: boolean }
  | { ok: false; error: ZoneGuardError; failure: AttemptFailure; retryAfterMs?: number; final?: true };

/** A success answer: its parsed envelope (undefined for an empty answer) and how many attempts it took. */
interface Answer {
  status: number;
  envelope: Envelope | undefined;
  attempts: number;
}

/**
 * Builds the one got instance of a client and the call loop around it. The credentials live only inside this
 * closure (in the got instance's default headers), never on an object a caller can reach or serialize.
 *
 * Retries are done by our own loop, not by got: got's retry is disabled (`retry.limit: 0`) because each attempt
 * must take a slot of the rate budget, a POST must be told apart by whether the request left (got retries by
 * method and code only), the overall deadline spans attempts, and the logger must see each retry.
 */
export function createTransport(config: TransportConfig): Transport {
  const http: Got = got.extend({
    prefixUrl: `${config.baseUrl}/`,
    headers: {
      accept: 'application/json',
      'user-agent': config.userAgent,
      ...config.authHeaders,
    },
    throwHttpErrors: false,
    retry: { limit: 0 },
    timeout: { request: config.timeoutMs },
    // The service does not redirect; following one could carry the key headers to another host.
    followRedirect: false,
    allowAbsoluteUrls: false,
  });
  const { retry: policy, logger } = config;
  const redact = (text: string) => redactSecrets(text, config.secrets);

  async function attemptOnce<S extends z.ZodType>(spec: CallSpec<S>, site: CallSite, attempt: number): Promise<Attempt> {
    const began = Date.now();
    notify(() => logger?.onRequest?.({ ...site, attempt }));
    let response: Response<Uint8Array>;
    // The answer is read into memory: past maxResponseBytes (announced by Content-Length or counted while
    // reading) the request is aborted, so a hostile or broken answer cannot exhaust the process's memory.
    const abort = new AbortController();
    let oversized: number | undefined;
    let answered = 0;
    try {
      // The query goes in the address as text: got's `searchParams` option builds and merges a URLSearchParams into
      // the options of every call, a cost per request that a list walk pays on each page (docs/client.md#list-walk-cost).
      const request = http(spec.path.replace(/^\/+/, '') + queryString(spec.query), {
        method: spec.method,
        // The body is read as bytes, decoded once (`decodeBody`) and parsed below: a proxy's HTML error page or an
        // empty 204 must become one of our errors with its status, not a got ParseError. Bytes rather than got's
        // `text`: got decodes a text answer chunk by chunk beside the bytes it keeps anyway (docs/client.md#list-walk-cost).
        responseType: 'buffer',
        signal: abort.signal,
        ...(spec.json === undefined ? {} : { json: spec.json }),
      });
      // The raw request's own event, ahead of got's listener: got emits `response` after the first progress event.
      request.on('request', (raw) => raw.prependOnceListener('response', (started) => (answered = started.statusCode ?? 0)));
      request.on('downloadProgress', ({ transferred, total }) => {
        if (oversized === undefined && Math.max(transferred, total ?? 0) > config.maxResponseBytes) {
          oversized = answered;
          abort.abort();
        }
      });
      response = await request;
    } catch (error) {
      if (oversized !== undefined && error instanceof AbortError) {
        return {
          ok: false,
          final: true,
          failure: { kind: 'status', status: oversized },
          error: tooLargeError({ ...site, status: oversized, limitBytes: config.maxResponseBytes, attempts: attempt }),
        };
      }
      if (error instanceof GotTimeoutError) {
        return {
          ok: false,
          failure: { kind: 'network', code: 'ETIMEDOUT' },
          error: timeoutError({ ...site, timeoutMs: config.timeoutMs, attempts: attempt }),
        };
      }
      if (error instanceof RequestError) {
        // An answer that started and then broke (a reset mid-body, fewer bytes than its Content-Length) is a
        // reset for the retry decision: an idempotent call is repeated, a POST is not (the service acted).
        const cutOff = error.response !== undefined || error.code === 'ERR_HTTP_CONTENT_LENGTH_MISMATCH';
        const code = cutOff ? 'ECONNRESET' : error.code || 'ECONNRESET';
        return { ok: false, failure: { kind: 'network', code }, error: connectionError({ ...site, code, cutOff, attempts: attempt }) };
      }
      throw error;
    }
    const status = response.statusCode;
    notify(() => logger?.onResponse?.({ ...site, attempt, status, durationMs: Date.now() - began }));
    const text = decodeBody(response.body);
    const empty = text.trim() === '';
    const failed = status < 200 || status >= 300;
    let body: unknown;
    try {
      // A refusal's text ends up in the error message: a credential the server quotes there is masked first.
      body = empty ? undefined : JSON.parse(failed ? redact(text) : text);
    } catch {
      body = undefined;
      if (!failed) {
        return {
          ok: false,
          failure: { kind: 'status', status },
          error: validationError({ ...site, status, issues: ['body is not JSON'], attempts: attempt }),
        };
      }
    }
    const refused = failed || (isObject(body) && body['success'] === false);
    if (refused) {
      if (!failed) body = parseOrUndefined(redact(text));
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now());
      return {
        ok: false,
        failure: { kind: 'status', status },
        retryAfterMs,
        error: errorFromResponse({ ...site, status, body, attempts: attempt, retryAfterMs }),
      };
    }
    return { ok: true, status, body, empty };
  }

  /** The attempt loop: rate budget, attempt, retry decision, wait. Throws one error of the tree. */
  async function send<S extends z.ZodType>(spec: CallSpec<S>): Promise<Answer> {
    const site: CallSite = { method: spec.method, path: spec.path };
    let spentMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      const release = config.budget
        ? await config.budget.acquire((waitMs) =>
            notify(() => logger?.onThrottle?.({ ...site, waitMs: Number.isFinite(waitMs) ? waitMs : undefined })),
          )
        : undefined;
      const began = Date.now();
      let outcome: Attempt;
      try {
        outcome = await attemptOnce(spec, site, attempt);
      } finally {
        release?.();
      }
      spentMs += Date.now() - began;
      if (outcome.ok) return unwrap(outcome, site, spec, attempt);

      const { failure, error, retryAfterMs } = outcome;
      if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) throw error;
      // The service said when it takes requests again: the process's other requests wait for it too, retry or not.
      if (isRateLimited(failure) && retryAfterMs !== undefined) config.budget?.hold(retryAfterMs);
      if (outcome.final || !attemptsLeft(attempt, failure, policy) || !isRetryable(spec.retryAsPost ? 'POST' : spec.method, failure, policy)) throw error;
      const delayMs = computeRetryDelay({ attempt, policy, retryAfterMs });
      if (spentMs + delayMs >= policy.deadlineMs) throw error;
      const reason = failure.kind === 'status' ? describeStatus(failure.status) : failure.code;
      notify(() =>
        logger?.onRetry?.({ ...site, attempt, delayMs, reason, ...(failure.kind === 'status' ? { status: failure.status } : {}) }),
      );
      await sleep(delayMs);
      spentMs += delayMs;
    }
  }

  /** The one place the envelope is unwrapped. */
  function unwrap<S extends z.ZodType>(
    outcome: Extract<Attempt, { ok: true }>,
    site: CallSite,
    spec: CallSpec<S>,
    attempts: number,
  ): Answer {
    const { status } = outcome;
    if (outcome.empty) {
      if (spec.emptyOk) return { status, envelope: undefined, attempts };
      throw validationError({ ...site, status, issues: ['body is empty, expected the response envelope'], attempts });
    }
    // In our words (readableIssue), not zod's: the issues reach the user in the client's and the CLI's errors.
    const envelope = EnvelopeSchema.safeParse(outcome.body, { error: readableIssue });
    if (!envelope.success) {
      throw validationError({ ...site, status, issues: formatZodIssues(envelope.error).map(redact), attempts });
    }
    return { status, envelope: envelope.data, attempts };
  }

  /**
   * The result checked against the endpoint's schema; `index` locates the issues of a page's item (`result.3.id: ...`).
   * The location is written only on failure: a list walk parses every item, and a string per item is its garbage.
   */
  function parse<S extends z.ZodType>(schema: S, value: unknown, spec: CallSpec<S>, answer: Answer, index?: number): z.output<S> {
    const parsed = schema.safeParse(value, { error: readableIssue });
    if (parsed.success) return parsed.data;
    throw validationError({
      method: spec.method,
      path: spec.path,
      status: answer.status,
      attempts: answer.attempts,
      issues: formatZodIssues(parsed.error, index === undefined ? 'result' : `result.${index}`).map(redact),
    });
  }

  return {
    async call(spec) {
      const answer = await send(spec);
      if (!answer.envelope) return undefined as z.output<typeof spec.schema>;
      return parse(spec.schema, answer.envelope.result, spec, answer);
    },
    async page(spec) {
      const answer = await send(spec);
      const result = answer.envelope?.result ?? [];
      if (!Array.isArray(result)) {
        throw validationError({ method: spec.method, path: spec.path, status: answer.status, attempts: answer.attempts, issues: ['result: expected an array'] });
      }
      // A list's items are checked without being copied where the schema allows it (compiled-check.ts): a valid
      // item is handed out as JSON.parse built it. zod parses the others, and gives the error of an invalid one.
      const check = compiledCheck(spec.schema);
      const items = new Array<z.output<typeof spec.schema>>(result.length);
      for (let index = 0; index < result.length; index += 1) {
        const item: unknown = result[index];
        items[index] = check?.(item) ? (item as z.output<typeof spec.schema>) : parse(spec.schema, item, spec, answer, index);
      }
      const resultInfo: ResultInfo | undefined = answer.envelope?.result_info;
      return { items, resultInfo };
    },
  };
}

/** `?name=value&...` of the defined values, encoded as URLSearchParams encodes them (as got's `searchParams` did), or ''. */
function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.append(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** UTF-8 as got decodes a `text` answer: a byte order mark dropped, a malformed sequence replaced by U+FFFD. */
const utf8 = new TextDecoder();

function decodeBody(body: Uint8Array | undefined): string {
  return body === undefined || body.byteLength === 0 ? '' : utf8.decode(body);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A logger that throws must not fail the call it is logging. */
function notify(emit: () => void): void {
  try {
    emit();
  } catch {
    // ignored on purpose
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
