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

  test('--program prints the CustomRules of the rules the stack holds: created in order while available, adopting once converted', async () => {
    const zoneId = await seeded('cli-plan-program.example');
    const [office, bots] = (await h.emulator.admin.inventory(zoneId)).firewallRules;
    const type = 'pulumi-nodejs:dynamic/zoneguard:FirewallRuleWithFilter';
    const resource = (id: string, name: string) => ({ urn: `urn:pulumi:dev::site::${type}::${name}`, type, id, inputs: { zoneId }, outputs: { zoneId, ruleId: id } });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zg-plan-')), 'export.json');
    fs.writeFileSync(file, JSON.stringify({ version: 3, deployment: { resources: [resource(office!.id, 'office'), resource(bots!.id, 'bots')] } }));

    const usage = capture();
    expect(await run(['--zone', zoneId, '--program', ...h.flags()], usage.io)).toBe(2);
    expect(usage.stderr()).toContain('--program needs --stack-export: the program declares the rules your stack holds');

    const plan = capture();
    expect(await run(['--zone', zoneId, '--stack-export', file, ...h.flags()], plan.io)).toBe(0);
    expect(plan.stdout()).toContain('The move (2 rules of the given stacks): the up creates these 2 custom rule(s) first, in this order, then deletes the firewall rules they replace: the two overlap');
    const available = capture();
    expect(await run(['--zone', zoneId, '--stack-export', file, '--program', ...h.flags()], available.io)).toBe(0);
    expect(available.stdout()).toContain(
      [
        `// Was firewall rule ${office!.id}, held by urn:pulumi:dev::site::${type}::office.`,
        "export const ruleOffice = new CustomRule('office', {",
        '  zoneId,',
        "  action: 'skip',",
        "  expression: 'ip.src eq 198.51.100.7',",
        "  description: 'office',",
        "  skip: { ruleset: 'current' },",
        '  position: { first: true },',
        '});',
        '',
        `// Was firewall rule ${bots!.id}, held by urn:pulumi:dev::site::${type}::bots.`,
        "export const ruleBots = new CustomRule('bots', {",
        '  zoneId,',
        "  action: 'skip',",
        '  expression: \'http.user_agent contains "bot"\',',
        "  skip: { products: ['waf'] },",
        '  position: { after: ruleOffice.ruleId },',
        '});',
      ].join('\n'),
    );

    await h.emulator.admin.setLegacyFirewall(zoneId, 'maintenance');
    const { rules } = await h.client.rulesets.getEntrypoint({ zoneId, phase: 'http_request_firewall_custom' });
    const converted = capture();
    expect(await run(['--zone', zoneId, '--stack-export', file, '--program', ...h.flags()], converted.io)).toBe(0);
    // Made by hand, the rules carry no marker: adopted without takeOver, where they run.
    expect(converted.stdout()).toContain(`  skip: { ruleset: 'current' },\n  adoptRuleId: '${rules[0]!.id}',\n});`);
    expect(converted.stdout()).toContain(`  skip: { products: ['waf'] },\n  adoptRuleId: '${rules[1]!.id}',\n});`);
    expect(converted.stdout()).toContain('the up adopts each of these 2 converted rule(s) (one write each: its owner marker)');
    expect(converted.stdout()).not.toMatch(/position|takeOver/);
  });

  test('bad input, one line each, before any write: a rule the rulesets grammar refuses and a phase over its quota are listed under Problems; a token that cannot read an API stops the plan in one line', async () => {
    const zoneId = (
      await h.emulator.admin.seedZone({
        name: 'cli-plan-bad.example',
        plan: 'free',
        ruleQuota: 10,
        firewallRules: [
          { expression: 'http.response.code eq 403', action: 'log' },
          ...Array.from({ length: 6 }, (_, i) => ({ expression: `ip.src eq 192.0.2.${i + 1}`, action: 'block' as const })),
        ],
      })
    ).id;
    const [response] = (await h.emulator.admin.inventory(zoneId)).firewallRules;
    await h.emulator.admin.clearRequests();
    const c = capture();
    expect(await run(['--zone', zoneId, ...h.flags()], c.io)).toBe(0);
    expect(c.stdout()).toContain(
      'Problems\n' +
        `- firewall rule ${response!.id}: the rulesets grammar refuses its conversion (expression: line 1, column 1: http.response.code is a response field; a request phase's expression uses request fields (a rate limiting rule may count responses in its ratelimit.countingExpression)); change the rule while the legacy API is available, or declare it as a CustomRule of your own\n` +
        `- zone ${zoneId}: the service refuses the custom phase after the conversion (dry run): rules: the http_request_firewall_custom phase of zone ${zoneId} (free plan) allows 5 rules; this write would leave 6; nothing was saved; the conversion fails while it does: remove or change rules until the dry run passes\n`,
    );
    // Reads and the dry run only: nothing was written.
    expect((await h.emulator.admin.requests()).filter((r) => r.method !== 'GET').map((r) => `${r.method} dry_run=${String(r.query.dry_run)}`)).toEqual(['PUT dry_run=true']);

    const { token } = await h.emulator.admin.addToken({ zoneId, apis: ['rulesets'] });
    const e = capture();
    const code = await run(['--zone', zoneId, '--base-url', h.emulator.baseUrl, '--api-token', token], e.io);
    expect([code, e.stdout()]).toEqual([1, '']);
    expect(e.stderr().trim().split('\n')).toHaveLength(1);
    expect(e.stderr()).toMatch(new RegExp(`zone ${zoneId}: the token cannot read its firewall rules \\(the legacy firewall rules API\\) \\(.*\\); give it read access to that API for this zone, or run with a token that has it`));
  });
});
