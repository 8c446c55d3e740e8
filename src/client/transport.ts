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
import { parseRateLimitHeaders } from './service-word';
import { sayOnce } from './notices';
import type { CredentialGate, Settle } from './refused-credentials';
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
  /** Where the refusals of these credentials are remembered (refused-credentials.ts); undefined: none is. */
  gate: CredentialGate | undefined;
  logger: ClientLogger | undefined;
}

type QueryValue = string | number | boolean | undefined;

/** One call of an endpoint: the method, the path below the base URL, and the schema of its result. */
export interface CallSpec<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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

/** A failed attempt. */
type Failure = Extract<Attempt, { ok: false }>;

/** A success answer: its parsed envelope (undefined for an empty answer) and how many attempts it took. */
interface Answer {
  status: number;
  envelope: Envelope | undefined;
  attempts: number;
}

/** What the steps of a call share: the got instance (holding the credentials), the config and its redaction. */
interface Context {
  http: Got;
  config: TransportConfig;
  redact: (text: string) => string;
}

/** Where an attempt went and which one it is: what every error of it names. */
interface AttemptSite extends CallSite {
  attempt: number;
}

/**
 * Builds the one got instance of a client and the call loop around it. The credentials live only inside this
 * closure (in the got instance's default headers), never on an object a caller can reach or serialize.
 *
 * Retries are done by our own loop, not by got: got's retry is disabled (`retry.limit: 0`) because each attempt
 * must take a slot of the rate budget, a POST must be told apart by whether the request left (got retries by
 * method and code only), the overall deadline spans attempts, and the logger must see each retry.
 *
 * A call is four steps, one function each: the attempt (`request`: one request through got, a network failure as an
 * Attempt), `decode` (the answer's bytes as text and JSON), `classify` (the answer as a success or an error of the
 * tree) and the wait (`waitBeforeRetry`: whether and how long to wait before the next attempt), tied by the loop `send`.
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
  const context: Context = { http, config, redact: (text) => redactSecrets(text, config.secrets) };
  return {
    async call(spec) {
      const answer = await send(context, spec);
      if (!answer.envelope) return undefined as z.output<typeof spec.schema>;
      return parse(context, spec.schema, answer.envelope.result, spec, answer);
    },
    async page(spec) {
      const answer = await send(context, spec);
      const result = answer.envelope?.result ?? [];
      if (!Array.isArray(result)) {
        throw validationError({
          method: spec.method,
          path: spec.path,
          status: answer.status,
          attempts: answer.attempts,
          issues: ['result: expected an array'],
        });
      }
      // A list's items are checked without being copied where the schema allows it (compiled-check.ts): a valid
      // item is handed out as JSON.parse built it. zod parses the others, and gives the error of an invalid one.
      const check = compiledCheck(spec.schema);
      const items = new Array<z.output<typeof spec.schema>>(result.length);
      for (let index = 0; index < result.length; index += 1) {
        const item: unknown = result[index];
        items[index] = check?.(item) ? (item as z.output<typeof spec.schema>) : parse(context, spec.schema, item, spec, answer, index);
      }
      const resultInfo: ResultInfo | undefined = answer.envelope?.result_info;
      return { items, resultInfo };
    },
  };
}

/** The attempt loop: rate budget, attempt, retry decision, wait. Throws one error of the tree. */
async function send<S extends z.ZodType>(context: Context, spec: CallSpec<S>): Promise<Answer> {
  const { config } = context;
  const { logger } = config;
  const site: CallSite = { method: spec.method, path: spec.path };
  let spentMs = 0;
  for (let attempt = 1; ; attempt += 1) {
    // Before the budget: a call the gate refuses sends nothing and takes no slot.
    const settle = await config.gate?.enter(site);
    const release = config.budget
      ? await config.budget.acquire((waitMs) =>
          notify(() => logger?.onThrottle?.({ ...site, waitMs: Number.isFinite(waitMs) ? waitMs : undefined })),
        )
      : undefined;
    const began = Date.now();
    let outcome: Attempt | undefined;
    try {
      outcome = await attemptOnce(context, spec, { ...site, attempt });
    } finally {
      release?.();
      settle?.(settled(outcome));
    }
    spentMs += Date.now() - began;
    if (outcome.ok) return unwrap(context, outcome, site, spec, attempt);
    const delayMs = waitBeforeRetry(config, spec, outcome, attempt, spentMs);
    if (delayMs === undefined) throw outcome.error;
    const { failure } = outcome;
    const reason = failure.kind === 'status' ? describeStatus(failure.status) : failure.code;
    notify(() =>
      logger?.onRetry?.({ ...site, attempt, delayMs, reason, ...(failure.kind === 'status' ? { status: failure.status } : {}) }),
    );
    await sleep(delayMs);
    spentMs += delayMs;
  }
}

