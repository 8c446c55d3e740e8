import type { StartEmulatorOptions, StartedEmulator } from '../../src/emulator';
import { emulatorForFile, zoneOfPlan } from '../support/emulator';

/** How a test request authenticates: the account token (default), another token, the key pair, or nothing. */
export type Auth = { token: string } | { email: string; key: string } | { headers: Record<string, string> } | 'none';

/** An answer of the emulator: status, headers, and the body parsed as JSON (null when empty). */
export interface Answer {
  status: number;
  headers: Headers;
  // The tests read arbitrary fields of the envelope; their shapes are asserted with the schemas where it matters.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** A started emulator and a small fetch helper bound to it. */
export interface Harness {
  emulator: StartedEmulator;
  call(method: string, path: string, options?: { body?: unknown; rawBody?: string; contentType?: string; auth?: Auth }): Promise<Answer>;
  zoneOf(plan: string): string;
}

/** Sends one request to a base URL with Node's fetch. */
export async function send(
  baseUrl: string,
  defaultToken: string,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; contentType?: string; auth?: Auth } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const auth = options.auth ?? { token: defaultToken };
  if (auth !== 'none') {
    if ('token' in auth) headers.authorization = `Bearer ${auth.token}`;
    else if ('email' in auth) Object.assign(headers, { 'x-auth-email': auth.email, 'x-auth-key': auth.key });
    else Object.assign(headers, auth.headers);
  }
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text), text };
}

/** Starts an emulator for one test file (demo seed unless told otherwise) and stops it after. */
export function useEmulator(options: StartEmulatorOptions = {}): Harness {
  const emulator = emulatorForFile(options);
  return {
    get emulator() {
      return emulator();
    },
    call: (method, path, callOptions) => send(emulator().baseUrl, emulator().credentials.apiToken, method, path, callOptions),
    zoneOf: (plan) => zoneOfPlan(emulator(), plan),
  };
}

/** The error envelope the emulator answers, for exact comparison. */
export function failure(...errors: [code: number, message: string][]) {
  return { success: false, errors: errors.map(([code, message]) => ({ code, message })), messages: [], result: null };
}

/** Asserts that `answer` is the service's refusal of an invalid field: 400, code 1004, exactly `message`. */
export function expectInvalid(answer: Answer, message: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual(failure([1004, message]));
}

/** A zone id that no seed uses. */
export const UNKNOWN_ZONE = '0123456789abcdef0123456789abcdef';
/** A well-formed object id that names nothing. */
export const MISSING_ID = 'ffffffffffffffffffffffffffffffff';

/** A list's page as the service gives it: asserts a 200 with exactly `resultInfo`, and gives the page's results. */
export async function listedPage(h: Harness, path: string, resultInfo: Record<string, number>): Promise<unknown[]> {
  const answer = await h.call('GET', path);
  expect(answer.status).toBe(200);
  expect(answer.body.result_info).toEqual(resultInfo);
  return answer.body.result as unknown[];
}
