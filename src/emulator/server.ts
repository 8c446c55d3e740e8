import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { registerAdminRoutes } from './admin';
import { legacyFirewallRefusal } from './firewall';
import { recordZoneHistory } from './history';
import { adminRefusal, serviceHostRefusal } from './admin-guard';
import { authenticate, authorizeZone } from './auth';
import { userOf } from './credentials';
import { rateLimitHeaders } from './faults';
import { ADMIN_PREFIX, API_PREFIX, apiPath, isHexId, params, type EmulatorContext } from './context';
import { ErrorCode, Messages, ServiceError, errorEnvelope } from './errors';
import { registerDetectedRoutes } from './routes/detected';
import { registerFilterRoutes } from './routes/filters';
import { registerFirewallRuleRoutes } from './routes/firewall-rules';
import { registerNotEmulatedRoutes } from './routes/not-emulated';
import { registerPageGuardRoutes } from './routes/page-guard';
import { registerCspPolicyRoutes } from './routes/csp-policy';
import { registerRulesetRoutes } from './routes/rulesets';
import { registerWafMigrationRoutes } from './routes/waf-migration';
import { registerWafOverrideRoutes } from './routes/waf-overrides';
import { registerWafPackageRoutes } from './routes/waf-packages';

/** Largest request body accepted (fastify's default, written here because the error message names it). */
const BODY_LIMIT = 1_048_576;

/** What a proxy answers in place of an answer it lost (the `loseAnswers` fault): not the service's envelope. */
const LOST_ANSWER_PAGE = '<html><body><h1>502 Bad Gateway</h1></body></html>';

/**
 * Node's own answer to a request it cannot parse (headers over its limit, a malformed request line), in the service's
 * envelope: Node would otherwise answer a bare 400 or 431. The connection closes after it.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(errorEnvelope([{ code: ErrorCode.malformedBody, message: tooLarge ? Messages.headersTooLarge : Messages.malformedRequest }]));
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The one wrapper that turns any thrown error into the service's error envelope. */
function toServiceError(error: FastifyError | ServiceError | Error, contentType: string | undefined): ServiceError {
  if (error instanceof ServiceError) return error;
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return ServiceError.of(415, ErrorCode.malformedBody, Messages.unsupportedType(contentType ?? 'none'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ServiceError.of(413, ErrorCode.malformedBody, Messages.bodyTooLarge(BODY_LIMIT));
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return ServiceError.of(400, ErrorCode.malformedBody, error.message);
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return ServiceError.of(status, ErrorCode.malformedBody, error.message);
  return ServiceError.of(500, ErrorCode.internal, Messages.internal(error.message));
}

function sendError(reply: FastifyReply, error: ServiceError): FastifyReply {
  return reply.code(error.status).headers(error.headers).send(errorEnvelope(error.errors));
}

/** The route template of a request relative to the base URL (`/zones/:zone_id/filters`), undefined without a route. */
function routeTemplate(request: FastifyRequest): string | undefined {
  const template = request.routeOptions.url;
  if (template === undefined) return undefined;
  return template.startsWith(API_PREFIX) ? template.slice(API_PREFIX.length) : template;
}

/** The route of a request for the counters: `METHOD template`. */
function routeKey(request: FastifyRequest): string {
  return `${request.method} ${routeTemplate(request) ?? '(no route)'}`;
}

/** Builds the emulator's HTTP server: the service API under /client/v4 and the admin API under /__admin. */
export function buildServer(context: EmulatorContext, options: { logger?: boolean; adminToken?: string | undefined } = {}): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    // What fastify and Node would answer in their own words (echoing the URL) answers the service's envelope instead.
    // A malformed percent-encoding or an identifier over 100 characters cannot name an object: 400 code 7003.
    frameworkErrors: (_error, _request, reply) => sendError(reply, ServiceError.of(400, ErrorCode.invalidId, Messages.malformedUri)),
    clientErrorHandler: answerClientError,
    // Node's parser leaves a malformed escape as it is, where the default one fails the request.
    routerOptions: { querystringParser: (text: string) => parseQueryString(text) },
  });

  useJsonBodies(app);
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(reply, toServiceError(error, request.headers['content-type'])));
  app.setNotFoundHandler((_request, reply) => sendError(reply, ServiceError.of(404, ErrorCode.noRoute, Messages.noRoute)));

  applyFaults(app, context);
  recordRequests(app, context);
  persistBeforeAnswering(app, context);
  recordZoneHistory(app, context);
  registerServiceApi(app, context);
  registerAdminApi(app, context, options.adminToken);
  return app;
}

/**
 * Our own JSON parser: an empty body is no body (DELETE with Content-Type and nothing else), and a parse failure
 * answers the service's envelope with what the parser found.
 */
function useJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  // JSON sent as text/plain is refused like any other type: the service wants application/json, and a web page can
  // send text/plain to a loopback server without a CORS preflight.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // The parser reads the bytes as UTF-8 whatever the charset says: another charset would be read as garbage that
    // may still parse (UTF-16 of ASCII text is its bytes with NULs between), so it is refused instead (RFC 8259: UTF-8).
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      done(ServiceError.of(415, ErrorCode.malformedBody, Messages.unsupportedCharset(charset)), undefined);
      return;
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(ServiceError.of(400, ErrorCode.malformedBody, Messages.malformedJson((error as Error).message)), undefined);
    }
  });
}

