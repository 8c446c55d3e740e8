import { answers } from '../support/table';
import { authHeaders, checkBaseUrl, isLoopbackHost, secretsOf } from '../../src/client/credentials';

describe('isLoopbackHost', () => {
  answers(isLoopbackHost, '%s: %s', [
    ['localhost', true],
    ['LOCALHOST', true],
    ['127.0.0.1', true],
    ['127.12.0.9', true],
    ['[::1]', true],
    ['::1', true],
    ['[::ffff:7f00:1]', true], // ::ffff:127.0.0.1 as WHATWG URL writes it
    ['api.localhost', false],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['0.0.0.0', false],
    ['[::2]', false],
    ['127.0.0.1.example.com', false],
    ['example.com', false],
  ]);
});

describe('checkBaseUrl', () => {
  answers(checkBaseUrl, 'accepts %s', [
    ['https://api.example.com/client/v4/', 'https://api.example.com/client/v4'],
    ['http://127.0.0.1:8787/client/v4', 'http://127.0.0.1:8787/client/v4'],
    ['http://localhost:1/client/v4', 'http://localhost:1/client/v4'],
    ['http://[::1]:1/client/v4', 'http://[::1]:1/client/v4'],
    ['http://127.1:1/client/v4', 'http://127.0.0.1:1/client/v4'],
  ]);

  it.each([
    ['http://api.example.com/client/v4', 'baseUrl: refusing to send credentials over plain http to api.example.com: use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)'],
    ['http://10.1.2.3:8080/client/v4', 'baseUrl: refusing to send credentials over plain http to 10.1.2.3:8080: use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)'],
    ['ftp://api.example.com/', 'baseUrl: must use https (or http to loopback), got ftp:'],
    ['api.example.com/client/v4', 'baseUrl: must be an absolute http(s) URL'],
    ['https://user:pw@api.example.com/', 'baseUrl: must not carry a user name or password; pass credentials instead'],
    ['https://api.example.com/client/v4?x=1', 'baseUrl: must not carry a query or a fragment'],
  ])('refuses %s', (input, message) => {
    expect(() => checkBaseUrl(input)).toThrow(new TypeError(message));
  });
});

describe('authHeaders', () => {
  it('sends a token as a Bearer authorization', () => {
    expect(authHeaders({ apiToken: 'tok' })).toEqual({ authorization: 'Bearer tok' });
  });

  it('sends an email and key as X-Auth-Email and X-Auth-Key', () => {
    expect(authHeaders({ apiEmail: 'me@example.com', apiKey: 'key' })).toEqual({
      'x-auth-email': 'me@example.com',
      'x-auth-key': 'key',
    });
  });

  it.each([
    [{}, 'credentials must be { apiToken } or { apiEmail, apiKey }'],
    [{ apiToken: '' }, 'credentials.apiToken: must be a non-empty string'],
    [{ apiEmail: 'me@example.com' }, 'credentials.apiKey: must be a non-empty string'],
    [{ apiKey: 'k' }, 'credentials.apiEmail: must be a non-empty string'],
    [
      { apiToken: 'secret\r\nx-evil: 1' },
      'credentials.apiToken: has a line break (U+000D) at position 7, which a request header cannot carry; copy it again without spaces or line breaks',
    ],
  ])('refuses %j without echoing the value', (credentials, message) => {
    expect(() => authHeaders(credentials as never)).toThrow(new TypeError(message));
  });

  it('lists the credential values for the budget hash only', () => {
    expect(secretsOf({ apiToken: 't' })).toEqual(['token', 't']);
    expect(secretsOf({ apiEmail: 'e', apiKey: 'k' })).toEqual(['key', 'e', 'k']);
  });
});
