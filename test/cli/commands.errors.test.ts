import { run as connections } from '../../src/cli/commands/connections';
import { run as cookies } from '../../src/cli/commands/cookies';
import { run as exportProgram } from '../../src/cli/commands/export';
import { run as migration } from '../../src/cli/commands/migration-plan';
import { run as scripts } from '../../src/cli/commands/scripts';
import { EXIT } from '../../src/cli/commands';
import { BIG_ZONE, capture, useInsightEmulator, ran } from '../insights/helpers';

const h = useInsightEmulator();
const MISSING_ZONE = '00000000000000000000000000000000';

type Run = (argv: readonly string[], io: ReturnType<typeof capture>['io']) => Promise<number>;
const commands: [string, Run, string[]][] = [
  ['scripts', scripts, []],
  ['connections', connections, []],
  ['cookies', cookies, []],
  ['export', exportProgram, []],
  ['migration plan', migration, ['plan']],
];

test('the exit codes are the documented ones', () => {
  expect(EXIT).toEqual({ ok: 0, service: 1, usage: 2 });
});

describe.each(commands)('zoneguard %s', (name, run, prefix) => {
  // The list commands take -q (no progress); export and migration plan show none.
  const quiet = ['export', 'migration plan'].includes(name) ? [] : ['-q'];

  test('--help: usage on stdout, exit 0, with the credentials and exit codes', async () => {
    const c = capture();
    expect(await run([...prefix, '--help'], c.io)).toBe(0);
    expect(c.stdout()).toContain(`Usage: zoneguard ${name} [options]`);
    expect(c.stdout()).toContain('--zone <id>');
    expect(c.stdout()).toContain('--api-token <token>');
    expect(c.stdout()).toContain('ZONEGUARD_API_TOKEN');
    expect(c.stdout()).toContain('Exit codes: 0 ok; 1 service or API error');
    expect(c.stderr()).toBe('');
  });

  test.each([
    ['no --zone', [], "error: required option '--zone <id>' not specified"],
    ['a malformed zone', ['--zone', 'acme.example'], "error: option '--zone <id>' argument 'acme.example' is invalid. must be a zone id: 32 lowercase hexadecimal characters"],
    ['an unknown option', ['--zone', BIG_ZONE, '--zonez'], "error: unknown option '--zonez'"],
  ])('usage error, %s: one line on stderr, exit 2, nothing on stdout', async (_case, argv, message) => {
    const c = capture({ ZONEGUARD_API_TOKEN: 't' });
    expect(await run([...prefix, ...argv], c.io)).toBe(2);
    expect(c.stdout()).toBe('');
    expect(c.stderr()).toMatch(new RegExp(`^zoneguard ${name}: `));
    expect(c.stderr()).toContain(message);
    expect(c.stderr().split('\n')).toEqual([expect.any(String), '']);
  });

  test('no credentials anywhere: exit 2, says what to set', async () => {
    const c = capture({});
    expect(await run([...prefix, '--zone', BIG_ZONE, '--base-url', h.emulator.baseUrl], c.io)).toBe(2);
    expect(c.stderr()).toBe(
      `zoneguard ${name}: error: no credentials: pass --api-token or set ZONEGUARD_API_TOKEN (or --api-email and --api-key, or ZONEGUARD_API_EMAIL and ZONEGUARD_API_KEY)\n`,
    );
  });

  test('half of the key form: exit 2', async () => {
    const c = capture({ ZONEGUARD_API_EMAIL: 'admin@acme.example' });
    expect(await run([...prefix, '--zone', BIG_ZONE, '--base-url', h.emulator.baseUrl], c.io)).toBe(2);
    expect(c.stderr()).toBe(
      `zoneguard ${name}: error: the key form of credentials needs both --api-email and --api-key (or ZONEGUARD_API_EMAIL and ZONEGUARD_API_KEY)\n`,
    );
  });

  test('plain http to a remote host is refused before any request: exit 2', async () => {
    const c = capture();
    expect(await run([...prefix, '--zone', BIG_ZONE, '--base-url', 'http://api.example.com/client/v4', '--api-token', 'secret-token-1234'], c.io)).toBe(2);
    expect(c.stderr()).toBe(
      `zoneguard ${name}: error: --base-url (or ZONEGUARD_BASE_URL): refusing to send credentials over plain http to api.example.com: ` +
        'use https, or http only to loopback (localhost, 127.0.0.0/8, ::1)\n',
    );
  });

  test('a malformed ZONEGUARD_RATE_BUDGET is named, not called missing credentials: exit 2', async () => {
    const c = capture({ ZONEGUARD_RATE_BUDGET: '4294967296/1' });
    expect(await run([...prefix, '--zone', BIG_ZONE, '--base-url', h.emulator.baseUrl, '--api-token', 'secret-token-1234'], c.io)).toBe(2);
    expect(c.stderr()).toBe(`zoneguard ${name}: error: ZONEGUARD_RATE_BUDGET: requests must be a whole number from 1 to 100000, got 4294967296\n`);
  });

  test('a refused token: exit 1, one line, the token nowhere', async () => {
    const token = 'zg_this-token-is-wrong-0123456789';
    const c = capture({ ZONEGUARD_API_TOKEN: token, ZONEGUARD_BASE_URL: h.emulator.baseUrl });
    expect(await run([...prefix, '--zone', BIG_ZONE, ...quiet], c.io)).toBe(1);
    expect(c.stdout()).toBe('');
    expect(c.stderr()).toMatch(new RegExp(`^zoneguard ${name}: error: GET /zones/${BIG_ZONE}/\\S+ failed: HTTP 403 [^\\n]*\\b10000\\b[^\\n]*\\n$`));
    expect(c.stderr()).not.toContain(token);
  });

  test('a zone the service does not know: exit 1', async () => {
    const c = capture({ ZONEGUARD_API_TOKEN: h.emulator.credentials.apiToken, ZONEGUARD_BASE_URL: h.emulator.baseUrl });
    expect(await run([...prefix, '--zone', MISSING_ZONE, ...quiet], c.io)).toBe(1);
    expect(c.stderr()).toMatch(new RegExp(`^zoneguard ${name}: error: GET /zones/${MISSING_ZONE}/?\\S* failed: HTTP 404 .*\\n$`));
  });

});

