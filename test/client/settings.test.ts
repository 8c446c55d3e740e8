import { DEFAULT_BASE_URL, SettingsError, resolveSettings } from '../../src/client/settings';

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
  test('no credential names every key and variable to set', () => {
    expect(() => resolveSettings(none, {})).toThrow(
      new SettingsError(
        'zoneguard: no credentials; set zoneguard:apiToken (pulumi config set --secret zoneguard:apiToken <token>) or ' +
          'ZONEGUARD_API_TOKEN, or both zoneguard:apiEmail and zoneguard:apiKey (or ZONEGUARD_API_EMAIL and ZONEGUARD_API_KEY)',
      ),
    );
  });
  test.each([
    ['600/60000', { requests: 600, windowMs: 60000 }],
    ['off', false],
  ])('a rate budget of %s', (text, rateBudget) => {
    expect(resolveSettings(none, { ZONEGUARD_API_TOKEN: 't', ZONEGUARD_RATE_BUDGET: text })).toEqual({
      baseUrl: DEFAULT_BASE_URL,
      credentials: { apiToken: 't' },
      rateBudget,
    });
  });
  test('a malformed rate budget says the form it takes', () => {
    expect(() => resolveSettings(none, { ZONEGUARD_API_TOKEN: 't', ZONEGUARD_RATE_BUDGET: '10 per second' })).toThrow(
      'zoneguard: zoneguard:rateBudget (or ZONEGUARD_RATE_BUDGET) must be "requests/windowMs", for example "1200/300000", or "off"; got "10 per second"',
    );
  });

  test('half a key pair names the missing half', () => {
    expect(() => resolveSettings(none, { ZONEGUARD_API_EMAIL: 'a@b.c' })).toThrow(
      'zoneguard: the key form of credentials needs both an email and an API key; set zoneguard:apiKey ' +
        '(pulumi config set --secret zoneguard:apiKey ...) or ZONEGUARD_API_KEY',
    );
  });
});
