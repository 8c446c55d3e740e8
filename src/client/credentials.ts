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
      const name =
        code === 0x20
          ? 'a space'
          : code === 0x0a || code === 0x0d
            ? 'a line break'
            : code < 0x20 || code === 0x7f
              ? 'a control character'
              : 'a character outside ASCII';
      return `${name} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) at position ${position}`;
    }
  }
  return undefined;
}

/**
 * What is wrong with a credential value, worded to follow its name after a colon, or undefined: it must be a
 * non-empty string a header can carry. Never quotes the value.
 */
export function credentialProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  const unsafe = headerUnsafeCharacter(value);
  return unsafe && `has ${unsafe}, which a request header cannot carry; copy it again without spaces or line breaks`;
}

/** A credential value checked (credentialProblem). Throws a TypeError naming the field, never the value. */
export function checkCredential(field: 'apiToken' | 'apiEmail' | 'apiKey', value: unknown): string {
  const problem = credentialProblem(value);
  if (problem) throw new TypeError(`credentials.${field}: ${problem}`);
  return value as string;
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
 * What is wrong with a base URL, worded to follow its name after a colon, or undefined: http(s) only, and plain
 * http only to loopback, since credentials ride in every request's headers and would cross the network readable.
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must use https (or http to loopback), got ${url.protocol}`;
  if (url.username || url.password) return 'must not carry a user name or password; pass credentials instead';
  if (url.search || url.hash) return 'must not carry a query or a fragment';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `refusing to send credentials over plain http to ${url.host}: use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)`;
  }
  return undefined;
}

/** The base URL checked (baseUrlProblem), without a trailing slash. Throws a TypeError saying what is wrong. */
export function checkBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new TypeError(`baseUrl: ${problem}`);
  return new URL(baseUrl).href.replace(/\/+$/, '');
}
