import { run } from '../../src/cli/commands/scripts';
import { BIG_ZONE, EMPTY_ZONE, capture, useInsightEmulator, ran } from '../insights/helpers';

const h = useInsightEmulator();
const zone = () => h.demoZone('enterprise');

describe('zoneguard scripts: output', () => {
  test('--malicious: a table of the malicious scripts with reasons and merged categories', async () => {
    expect(await ran(run, ['--zone', zone(), '--malicious', ...h.flags()])).toEqual({
      code: 0,
      stdout: [
          'STATUS  HOST                     SCORE  MALICIOUS                 CATEGORIES         URL',
          'active  api.acme-bank.example       12  yes (score, domain)       Malware            https://polyfill.io/v3/polyfill.min.js?features=default',
          'active  login.acme-bank.example      8  yes (score, domain, url)  Malware, Phishing  https://cdn.jsdelivr-analytics.com/metrics.js',
          'active  shop.acme-bank.example      21  yes (score, url)          Cryptomining       https://googletagmanager-stats.top/gtm.js',
          'active  www.acme-bank.example       37  yes (score)               -                  https://cdn.skimlinks-partner.net/js/track.js',
          'active  login.acme-bank.example     44  yes (score)               -                  https://assets.adobedtm.com/launch-EN4f8a2b.min.js',
          '5 scripts on 4 hosts, 5 malicious',
          '',
      ].join('\n'),
      stderr: 'zoneguard: loading scripts: page 1/1 (40/40)\n',
    });
  });

  test('the whole list: every script a row, the footer counts hosts and malicious ones', async () => {
    const c = capture();
    expect(await run(['--zone', zone(), ...h.flags()], c.io)).toBe(0);
    const lines = c.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(42);
    expect(lines[0]).toMatch(/^STATUS +HOST +SCORE +MALICIOUS +CATEGORIES +URL$/);
    expect(lines[1]).toMatch(/^active +acme-bank\.example +\d+ +no +- +https:\/\/www\.googletagmanager\.com\/gtag\/js\?id=G-7XK2Q9PLMB$/);
    expect(lines.at(-1)).toBe('40 scripts on 5 hosts, 5 malicious');
    // Columns line up: every row has its URL at the same offset.
    const urlAt = lines[0]!.indexOf('URL');
    for (const line of lines.slice(1, -1)) expect(line.slice(urlAt)).toMatch(/^https:\/\//);
  });

  test('a zone holding more scripts than several pages: every page walked, progress per page on stderr', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--per-page', '25', ...h.flags()], c.io)).toBe(0);
    expect(c.stdout().trimEnd().split('\n')).toHaveLength(233);
    expect(c.stdout()).toMatch(/\n231 scripts on 3 hosts, 22 malicious\n$/);
    expect(c.stderr().split('\n').filter(Boolean)).toEqual(
      Array.from({ length: 10 }, (_, i) => `zoneguard: loading scripts: page ${i + 1}/10 (${Math.min(25 * (i + 1), 231)}/231)`),
    );
  });

  test('on a terminal, progress redraws one line and clears it at the end', async () => {
    const c = capture({}, { tty: true });
    expect(await run(['--zone', BIG_ZONE, ...h.flags()], c.io)).toBe(0);
    expect(c.stderr()).toBe(
      '\r\x1b[2Kzoneguard: loading scripts: page 1/3 (100/231)' +
        '\r\x1b[2Kzoneguard: loading scripts: page 2/3 (200/231)' +
        '\r\x1b[2Kzoneguard: loading scripts: page 3/3 (231/231)' +
        '\r\x1b[2K',
    );
  });

  test('--quiet: nothing on stderr', async () => {
    expect(await ran(run, ['--zone', BIG_ZONE, '--quiet', ...h.flags()])).toMatchObject({ code: 0, stderr: '' });
  });

  test('--json: every script with its classification, and nothing else on stdout', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--json', '--status', 'all', ...h.flags()], c.io)).toBe(0);
    const scripts = JSON.parse(c.stdout());
    expect(scripts).toHaveLength(251);
    expect(scripts.find((s: { url: string }) => s.url === 'https://bad-7.evil.example/js/active-007.js')).toMatchObject({
      host: 'www.example.com',
      js_integrity_score: 30,
      classification: { malicious: true, reasons: ['score', 'domain', 'url'], categories: ['Cryptomining', 'Malware', 'Phishing'] },
    });
  });

  test('--hosts with a wildcard and --status', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--hosts', '*.example.com', '--status', 'infrequent,inactive', '--json', '-q', ...h.flags()], c.io)).toBe(0);
    const scripts = JSON.parse(c.stdout()) as { status: string }[];
    expect(scripts).toHaveLength(20);
    expect(new Set(scripts.map((s) => s.status))).toEqual(new Set(['infrequent', 'inactive']));
    const shop = capture();
    expect(await run(['--zone', BIG_ZONE, '--hosts', 'shop.example.com', '--json', '-q', ...h.flags()], shop.io)).toBe(0);
    expect(new Set((JSON.parse(shop.stdout()) as { host: string }[]).map((s) => s.host))).toEqual(new Set(['shop.example.com']));
  });

  test('--by-host: counts per host with a total row; with --json the counts', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--by-host', '-q', ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      [
        'HOST                SCRIPTS  MALICIOUS',
        'shop.example.com         78          7',
        'static.example.com       76          7',
        'www.example.com          77          8',
        'total                   231         22',
        '',
      ].join('\n'),
    );
    const j = capture();
    expect(await run(['--zone', BIG_ZONE, '--by-host', '--malicious', '--json', '-q', ...h.flags()], j.io)).toBe(0);
    expect(JSON.parse(j.stdout())).toEqual([
      { host: 'shop.example.com', count: 7, malicious: 7 },
      { host: 'static.example.com', count: 7, malicious: 7 },
      { host: 'www.example.com', count: 8, malicious: 8 },
    ]);
  });

  test('--exclude-cdn-cgi, --order-by/--direction and --prioritize-malicious reach the service', async () => {
    await h.emulator.admin.clearRequests();
    const c = capture();
    const argv = ['--zone', BIG_ZONE, '--exclude-cdn-cgi', '--order-by', 'last_seen_at', '--direction', 'desc', '--prioritize-malicious', '--json', '-q'];
    expect(await run([...argv, ...h.flags()], c.io)).toBe(0);
    const scripts = JSON.parse(c.stdout()) as { url: string; classification: { malicious: boolean } }[];
    expect(scripts).toHaveLength(230);
    expect(scripts.slice(0, 22).every((s) => s.classification.malicious)).toBe(true);
    const [first] = await h.emulator.admin.requests();
    expect(first?.query).toMatchObject({ exclude_cdn_cgi: 'true', order_by: 'last_seen_at', direction: 'desc', prioritize_malicious: 'true' });
  });

  test('an empty zone: no table, the footer says so', async () => {
    expect(await ran(run, ['--zone', EMPTY_ZONE, '-q', ...h.flags()])).toMatchObject({ code: 0, stdout: '0 scripts on 0 hosts, 0 malicious\n' });
  });

  test('a plan without the analysis: score and verdict are "-"', async () => {
    const c = capture();
    expect(await run(['--zone', h.demoZone('pro'), '-q', ...h.flags()], c.io)).toBe(0);
    const [, row] = c.stdout().split('\n');
    expect(row).toMatch(/^active +acme-store\.example +- +- +- +https:\/\//);
  });
});

