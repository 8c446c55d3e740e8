import { DEFAULT_BASE_URL, SETTING_SOURCES, SettingsError, resolveSettings } from '../../src/client/settings';

describe('resolveSettings', () => {
  const none = () => undefined;
  test('config wins over the environment', () => {
    const config = (key: string) => ({ 'zoneguard:apiToken': 'from-config', 'zoneguard:baseUrl': 'http://127.0.0.1:1/client/v4' })[key];
    expect(resolveSettings(config, { ZONEGUARD_API_TOKEN: 'from-env' })).toEqual({
      baseUrl: 'http://127.0.0.1:1/client/v4',
      credentials: { apiToken: 'from-config' },
    });
  });
  test('environment fallback, default base URL', () => {
    expect(resolveSettings(none, { ZONEGUARD_API_EMAIL: 'a@b.c', ZONEGUARD_API_KEY: 'k' })).toEqual({
      baseUrl: DEFAULT_BASE_URL,
      credentials: { apiEmail: 'a@b.c', apiKey: 'k' },
    });
  });
  const thrownBy = (call: () => unknown): SettingsError => {
    try {
      call();
    } catch (error) {
      if (error instanceof SettingsError) return error;
      throw error;
    }
    throw new Error('resolveSettings did not throw');
  };
  test('no credential is the problem "apiToken missing", worded with every key and variable to set', () => {
    const error = thrownBy(() => resolveSettings(none, {}));
    expect(error.problems).toEqual([{ field: 'apiToken', reason: 'missing' }]);
    expect(error.message).toBe(
      'zoneguard: no credentials; set zoneguard:apiToken (pulumi config set --secret zoneguard:apiToken <token>) or ' +
        'ZONEGUARD_API_TOKEN, or both zoneguard:apiEmail and zoneguard:apiKey (or ZONEGUARD_API_EMAIL and ZONEGUARD_API_KEY)',
    );
  });
  test.each([
    ['a rate budget', 'ZONEGUARD_RATE_BUDGET', '600/60000', { rateBudget: { requests: 600, windowMs: 60000 } }],
    ['a rate budget', 'ZONEGUARD_RATE_BUDGET', 'off', { rateBudget: false }],
    ['a per-second cap', 'ZONEGUARD_RATE_BUDGET_PER_SECOND', '50', { rateBudgetPerSecond: 50 }],
    ['a per-second cap', 'ZONEGUARD_RATE_BUDGET_PER_SECOND', 'off', { rateBudgetPerSecond: false }],
  ])('%s (%s) of %s', (_setting, variable, text, setting) => {
    expect(resolveSettings(none, { ZONEGUARD_API_TOKEN: 't', [variable]: text })).toEqual({ baseUrl: DEFAULT_BASE_URL, credentials: { apiToken: 't' }, ...setting });
  });
  test('a malformed rate budget says the form it takes', () => {
    expect(() => resolveSettings(none, { ZONEGUARD_API_TOKEN: 't', ZONEGUARD_RATE_BUDGET: '10 per second' })).toThrow(
      'zoneguard: zoneguard:rateBudget (or ZONEGUARD_RATE_BUDGET): must be "requests/windowMs", for example "1200/300000", or "off"; got "10 per second"',
    );
  });

  test.each([
    [{ ZONEGUARD_API_EMAIL: 'a@b.c' }, 'apiKey', 'zoneguard:apiKey (pulumi config set --secret zoneguard:apiKey ...) or ZONEGUARD_API_KEY'],
    [{ ZONEGUARD_API_KEY: 'key-1234' }, 'apiEmail', 'zoneguard:apiEmail (pulumi config set zoneguard:apiEmail ...) or ZONEGUARD_API_EMAIL'],
  ])('half a key pair (%j) is the missing half, named', (env, field, set) => {
    const error = thrownBy(() => resolveSettings(none, env));
    expect(error.problems).toEqual([{ field, reason: 'missing' }]);
    expect(error.message).toBe(`zoneguard: the key form of credentials needs both an email and an API key; set ${set}`);
  });

  describe.each([
    ['not a URL', { ZONEGUARD_BASE_URL: 'api.example.com/client/v4' }, 'zoneguard:baseUrl (or ZONEGUARD_BASE_URL): must be an absolute http(s) URL'],
    ['ftp', { ZONEGUARD_BASE_URL: 'ftp://api.example.com/client/v4' }, 'zoneguard:baseUrl (or ZONEGUARD_BASE_URL): must use https (or http to loopback), got ftp:'],
    [
      'plain http to a remote host',
      { ZONEGUARD_BASE_URL: 'http://api.example.com/client/v4' },
      'zoneguard:baseUrl (or ZONEGUARD_BASE_URL): refusing to send credentials over plain http to api.example.com: use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)',
    ],
    [
      'a token with a line break',
      { ZONEGUARD_API_TOKEN: 'tok\nen' },
      'zoneguard:apiToken (or ZONEGUARD_API_TOKEN): has a line break (U+000A) at position 4, which a request header cannot carry; copy it again without spaces or line breaks',
    ],
    [
      'a key outside ASCII',
      { ZONEGUARD_API_TOKEN: undefined, ZONEGUARD_API_EMAIL: 'a@b.c', ZONEGUARD_API_KEY: 'kéy-1234' },
      'zoneguard:apiKey (or ZONEGUARD_API_KEY): has a character outside ASCII (U+00E9) at position 2, which a request header cannot carry; copy it again without spaces or line breaks',
    ],
    ['a rate budget of 2^32 requests', { ZONEGUARD_RATE_BUDGET: '4294967296/1' }, 'zoneguard:rateBudget (or ZONEGUARD_RATE_BUDGET): requests must be a whole number from 1 to 100000, got 4294967296'],
    [
      'a rate budget window over 2^31 ms',
      { ZONEGUARD_RATE_BUDGET: '10/2147483648' },
      'zoneguard:rateBudget (or ZONEGUARD_RATE_BUDGET): windowMs must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days), got 2147483648',
    ],
    [
      'a huge malformed rate budget, quoted in part',
      { ZONEGUARD_RATE_BUDGET: 'x'.repeat(100_000) },
      `zoneguard:rateBudget (or ZONEGUARD_RATE_BUDGET): must be "requests/windowMs", for example "1200/300000", or "off"; got "${'x'.repeat(60)}…" (100000 characters)`,
    ],
    [
      'a per-second cap of 10/s',
      { ZONEGUARD_RATE_BUDGET_PER_SECOND: '10/s' },
      'zoneguard:rateBudgetPerSecond (or ZONEGUARD_RATE_BUDGET_PER_SECOND): must be a whole number of requests a second, for example "200", or "off"; got "10/s"',
    ],
    [
      'a per-second cap of 0',
      { ZONEGUARD_RATE_BUDGET_PER_SECOND: '0' },
      'zoneguard:rateBudgetPerSecond (or ZONEGUARD_RATE_BUDGET_PER_SECOND): must be a whole number of requests from 1 to 100000, got 0',
    ],
    [
      'a rate budget store that is not Redis',
      { ZONEGUARD_RATE_BUDGET_STORE: 'http://redis.internal:6379' },
      'zoneguard:rateBudgetStore (or ZONEGUARD_RATE_BUDGET_STORE): must be a redis:// or rediss:// URL with a host, for example "redis://redis.internal:6379" (percent-encode a / : or @ of the password); got "http://redis.internal:6379"',
    ],
    [
      'a rate budget store without a host, its password hidden',
      { ZONEGUARD_RATE_BUDGET_STORE: 'redis://:s3cret@' },
      'zoneguard:rateBudgetStore (or ZONEGUARD_RATE_BUDGET_STORE): must be a redis:// or rediss:// URL with a host, for example "redis://redis.internal:6379" (percent-encode a / : or @ of the password); got "redis://***@"',
    ],
    [
      'a rate budget store whose password holds / and @ (not percent-encoded): none of it shown',
      { ZONEGUARD_RATE_BUDGET_STORE: 'redis://default:s3c/r@et@redis.internal:6379' },
      'zoneguard:rateBudgetStore (or ZONEGUARD_RATE_BUDGET_STORE): must be a redis:// or rediss:// URL with a host, for example "redis://redis.internal:6379" (percent-encode a / : or @ of the password); got "redis://***@redis.internal:6379"',
    ],
  ])('%s', (_name, env, message) => {
    test('is a SettingsError with one problem, worded with the config key and the variable', () => {
      const error = thrownBy(() => resolveSettings(none, { ZONEGUARD_API_TOKEN: 'token-1234', ...env }));
      expect(error.message).toBe(`zoneguard: ${message}`);
      const [problem, ...others] = error.problems;
      expect(others).toEqual([]);
      expect(`zoneguard:${problem!.field} (or ${SETTING_SOURCES[problem!.field].env}): ${problem!.reason}`).toBe(message);
    });
  });

  test.each(['redis://127.0.0.1:6379', 'rediss://:password@redis.internal:6380/2'])('a rate budget store %s', (url) => {
    expect(resolveSettings((key) => (key === 'zoneguard:rateBudgetStore' ? url : undefined), { ZONEGUARD_API_TOKEN: 't' })).toEqual({
      baseUrl: DEFAULT_BASE_URL,
      credentials: { apiToken: 't' },
      rateBudgetStore: url,
    });
  });

  test('the largest rate budget it takes', () => {
    expect(resolveSettings(none, { ZONEGUARD_API_TOKEN: 't', ZONEGUARD_RATE_BUDGET: '100000/2147483647' }).rateBudget).toEqual({
      requests: 100_000,
      windowMs: 2_147_483_647,
    });
  });
});
