import { run } from '../../src/cli/commands/connections';
import { BIG_ZONE, capture, ran, useInsightEmulator } from '../insights/helpers';

const h = useInsightEmulator();

describe('zoneguard connections', () => {
  test('--help says what makes a connection malicious, with no integrity score (connections have none)', async () => {
    const c = capture();
    expect(await run(['--help'], c.io)).toBe(0);
    expect(c.stdout().replace(/\s+/g, ' ')).toContain('--malicious only the malicious ones (domain or URL reported)');
  });

  test('--malicious on the demo enterprise zone: reasons and the merged categories', async () => {
    expect(await ran(run, ['--zone', h.demoZone('enterprise'), '--malicious', ...h.flags()])).toEqual({
      code: 0,
      stdout: [
          'STATUS  HOST                   MALICIOUS          CATEGORIES                             URL',
          'active  api.acme-bank.example  yes (domain)       Malware                                https://collect.polyfill.io/v1/beacon',
          'active  acme-bank.example      yes (domain, url)  Command and Control & Botnet, Malware  https://exfil-metrics.top/c',
          '2 connections on 2 hosts, 2 malicious',
          '',
      ].join('\n'),
      stderr: 'zoneguard: loading connections: page 1/1 (18/18)\n',
    });
  });

  test('the whole list of the demo zone', async () => {
    const c = capture();
    expect(await run(['--zone', h.demoZone('enterprise'), '-q', ...h.flags()], c.io)).toBe(0);
    const lines = c.stdout().trimEnd().split('\n');
    expect(lines[0]).toBe('STATUS  HOST                     MALICIOUS          CATEGORIES                             URL');
    expect(lines[1]).toBe('active  acme-bank.example        no                 -                                      https://api.stripe.com/v1/tokens');
    expect(lines).toHaveLength(20);
    expect(lines.at(-1)).toBe('18 connections on 5 hosts, 2 malicious');
  });

  test('a zone with more connections than several pages: progress per page, every one listed', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--per-page', '30', ...h.flags()], c.io)).toBe(0);
    expect(c.stderr().trimEnd().split('\n')).toEqual([
      'zoneguard: loading connections: page 1/5 (30/140)',
      'zoneguard: loading connections: page 2/5 (60/140)',
      'zoneguard: loading connections: page 3/5 (90/140)',
      'zoneguard: loading connections: page 4/5 (120/140)',
      'zoneguard: loading connections: page 5/5 (140/140)',
    ]);
    expect(c.stdout()).toMatch(/\n140 connections on 3 hosts, 4 malicious\n$/);
  });

  test('--json --status infrequent', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--status', 'infrequent', '--json', '-q', ...h.flags()], c.io)).toBe(0);
    const items = JSON.parse(c.stdout()) as { url: string; status: string; classification: unknown }[];
    expect(items.map((i) => i.url)).toEqual([0, 1, 2, 3, 4].map((i) => `https://rare-${i}.collector.example/ping`));
    expect(items.every((i) => i.status === 'infrequent')).toBe(true);
    expect(items[0]?.classification).toEqual({ malicious: false, reasons: [], categories: [] });
  });

  test('--by-host', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--by-host', '-q', ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      [
        'HOST                CONNECTIONS  MALICIOUS',
        'shop.example.com             47          1',
        'static.example.com           46          1',
        'www.example.com              47          2',
        'total                       140          4',
        '',
      ].join('\n'),
    );
  });
});