describe('no credential is ever printed', () => {
  test('a mistyped --api-token=VALUE is masked in the unknown-option error', async () => {
    expect(await ran(scripts, ['--zone', BIG_ZONE, '--api-tokn=supersecretvalue'])).toMatchObject({ code: 2, stderr: "zoneguard scripts: error: unknown option '--api-tokn=…'\n" });
  });

  test('a missing option value names the option only', async () => {
    expect(await ran(scripts, ['--zone', BIG_ZONE, '--api-token'])).toMatchObject({ code: 2, stderr: "zoneguard scripts: error: option '--api-token <token>' argument missing\n" });
  });

  test('a token with a line break is refused naming the field, not the value', async () => {
    const c = capture();
    expect(await scripts(['--zone', BIG_ZONE, '--base-url', h.emulator.baseUrl, '--api-token', 'abc\ndef-secret'], c.io)).toBe(2);
    expect(c.stderr()).toBe(
      'zoneguard scripts: error: --api-token (or ZONEGUARD_API_TOKEN): has a line break (U+000A) at position 4, which a request header cannot carry; ' +
        'copy it again without spaces or line breaks\n',
    );
  });
});

test('nothing listening: exit 1 with the connection error, after the client\'s retries', async () => {
  const c = capture({ ZONEGUARD_API_TOKEN: 'secret-token-1234' });
  expect(await scripts(['--zone', BIG_ZONE, '-q', '--base-url', 'http://127.0.0.1:9/client/v4'], c.io)).toBe(1);
  expect(c.stderr()).toMatch(new RegExp(`^zoneguard scripts: error: GET /zones/${BIG_ZONE}/page_guard/scripts failed: connection error ECONNREFUSED[^\\n]*\\n$`));
});

describe('option values', () => {
  test.each([
    [['--status', 'gone'], `option '--status <statuses>' argument 'gone' is invalid. "gone" is not a status; use active, infrequent, inactive (comma separated) or all`],
    [['--hosts', 'a b'], `option '--hosts <hosts>' argument 'a b' is invalid. "a b" is not a host name (a leading or trailing * is allowed)`],
    [['--per-page', '500'], `option '--per-page <n>' argument '500' is invalid. must be a whole number from 1 to 100`],
    [['--direction', 'up'], `option '--direction <direction>' argument 'up' is invalid. Allowed choices are asc, desc.`],
  ])('%j: exit 2', async (argv, message) => {
    expect(await ran(scripts, ['--zone', BIG_ZONE, ...argv])).toMatchObject({ code: 2, stderr: `zoneguard scripts: error: ${message}\n` });
  });

  test.each([
    ['--malicious', 'cookies have no malicious classification'],
    ['--exclude-cdn-cgi', 'the service refuses exclude_cdn_cgi on the cookies list'],
  ])('cookies: %s is an unknown option (%s)', async (option) => {
    expect(await ran(cookies, ['--zone', BIG_ZONE, option])).toMatchObject({ code: 2, stderr: `zoneguard cookies: error: unknown option '${option}'\n` });
  });

  test('a service-side refusal of a filter value is a service error: exit 1', async () => {
    const c = capture();
    expect(await scripts(['--zone', BIG_ZONE, '--order-by', 'url', '-q', ...h.flags()], c.io)).toBe(1);
    expect(c.stderr()).toMatch(/^zoneguard scripts: error: GET \/zones\/\S+\/page_guard\/scripts failed: HTTP 400 .*order_by: must be first_seen_at or last_seen_at.*\n$/);
  });
});

describe('zoneguard migration', () => {
  test('without a sub-command: its help on stderr, exit 2', async () => {
    const c = capture();
    expect(await migration([], c.io)).toBe(2);
    expect(c.stderr()).toContain('Usage: zoneguard migration [options] [command]');
    expect(c.stderr()).toContain('plan [options]');
    expect(c.stdout()).toBe('');
  });

  test('an unknown sub-command: exit 2', async () => {
    expect(await ran(migration, ['apply', '--zone', BIG_ZONE])).toMatchObject({ code: 2, stderr: "zoneguard migration: error: unknown command 'apply'\n" });
  });
});
