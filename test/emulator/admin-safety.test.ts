import { answers } from '../support/table';
import { request } from 'node:http';
import { adminRefusal, isLoopbackAddress } from '../../src/emulator/admin-guard';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { failure, useEmulator } from './helpers';

const loopback = { address: '127.0.0.1', port: 8787 };
const hostMessage = (host: string) => `admin API: Host ${host} is not this emulator's address; it answers 127.0.0.1:8787 or localhost:8787 only`;
const originMessage = (origin: string) => `admin API: requests from web pages are refused (Origin ${origin}); call it from a program, e.g. EmulatorAdmin`;
const tokenMessage = 'admin API: send Authorization: Bearer <admin token> (printed when the emulator started; required off loopback)';

describe('adminRefusal', () => {
  test.each([
    ['its own address', { host: '127.0.0.1:8787' }, loopback, undefined],
    ['localhost', { host: 'LOCALHOST:8787' }, loopback, undefined],
    ['IPv6 loopback', { host: '[::1]:8787' }, { address: '::1', port: 8787 }, undefined],
    ['a rebound name', { host: 'attacker.example:8787' }, loopback, hostMessage('attacker.example:8787')],
    ['another port', { host: '127.0.0.1:9999' }, loopback, hostMessage('127.0.0.1:9999')],
    ['no Host at all', {}, loopback, hostMessage('(none)')],
    ['a web page', { host: '127.0.0.1:8787', origin: 'https://attacker.example' }, loopback, originMessage('https://attacker.example')],
    ['off loopback without the token', { host: '10.0.0.5:8787' }, { address: '0.0.0.0', port: 8787, adminToken: 't0k' }, tokenMessage],
    ['off loopback with a wrong token', { host: '10.0.0.5:8787', authorization: 'Bearer nope' }, { address: '0.0.0.0', port: 8787, adminToken: 't0k' }, tokenMessage],
    ['off loopback with the token, any Host', { host: 'build-box:8787', authorization: 'Bearer t0k' }, { address: '0.0.0.0', port: 8787, adminToken: 't0k' }, undefined],
    ['a web page with the token', { origin: 'null', authorization: 'Bearer t0k' }, { address: '0.0.0.0', port: 8787, adminToken: 't0k' }, originMessage('null')],
  ])('%s', (_name, headers, settings, expected) => {
    expect(adminRefusal(headers, settings)).toBe(expected);
  });

  answers(isLoopbackAddress, 'isLoopbackAddress(%s) is %s', [
    ['127.0.0.1', true],
    ['127.4.5.6', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['127.example.com', false],
  ]);
});

/** A request with headers fetch will not let us set (Host), as a DNS-rebinding page's browser sends them. */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the admin API on loopback', () => {
  const h = useEmulator();
  const port = () => new URL(h.emulator.adminUrl).port;

  test('a rebound Host name cannot read the credentials', async () => {
    const answer = await raw(`${h.emulator.adminUrl}/info`, 'GET', { host: `rebind.attacker.example:${port()}` });
    expect(answer).toEqual({
      status: 403,
      body: failure([10000, `admin API: Host rebind.attacker.example:${port()} is not this emulator's address; it answers 127.0.0.1:${port()} or localhost:${port()} only`]),
    });
  });

  test('localhost as Host is answered', async () => {
    expect((await raw(`${h.emulator.adminUrl}/zones`, 'GET', { host: `localhost:${port()}` })).status).toBe(200);
  });

  test("a web page's text/plain POST to /reset is refused and resets nothing", async () => {
    const zone = h.zoneOf('pro');
    await h.call('PUT', `/zones/${zone}/page_guard`, { body: { enabled: false } });
    const fromPage = await fetch(`${h.emulator.adminUrl}/reset`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'https://attacker.example' }, body: '{}' });
    expect(fromPage.status).toBe(403);
    expect(await fromPage.json()).toEqual(failure([10000, originMessage('https://attacker.example')]));
    // Without an Origin, text/plain is still not JSON.
    const plain = await fetch(`${h.emulator.adminUrl}/reset`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual(failure([1001, 'Content-Type must be application/json, got text/plain']));
    expect((await h.call('GET', `/zones/${zone}/page_guard`)).body.result.enabled).toBe(false);
  });

  test('the service API refuses a rebound Host too, before the credentials the README prints are looked at', async () => {
    const answer = await raw(`${h.emulator.baseUrl}/zones/${h.zoneOf('pro')}/page_guard`, 'GET', {
      host: `rebind.attacker.example:${port()}`,
      authorization: `Bearer ${h.emulator.credentials.apiToken}`,
    });
    expect(answer).toEqual({
      status: 403,
      body: failure([
        10000,
        `Host rebind.attacker.example:${port()} is not this emulator's address; on loopback it answers 127.0.0.1:${port()} or localhost:${port()} only (a page whose name resolves to 127.0.0.1 is refused)`,
      ]),
    });
    const local = await raw(`${h.emulator.baseUrl}/zones/${h.zoneOf('pro')}/page_guard`, 'GET', {
      host: `localhost:${port()}`,
      authorization: `Bearer ${h.emulator.credentials.apiToken}`,
    });
    expect(local.status).toBe(200);
  });
});

describe('the admin API off loopback', () => {
  let emulator: StartedEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ host: '0.0.0.0', port: 0 });
  });
  afterAll(() => emulator.close());

  test('requires the token it generated; EmulatorAdmin from startEmulator sends it', async () => {
    expect(emulator.adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await emulator.admin.zones()).toHaveLength(4);
    const url = emulator.adminUrl.replace('0.0.0.0', '127.0.0.1');
    const without = await fetch(`${url}/info`);
    expect(without.status).toBe(403);
    expect(await without.json()).toEqual(failure([10000, tokenMessage]));
    const withToken = await fetch(`${url}/info`, { headers: { authorization: `Bearer ${emulator.adminToken}` } });
    expect(withToken.status).toBe(200);
  });
});
