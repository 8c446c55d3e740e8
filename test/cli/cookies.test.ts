import { run } from '../../src/cli/commands/cookies';
import { BIG_ZONE, capture, useInsightEmulator, ran } from '../insights/helpers';

const h = useInsightEmulator();

describe('zoneguard cookies', () => {
  test('--status all on the demo blog zone: the attributes as a table', async () => {
    expect(await ran(run, ['--zone', h.demoZone('free'), '--status', 'all', ...h.flags()])).toEqual({
      code: 0,
      stdout: [
          'NAME          HOST                   STATUS      TYPE         SAME-SITE  SECURE  HTTP-ONLY   MAX-AGE  DOMAIN              PATH',
          '__cf_bm       acme-blog.example      infrequent  first_party  none       yes     yes            1800  .acme-blog.example  /',
          'cf_clearance  www.acme-blog.example  infrequent  first_party  none       yes     yes        31536000  .acme-blog.example  /',
          'session_id    acme-blog.example      inactive    first_party  strict     yes     yes               -  .acme-blog.example  /',
          'csrftoken     www.acme-blog.example  inactive    first_party  strict     yes     no         31449600  .acme-blog.example  /',
          '4 cookies on 2 hosts',
          '',
      ].join('\n'),
      stderr: 'zoneguard: loading cookies: page 1/1 (4/4)\n',
    });
  });

  test('the service default is active only: none on the demo blog zone', async () => {
    expect(await ran(run, ['--zone', h.demoZone('free'), '-q', ...h.flags()])).toMatchObject({ code: 0, stdout: '0 cookies on 0 hosts\n' });
  });

  test('a zone with more cookies than several pages, filtered by host', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--per-page', '10', '--hosts', 'www.example.com', ...h.flags()], c.io)).toBe(0);
    const progress = c.stderr().trimEnd().split('\n');
    expect(progress).toHaveLength(5);
    expect(progress.at(-1)).toBe('zoneguard: loading cookies: page 5/5 (43/43)');
    const lines = c.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(45);
    expect(lines[1]).toMatch(/^cookie_001 +www\.example\.com +active +first_party +lax +yes +no +7200 +\.example\.com +\/$/);
    expect(lines.at(-1)).toBe('43 cookies on 1 host');
  });

  test('--json: the cookies as the service has them, no classification', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--status', 'inactive', '--json', '-q', ...h.flags()], c.io)).toBe(0);
    const cookies = JSON.parse(c.stdout()) as Record<string, unknown>[];
    expect(cookies.map((x) => x.name)).toEqual(['old_0', 'old_1', 'old_2']);
    expect(cookies[0]).not.toHaveProperty('classification');
  });

  test('--by-host: counts, no malicious column', async () => {
    const c = capture();
    expect(await run(['--zone', BIG_ZONE, '--by-host', '-q', ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      ['HOST                COOKIES', 'shop.example.com         44', 'static.example.com       43', 'www.example.com          43', 'total                   130', ''].join('\n'),
    );
  });
});
