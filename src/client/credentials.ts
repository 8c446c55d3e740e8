import { isIP } from 'node:net';

/** An API token (sent as `Authorization: Bearer`), or an account email with its global API key. */
export type Credentials = { apiToken: string } | { apiEmail: string; apiKey: string };

/** Header values may not hold control characters; checked here so the error names the field, never the value. */
function hasControlCharacter(value: string): boolean {
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function checkValue(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`credentials.${field} must be a non-empty string`);
  }
  if (hasControlCharacter(value)) {
    throw new TypeError(`credentials.${field} must not contain control characters (line breaks included)`);
  }
  return value;
}

/** The request headers that authenticate, in the service's two forms (docs/service.md#authentication). Throws a TypeError naming the missing field. */
export function authHeaders(credentials: Credentials): Record<string, string> {
  if (!credentials || typeof credentials !== 'object') {
    throw new TypeError('credentials must be { apiToken } or { apiEmail, apiKey }');
  }
  if ('apiToken' in credentials && credentials.apiToken !== undefined) {
    return { authorization: `Bearer ${checkValue('apiToken', credentials.apiToken)}` };
  }
  if ('apiEmail' in credentials || 'apiKey' in credentials) {
    const { apiEmail, apiKey } = credentials as { apiEmail?: unknown; apiKey?: unknown };
    return { 'x-auth-email': checkValue('apiEmail', apiEmail), 'x-auth-key': checkValue('apiKey', apiKey) };
  }
  throw new TypeError('credentials must be { apiToken } or { apiEmail, apiKey }');
}

/** The credential values alone, for hashing into the rate budget key. */
export function secretsOf(credentials: Credentials): string[] {
  return 'apiToken' in credentials ? ['token', credentials.apiToken] : ['key', credentials.apiEmail, credentials.apiKey];
}

/** Whether a URL host is this machine: localhost, 127.0.0.0/8 or ::1 (also as an IPv4-mapped address). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  // Only the name itself: a subdomain of localhost is not guaranteed to resolve to loopback.
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) {
    if (host === '::1') return true;
    // WHATWG URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1; the first hex group after ffff is 7fxx for 127/8.
    return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host) || /^::ffff:127\./.test(host);
  }
  return false;
}

/**
 * The base URL, checked: http(s) only, and plain http only to loopback, since credentials ride in every request's
 * headers and would cross the network readable. Returns the URL without a trailing slash.
 */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('baseUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl must use https (or http to loopback), got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new TypeError('baseUrl must not carry a user name or password; pass credentials instead');
  }
  if (url.search || url.hash) {
    throw new TypeError('baseUrl must not carry a query or a fragment');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new TypeError(
      `refusing to send credentials over plain http to ${url.host}: use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)`,
    );
  }
  return url.href.replace(/\/+$/, '');
}