/** What an attempt's outcome tells the credential gate: the status of its answer, and its error. */
function settled(outcome: Attempt | undefined): Parameters<Settle>[0] {
  if (outcome === undefined) return {};
  if (outcome.ok) return { status: outcome.status };
  return { error: outcome.error, ...(outcome.failure.kind === 'status' ? { status: outcome.failure.status } : {}) };
}

/**
 * The wait step: how long to wait before the next attempt after this failure, or undefined when the call fails
 * with it. A 429's `Retry-After` holds the budget, so the process's other requests wait for it too, retry or not.
 */
function waitBeforeRetry<S extends z.ZodType>(
  config: TransportConfig,
  spec: CallSpec<S>,
  outcome: Failure,
  attempt: number,
  spentMs: number,
): number | undefined {
  const { retry: policy } = config;
  const { failure, retryAfterMs } = outcome;
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return undefined;
  if (isRateLimited(failure) && retryAfterMs !== undefined) config.budget?.hold(retryAfterMs);
  if (outcome.final || !attemptsLeft(attempt, failure, policy) || !isRetryable(spec.retryAsPost ? 'POST' : spec.method, failure, policy)) return undefined;
  const delayMs = computeRetryDelay({ attempt, policy, retryAfterMs });
  return spentMs + delayMs >= policy.deadlineMs ? undefined : delayMs;
}

/** One attempt: the request (`attempt`), its answer decoded (`decode`) and classified (`classify`). */
async function attemptOnce<S extends z.ZodType>(context: Context, spec: CallSpec<S>, site: AttemptSite): Promise<Attempt> {
  const { logger } = context.config;
  const began = Date.now();
  notify(() => logger?.onRequest?.({ method: site.method, path: site.path, attempt: site.attempt }));
  const response = await request(context, spec, site);
  if (!('statusCode' in response)) return response;
  const status = response.statusCode;
  notify(() => logger?.onResponse?.({ method: site.method, path: site.path, attempt: site.attempt, status, durationMs: Date.now() - began }));
  // Every answer, a refusal too, says what is left of the user's count: the budget follows it (docs/client.md#rate-budget).
  const word = parseRateLimitHeaders(response.headers, Date.now());
  for (const note of word?.notes ?? []) sayOnce(`service word ${note.kind}`, note.line);
  if (word) context.config.budget?.observe(word);
  return classify(context, site, response, decode(context, response));
}

/**
 * The attempt step: one request through got, its answer read into memory as bytes, or the failure as an Attempt.
 * Past maxResponseBytes (announced by Content-Length or counted while reading) the request is aborted, so a hostile
 * or broken answer cannot exhaust the process's memory.
 */
