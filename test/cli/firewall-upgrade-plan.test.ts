import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../src/cli/commands/firewall-upgrade-plan';
import { capture, useInsightEmulator } from '../insights/helpers';

const h = useInsightEmulator();

async function seeded(name: string) {
  return (
    await h.emulator.admin.seedZone({
      name,
      plan: 'pro',
      firewallRules: [
        { expression: 'ip.src eq 198.51.100.7', action: 'allow', priority: 1, description: 'office' },
        { expression: 'http.user_agent contains "bot"', action: 'bypass', products: ['waf'] },
        { expression: 'http.request.uri.path eq "/wp-login.php"', action: 'block' },
      ],
    })
  ).id;
}

describe('zoneguard firewall-upgrade-plan', () => {
  test('reads only, and prints each legacy rule with the custom rule it will be, the differences and the verdict', async () => {
    const zoneId = await seeded('cli-plan.example');
    await h.emulator.admin.clearRequests();
    const c = capture();
    expect(await run(['--zone', zoneId, ...h.flags()], c.io)).toBe(0);
    const requests = await h.emulator.admin.requests();
    // Reads, and one dry run of the phase after the conversion, which saves nothing.
    expect(requests.map((r) => `${r.method} ${r.query.dry_run ?? ''}`).filter((line) => !line.startsWith('GET'))).toEqual(['PUT true']);
    const out = c.stdout();
    expect(out).toMatch(new RegExp(`^Zone +${zoneId}\\nLegacy firewall API +readable\\nConverted +no: the conversion is still to come\\nVerdict +equivalent on every request tried \\(\\d+ requests\\)\\n`));
    expect(out).toMatch(/\n[0-9a-f]{32} +allow @1 +1 +\(to come\) +skip \(ruleset current\) +yes +nobody \(made by hand, or before owner markers\) +ip\.src eq 198\.51\.100\.7\n/);
    expect(out).toMatch(/\n[0-9a-f]{32} +bypass +2 +\(to come\) +skip \(products waf\) +yes /);
    expect(out).toMatch(/\n[0-9a-f]{32} +block +3 +\(to come\) +block +yes /);
    expect(out).toContain('Differences in behaviour\nnone found\n');
  });

  test('--json answers the plan; a stack export that holds nothing of the zone is a usage error', async () => {
    const zoneId = await seeded('cli-plan-json.example');
    await h.emulator.admin.setLegacyFirewall(zoneId, 'maintenance');
    const c = capture();
    expect(await run(['--zone', zoneId, '--json', ...h.flags()], c.io)).toBe(0);
    const plan = JSON.parse(c.stdout());
    expect([plan.converted, plan.rules.map((rule: { customRuleId: string | null }) => rule.customRuleId === null)]).toEqual([true, [false, false, false]]);

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zg-plan-')), 'export.json');
    fs.writeFileSync(file, JSON.stringify({ version: 3, deployment: { resources: [] } }));
    const e = capture();
    expect(await run(['--zone', zoneId, '--stack-export', file, ...h.flags()], e.io)).toBe(2);
    expect(e.stderr()).toContain(`${file}: holds no zoneguard resource of zone ${zoneId}`);
  });
});