/** The faults set through the admin API (faults.ts), first: a faulty service answers before it looks at credentials. */
function applyFaults(app: FastifyInstance, context: EmulatorContext): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith(`${API_PREFIX}/`)) return;
    // Before the faults and the credentials: a rebinding page gets nothing, not even a fault's answer.
    const { address, port } = app.server.address() as AddressInfo;
    const wrongHost = serviceHostRefusal(request.headers.host, { address, port });
    if (wrongHost !== undefined) throw ServiceError.of(403, ErrorCode.authentication, wrongHost);
    const decision = context.faults.decide(
      request.method,
      apiPath(request),
      request.url.split('?')[0] ?? '',
      Date.now(),
      Math.random,
      userOf(request.headers),
      request.ip,
    );
    // On every answer, refusals included: the service counts them too (docs/service.md#rate-limit).
    if (decision.word) reply.headers(rateLimitHeaders(decision.word));
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    const outcome = decision.outcome;
    if (!outcome) return;
    if (outcome.kind === 'reset') {
      context.record(
        {
          method: request.method,
          path: request.url.split('?')[0] ?? '',
          query: request.query as Record<string, unknown>,
          status: 0,
          at: new Date().toISOString(),
          fault: outcome.fault,
          ...zoneField(request),
        },
        routeKey(request),
      );
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    (request as FastifyRequest & { fault?: string }).fault = outcome.fault;
    // Handled as usual; the onSend hook below swaps the answer for a proxy's page once the state is written.
    if (outcome.kind === 'lose') return;
    const headers: Record<string, string> = outcome.retryAfterSeconds !== undefined ? { 'retry-after': String(outcome.retryAfterSeconds) } : {};
    throw ServiceError.of(outcome.status, outcome.code, outcome.message, headers);
  });
}

/** Every request of the service API in the log, with the status it got (docs/CONTRACTS.md#emulator). */
function recordRequests(app: FastifyInstance, context: EmulatorContext): void {
  app.addHook('onResponse', async (request, reply) => {
    if (!request.url.startsWith(`${API_PREFIX}/`)) return;
    const fault = (request as FastifyRequest & { fault?: string }).fault;
    context.record(
      {
        method: request.method,
        path: request.url.split('?')[0] ?? '',
        query: request.query as Record<string, unknown>,
        status: reply.statusCode,
        at: new Date(Date.now() - reply.elapsedTime).toISOString(),
        ...zoneField(request),
        ...(fault !== undefined ? { fault } : {}),
      },
      routeKey(request),
    );
  });
}

/**
 * The state file is written before the answer leaves, so a client that saw a success finds it after a restart. A
 * change that cannot be written is undone and the request fails in the envelope; the emulator keeps serving. A lost
 * answer (the loseAnswers fault) is swapped for a proxy's page only then.
 */
function persistBeforeAnswering(app: FastifyInstance, context: EmulatorContext): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const failure = context.persist();
      if (failure !== undefined) {
        reply.code(500).type('application/json; charset=utf-8');
        return JSON.stringify(errorEnvelope([{ code: ErrorCode.internal, message: failure }]));
      }
    }
    if ((request as FastifyRequest & { fault?: string }).fault !== 'loseAnswers') return payload;
    reply.code(502).type('text/html');
    return LOST_ANSWER_PAGE;
  });
}

/** The service API: each request's credentials, zone and ids checked before its route (routes/). */
function registerServiceApi(app: FastifyInstance, context: EmulatorContext): void {
  app.register(
    async (api) => {
      api.addHook('onRequest', async (request) => {
        const principal = authenticate(request.headers, context.state);
        const path = params(request);
        const zoneId = path.zone_id;
        if (zoneId === undefined) return;
        if (!isHexId(zoneId)) throw ServiceError.of(400, ErrorCode.invalidId, Messages.invalidId(apiPath(request)));
        authorizeZone(principal, zoneId, apiPath(request));
        const zone = context.state.zones.get(zoneId);
        if (!zone) throw ServiceError.of(404, ErrorCode.notFound, Messages.zoneNotFound(zoneId));
        for (const [name, value] of Object.entries(path)) {
          if (name !== 'zone_id' && name.endsWith('_id') && !isHexId(value)) {
            throw ServiceError.of(400, ErrorCode.invalidId, Messages.invalidId(apiPath(request)));
          }
        }
        const retired = legacyFirewallRefusal(zone.legacyFirewall, request.method, routeTemplate(request));
        if (retired) throw retired;
      });
      registerPageGuardRoutes(api, context);
      registerDetectedRoutes(api, context);
      registerCspPolicyRoutes(api, context);
      registerFirewallRuleRoutes(api, context);
      registerFilterRoutes(api, context);
      registerWafOverrideRoutes(api, context);
      registerWafPackageRoutes(api, context);
      registerWafMigrationRoutes(api, context);
      registerRulesetRoutes(api, context);
      registerNotEmulatedRoutes(api, context);
    },
    { prefix: API_PREFIX },
  );
}

/** The admin API, for the local host or the holder of the admin token only (admin-guard.ts). */
function registerAdminApi(app: FastifyInstance, context: EmulatorContext, adminToken: string | undefined): void {
  app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => {
        const { address, port } = app.server.address() as AddressInfo;
        const refusal = adminRefusal(
          { host: request.headers.host, origin: request.headers.origin, authorization: request.headers.authorization },
          { address, port, adminToken: adminToken },
        );
        if (refusal !== undefined) throw ServiceError.of(403, ErrorCode.authentication, refusal);
      });
      registerAdminRoutes(admin, context);
    },
    { prefix: ADMIN_PREFIX },
  );
}

function zoneField(request: FastifyRequest): { zoneId?: string } {
  const zoneId = (request.params as Record<string, string> | undefined)?.zone_id;
  return zoneId !== undefined ? { zoneId } : {};
}
