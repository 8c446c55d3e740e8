import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  connectionError,
  errorFromResponse,
  NotFoundError,
  RateLimitedError,
  RetiredApiError,
  RouteNotFoundError,
  ResponseValidationError,
  ServerError,
  timeoutError,
  TimeoutError,
  validationError,
  ZoneGuardError,
  ConnectionError,
} from '../../src/client/errors';

const site = { method: 'GET', path: '/zones/0123456789abcdef0123456789abcdef/page_guard/policies/abc' };
const envelope = (code: number, message: string) => ({ success: false, errors: [{ code, message }], messages: [], result: null });

describe('errorFromResponse', () => {
  it.each<[number, new (...args: never[]) => ZoneGuardError, string]>([
    [400, BadRequestError, 'BadRequestError'],
    [401, AuthenticationError, 'AuthenticationError'],
    [403, AuthenticationError, 'AuthenticationError'],
    [404, RouteNotFoundError, 'RouteNotFoundError'], // a 404 without the service's not-found code
    [405, BadRequestError, 'BadRequestError'],
    [408, TimeoutError, 'TimeoutError'],
    [409, ConflictError, 'ConflictError'],
    [410, RetiredApiError, 'RetiredApiError'],
    [422, BadRequestError, 'BadRequestError'],
    [429, RateLimitedError, 'RateLimitedError'],
    [500, ServerError, 'ServerError'],
    [502, ServerError, 'ServerError'],
    [503, ServerError, 'ServerError'],
    [504, ServerError, 'ServerError'],
    [200, BadRequestError, 'BadRequestError'], // a 2xx envelope with success false
  ])('maps HTTP %i to %p', (status, Class, name) => {
    const error = errorFromResponse({ ...site, status, body: envelope(1234, 'something is off') });
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(ZoneGuardError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.status).toBe(status);
    expect(error.method).toBe('GET');
    expect(error.path).toBe(site.path);
    expect(error.errors).toEqual([{ code: 1234, message: 'something is off' }]);
    expect(error.codes).toEqual([1234]);
  });

  it.each([
    ['410 Gone, any code', 410, envelope(10034, 'withdrawn')],
    ['code 10020 (maintenance mode) with a 400', 400, envelope(10020, 'firewallrules.api.maintenance_mode: no modifications')],
    ['code 10020 with a 403', 403, envelope(10020, 'no modifications')],
  ])('a retired API: %s is a RetiredApiError', (_name, status, body) => {
    expect(errorFromResponse({ ...site, status, body })).toBeInstanceOf(RetiredApiError);
  });

  // Only the service's own not-found answer (10013 in its envelope) may read as "gone": a provider forgets an object
  // on it. A missing route (a wrong base URL) or a proxy's page is another class, so no provider matches on text.
  it.each<[string, unknown, new (...args: never[]) => ZoneGuardError]>([
    ['the service: zone or object not found (10013)', envelope(10013, 'policy 0123 not found'), NotFoundError],
    ['the service: no route (7000)', envelope(7000, 'No route for that URI'), RouteNotFoundError],
    ['an envelope with another code', envelope(1004, 'something else'), RouteNotFoundError],
    ['a proxy page (no envelope)', undefined, RouteNotFoundError],
    ['an empty object', {}, RouteNotFoundError],
  ])('a 404 from %s is %p', (_from, body, Class) => {
    const error = errorFromResponse({ ...site, status: 404, body });
    expect(error).toBeInstanceOf(Class);
    expect(error.status).toBe(404);
    expect(error instanceof NotFoundError).toBe(Class === NotFoundError);
  });

  it('says what to check on a route 404', () => {
    const error = errorFromResponse({ ...site, status: 404, body: envelope(7000, 'No route for that URI') });
    expect(error.message).toBe(
      `GET ${site.path} failed: HTTP 404 Not Found: 7000 No route for that URI (not the service's "not found": check the base URL, which ends in /client/v4)`,
    );
  });

  it('names the call, the status and every service message', () => {
    const error = errorFromResponse({
      ...site,
      status: 400,
      body: { success: false, errors: [{ code: 1004, message: 'action: invalid' }, { code: 1004, message: 'value: required' }], messages: [], result: null },
    });
    expect(error.message).toBe(
      `GET ${site.path} failed: HTTP 400 Bad Request: 1004 action: invalid; 1004 value: required`,
    );
  });

  it('keeps the status when the body is not an envelope (a proxy page)', () => {
    const error = errorFromResponse({ ...site, status: 502, body: undefined });
    expect(error).toBeInstanceOf(ServerError);
    expect(error.errors).toEqual([]);
    expect(error.message).toBe(`GET ${site.path} failed: HTTP 502 Bad Gateway`);
  });

  it('writes an unknown status without a reason phrase', () => {
    expect(errorFromResponse({ ...site, status: 599, body: null }).message).toBe(`GET ${site.path} failed: HTTP 599`);
  });

  it('carries Retry-After and the attempt count on a rate limit', () => {
    const error = errorFromResponse({ ...site, status: 429, body: envelope(971, 'Rate limited'), retryAfterMs: 3000, attempts: 5 });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3000);
    expect(error.attempts).toBe(5);
  });
});

describe('errors without an answer', () => {
  it('connection errors carry the system code and no status', () => {
    const error = connectionError({ method: 'POST', path: '/zones/z/firewall/rules', code: 'ECONNRESET', attempts: 1 });
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.name).toBe('ConnectionError');
    expect(error.code).toBe('ECONNRESET');
    expect(error.status).toBeUndefined();
    expect(error.errors).toEqual([]);
    expect(error.message).toBe('POST /zones/z/firewall/rules failed: connection error ECONNRESET, no answer from the service');
  });

  it('timeouts carry the timeout', () => {
    const error = timeoutError({ method: 'GET', path: '/zones/z/page_guard', timeoutMs: 250, attempts: 3 });
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.timeoutMs).toBe(250);
    expect(error.attempts).toBe(3);
    expect(error.message).toBe('GET /zones/z/page_guard failed: no answer within 250 ms');
  });

  it('validation errors list the issues', () => {
    const error = validationError({ method: 'GET', path: '/zones/z/page_guard', status: 200, issues: ['result.enabled: Invalid input'] });
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues).toEqual(['result.enabled: Invalid input']);
    expect(error.message).toBe('GET /zones/z/page_guard answered HTTP 200 with an unexpected body: result.enabled: Invalid input');
  });
});
