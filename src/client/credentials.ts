import { isIP } from 'node:net';

/** An API token (sent as `Authorization: Bearer`), or an account email with its global API key. */
export type Credentials = { apiToken: string } | { apiEmail: string; apiKey: string };

/**
 * The first character a request header cannot carry, as a phrase for a message (`U+00E9 at position 5`), or
 * undefined. Credentials are printable ASCII without spaces (tokens and keys are base64-like, RFC 6750's
 * b64token); anything else would make Node refuse the header on every request, which got reports as a
 * connection error. The phrase names the position and code point, never the value.
 */
export function headerUnsafeCharacter(value: string): string | undefined {
  let position = 0;
  for (const char of value) {
    position += 1;
    const code = char.codePointAt(0)!;
    if (code <= 0x20 || code >= 0x7f) {
      const name = code === 0x20 ? 'a space' : code === 0x0a || code === 0x0d ? 'a line break' : code < 0x20 || code === 0x7f ? 'a control character' : 'a character outside ASCII';
      return `${name} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) at position ${position}`;
    }
  }
  return undefined;
}

/** A credential value checked: a non-empty string a header can carry. Throws a TypeError naming the field, never the value. */
export function checkCredential(field: 'apiToken' | 'apiEmail' | 'apiKey', value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`credentials.${field} must be a non-empty string`);
  }
  const unsafe = headerUnsafeCharacter(value);
  if (unsafe) {
    throw new TypeError(
      `credentials.${field} has ${unsafe}, which a request header cannot carry; copy it again without spaces or line breaks`,
    );
  }
  return value;
}

/** The request headers that authenticate, in the service's two forms (docs/service.md#authentication). Throws a TypeError naming the missing field. */
export function authHeaders(credentials: Credentials): Record<string, string> {
  if (!credentials || typeof credentials !== 'object') {
    throw new TypeError('credentials must be { apiToken } or { apiEmail, apiKey }');
  }
  if ('apiToken' in credentials && credentials.apiToken !== undefined) {
    return { authorization: `Bearer ${checkCredential('apiToken', credentials.apiToken)}` };
  }
  if ('apiEmail' in credentials || 'apiKey' in credentials) {
    const { apiEmail, apiKey } = credentials as { apiEmail?: unknown; apiKey?: unknown };
    return { 'x-auth-email': checkCredential('apiEmail', apiEmail), 'x-auth-key': checkCredential('apiKey', apiKey) };
  }
  throw new TypeError('credentials must be { apiToken } or { apiEmail, apiKey }');
}

/** What the redaction masks a credential with. */
export const REDACTED = '***';

/** The secret values of credentials (token or key; the email is not a secret), for redaction. */
export function secretValuesOf(credentials: Credentials): string[] {
  return 'apiToken' in credentials ? [credentials.apiToken] : [credentials.apiKey];
}

/**
 * Text with every secret masked, in the forms a server may quote it in: as sent, JSON-escaped (also with `\/`)
 * and percent-encoded. The one redaction of the project: the client applies it to every text that reaches one of
 * its errors, the CLI to the lines it prints. Secrets shorter than 4 characters are left alone: masking them would
 * garble every message without hiding anything.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    const json = JSON.stringify(secret).slice(1, -1);
    const forms = new Set([secret, json, json.replace(/\//g, '\\/'), encodeURIComponent(secret)]);
    for (const form of forms) out = out.split(form).join(REDACTED);
  }
  return out;
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