describe('zoneguard scripts: credentials from the environment', () => {
  test('ZONEGUARD_API_TOKEN and ZONEGUARD_BASE_URL', async () => {
    const c = capture({ ZONEGUARD_API_TOKEN: h.emulator.credentials.apiToken, ZONEGUARD_BASE_URL: h.emulator.baseUrl });
    expect(await run(['--zone', zone(), '-q'], c.io)).toBe(0);
    expect(c.stdout()).toMatch(/\n40 scripts on 5 hosts, 5 malicious\n$/);
  });

  test('the key form: ZONEGUARD_API_EMAIL and ZONEGUARD_API_KEY, or the two flags', async () => {
    const { apiEmail, apiKey } = h.emulator.credentials;
    const env = capture({ ZONEGUARD_API_EMAIL: apiEmail, ZONEGUARD_API_KEY: apiKey, ZONEGUARD_BASE_URL: h.emulator.baseUrl });
    expect(await run(['--zone', zone(), '-q'], env.io)).toBe(0);
    const flags = capture();
    expect(await run(['--zone', zone(), '-q', '--base-url', h.emulator.baseUrl, '--api-email', apiEmail, '--api-key', apiKey], flags.io)).toBe(0);
    expect(flags.stdout()).toBe(env.stdout());
  });

  test('credential flags win over the environment as a set', async () => {
    const { apiEmail, apiKey } = h.emulator.credentials;
    // A wrong token in the environment would be refused; the key flags replace it entirely.
    const c = capture({ ZONEGUARD_API_TOKEN: 'wrong-token-from-env', ZONEGUARD_BASE_URL: h.emulator.baseUrl });
    expect(await run(['--zone', zone(), '-q', '--api-email', apiEmail, '--api-key', apiKey], c.io)).toBe(0);
  });
});