async function request<S extends z.ZodType>(context: Context, spec: CallSpec<S>, site: AttemptSite): Promise<Response<Uint8Array> | Failure> {
  const { config } = context;
  const abort = new AbortController();
  let oversized: number | undefined;
  let answered = 0;
  const attempts = site.attempt;
  const callSite = { method: site.method, path: site.path };
  try {
    // The query goes in the address as text: got's `searchParams` option builds and merges a URLSearchParams into
    // the options of every call, a cost per request that a list walk pays on each page (docs/client.md#list-walk-cost).
    const pending = context.http(spec.path.replace(/^\/+/, '') + queryString(spec.query), {
      method: spec.method,
      // The body is read as bytes, decoded once (`decode`) and parsed there: a proxy's HTML error page or an
      // empty 204 must become one of our errors with its status, not a got ParseError. Bytes rather than got's
      // `text`: got decodes a text answer chunk by chunk beside the bytes it keeps anyway (docs/client.md#list-walk-cost).
      responseType: 'buffer',
      signal: abort.signal,
      ...(spec.json === undefined ? {} : { json: spec.json }),
    });
    // The raw request's own event, ahead of got's listener: got emits `response` after the first progress event.
    pending.on('request', (raw) => raw.prependOnceListener('response', (started) => (answered = started.statusCode ?? 0)));
    pending.on('downloadProgress', ({ transferred, total }) => {
      if (oversized === undefined && Math.max(transferred, total ?? 0) > config.maxResponseBytes) {
        oversized = answered;
        abort.abort();
      }
    });
    return await pending;
  } catch (error) {
    if (oversized !== undefined && error instanceof AbortError) {
      return {
        ok: false,
        final: true,
        failure: { kind: 'status', status: oversized },
        error: tooLargeError({ ...callSite, status: oversized, limitBytes: config.maxResponseBytes, attempts }),
      };
    }
    if (error instanceof GotTimeoutError) {
      return { ok: false, failure: { kind: 'network', code: 'ETIMEDOUT' }, error: timeoutError({ ...callSite, timeoutMs: config.timeoutMs, attempts }) };
    }
    if (error instanceof RequestError) {
      // An answer that started and then broke (a reset mid-body, fewer bytes than its Content-Length) is a
      // reset for the retry decision: an idempotent call is repeated, a POST is not (the service acted).
      const cutOff = error.response !== undefined || error.code === 'ERR_HTTP_CONTENT_LENGTH_MISMATCH';
      const code = cutOff ? 'ECONNRESET' : error.code || 'ECONNRESET';
      return { ok: false, failure: { kind: 'network', code }, error: connectionError({ ...callSite, code, cutOff, attempts }) };
    }
    throw error;
  }
}

/** An answer's body as the decode step reads it: its text, and its JSON (undefined when empty or not JSON). */
interface Decoded {
  text: string;
  empty: boolean;
  /** False when the text is not empty and not JSON. */
  json: boolean;
  body: unknown;
}

/**
 * The decode step: the bytes as text, decoded once, and as JSON. A refusal's text ends up in the error message, so
 * a credential the server quotes there is masked before it is parsed.
 */
function decode(context: Context, response: Response<Uint8Array>): Decoded {
  const text = decodeBody(response.body);
  const empty = text.trim() === '';
  if (empty) return { text, empty, json: true, body: undefined };
  const failed = response.statusCode < 200 || response.statusCode >= 300;
  try {
    return { text, empty, json: true, body: JSON.parse(failed ? context.redact(text) : text) };
  } catch {
    return { text, empty, json: false, body: undefined };
  }
}

/** The classify step: an answer as a success, or as the error of the tree its status and envelope say. */
function classify(context: Context, site: AttemptSite, response: Response<Uint8Array>, decoded: Decoded): Attempt {
  const status = response.statusCode;
  const callSite = { method: site.method, path: site.path };
  const failed = status < 200 || status >= 300;
  if (!failed && !decoded.json) {
    return {
      ok: false,
      failure: { kind: 'status', status },
      error: validationError({ ...callSite, status, issues: ['body is not JSON'], attempts: site.attempt }),
    };
  }
  let { body } = decoded;
  const refused = failed || (isObject(body) && body['success'] === false);
  if (!refused) return { ok: true, status, body, empty: decoded.empty };
  if (!failed) body = parseOrUndefined(context.redact(decoded.text));
  const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now());
  return {
    ok: false,
    failure: { kind: 'status', status },
    retryAfterMs,
    error: errorFromResponse({ ...callSite, status, body, attempts: site.attempt, retryAfterMs }),
  };
}

/** The one place the envelope is unwrapped. */
function unwrap<S extends z.ZodType>(
  context: Context,
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
    throw validationError({ ...site, status, issues: formatZodIssues(envelope.error).map(context.redact), attempts });
  }
  return { status, envelope: envelope.data, attempts };
}

/**
 * The result checked against the endpoint's schema; `index` locates the issues of a page's item (`result.3.id: ...`).
 * The location is written only on failure: a list walk parses every item, and a string per item is its garbage.
 */
function parse<S extends z.ZodType>(context: Context, schema: S, value: unknown, spec: CallSpec<S>, answer: Answer, index?: number): z.output<S> {
  const parsed = schema.safeParse(value, { error: readableIssue });
  if (parsed.success) return parsed.data;
  throw validationError({
    method: spec.method,
    path: spec.path,
    status: answer.status,
    attempts: answer.attempts,
    issues: formatZodIssues(parsed.error, index === undefined ? 'result' : `result.${index}`).map(context.redact),
  });
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
