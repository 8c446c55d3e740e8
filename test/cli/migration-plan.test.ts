import { run } from '../../src/cli/commands/migration-plan';
import { readMigrationPlan } from '../../src/migration';
import { capture, useInsightEmulator } from '../insights/helpers';

const h = useInsightEmulator();

describe('zoneguard migration plan', () => {
  test('a Pro zone: compatible; the converted ruleset, the core rule set table, what changes and what is dropped', async () => {
    const zoneId = h.demoZone('pro');
    await h.emulator.admin.clearRequests();
    const c = capture();
    expect(await run(['plan', '--zone', zoneId, ...h.flags()], c.io)).toBe(0);
    const requests = await h.emulator.admin.requests();
    expect(requests.every((r) => r.method === 'GET')).toBe(true);
    expect(c.stdout()).toMatch(/^Zone +[0-9a-f]{32}\nCompatible +yes\nMigration state +start\nPrevious WAF +enabled\nNew WAF +disabled\n/);
    expect(c.stdout()).toContain('Firewall rules      2 (at most 200 migrate without support)\n');
    expect(c.stdout()).toContain(
      [
        'Converted configuration: ruleset "default", 2 rules',
        '#  ACTION   EXPRESSION  ENABLED  EXECUTES                          DESCRIPTION                    OVERRIDES',
        '1  execute  true        yes      efb7b8c949ac4650a09736fc376e9aee  Cloudflare Managed Ruleset     -',
        '2  execute  true        yes      4814384a9e5d4991b9815dcfc25d2f1f  Cloudflare OWASP Core Ruleset  categories: paranoia-level-2 off, paranoia-level-3 off, paranoia-level-4 off; rules: 6179ae15870a4bb7b2d480d4843b323c log threshold 25',
        '',
        'Core rule set',
        'SETTING      BEFORE    AFTER',
        'sensitivity  medium    paranoia level PL1, score threshold High (25 or higher)',
        'action       simulate  log',
        'enabled      yes       yes',
        '',
        'What the conversion changes or drops',
        'EFFECT   DETAIL',
        'changed  the previous managed rules package becomes an execute rule of the Cloudflare Managed Ruleset',
        'changed  core rule set sensitivity medium: paranoia level PL1, score threshold High (25 or higher)',
        'changed  core rule set action simulate becomes log (the new ruleset has no simulate)',
      ].join('\n'),
    );
    expect(c.stdout()).toMatch(/\ndropped {2}group overrides and rule overrides of the previous core rule set are not migrated/);
    expect(c.stdout()).not.toContain('Problems');
  });

  test('an Enterprise zone: the WAF bypass rule becomes a skip rule, placed first', async () => {
    const c = capture();
    expect(await run(['plan', '--zone', h.demoZone('enterprise'), ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toMatch(/\n1 {2}skip +\(ip\.src in \{192\.0\.2\.0\/24\} and http\.request\.uri\.path contains "\/api\/internal"\) +yes +- +Migrated from firewall rule [0-9a-f]{32} +-\n/);
    expect(c.stdout()).toMatch(/\nchanged +firewall rule [0-9a-f]{32} bypasses the WAF managed rules: recreated as a skip rule of the new configuration\n/);
    expect(c.stdout()).toContain('sensitivity  high    paranoia level PL2, score threshold Medium (40 or higher)');
  });

  test('a zone with a URI-based override: not compatible, the problem says what to delete', async () => {
    const zoneId = h.demoZone('business');
    const c = capture();
    expect(await run(['plan', '--zone', zoneId, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toMatch(/\nCompatible +no\n/);
    expect(c.stdout()).toMatch(
      new RegExp(`\\nProblems\\n- zone ${zoneId} cannot migrate: it has 1 URI-based WAF override \\([0-9a-f]{32} for api\\.acme-media\\.example/upload/\\*\\); delete it with DELETE /zones/${zoneId}/firewall/waf/overrides/\\{id\\}`),
    );
    expect(c.stdout()).toContain('Converted configuration: none (the zone is not compatible)\n');
  });

  test('a zone without a previous WAF: nothing to convert', async () => {
    const c = capture();
    expect(await run(['plan', '--zone', h.demoZone('free'), ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toContain('Converted configuration: ruleset "default", 0 rules\n');
    expect(c.stdout()).toMatch(/What the conversion changes or drops\nnothing: the zone has no previous WAF settings to convert\n$/);
  });

  test('a zone that has migrated: the state, and nothing left to convert', async () => {
    const zoneId = h.demoZone('pro');
    const ruleset = await h.client.wafMigration.config({ zoneId });
    await h.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset });
    const c = capture();
    expect(await run(['plan', '--zone', zoneId, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toBe(
      [
        `Zone             ${zoneId}`,
        'Compatible       no (the migration is complete)',
        'Migration state  complete',
        'Previous WAF     disabled',
        'New WAF          enabled',
        '',
        'Converted configuration: none (the migration is complete: nothing left to convert)',
        '',
        'What the conversion changes or drops',
        'nothing: the previous WAF is gone',
        '',
      ].join('\n'),
    );
  });

  test('--json: the plan planWafMigration answers', async () => {
    const zoneId = h.demoZone('enterprise');
    const c = capture();
    expect(await run(['plan', '--zone', zoneId, '--json', ...h.flags()], c.io)).toBe(0);
    expect(JSON.parse(c.stdout())).toEqual(JSON.parse(JSON.stringify(await readMigrationPlan(h.client, zoneId))));
    expect(JSON.parse(c.stdout())).toMatchObject({ zoneId, compatible: true, migrationState: 'start', problems: [] });
  });
});
