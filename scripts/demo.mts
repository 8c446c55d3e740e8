// The demo driver: the emulator in this process, the Pulumi CLI and engine as child processes, the program of
// examples/demo/ served inline through the Automation API (the Node.js language host is not buildable here).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalWorkspace } from '@pulumi/pulumi/automation/index.js';
import { ZoneGuardClient } from 'pulumi-zoneguard/client';
import { startEmulator } from 'pulumi-zoneguard/emulator';

const root = path.resolve(import.meta.dirname, '..');
const work = path.join(root, '.zoneguard', 'demo');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(path.join(work, 'state'), { recursive: true });

const emulator = await startEmulator({ port: 0 });
const zoneOf = (plan: string) => emulator.zones.find((zone) => zone.plan === plan)!.id;
// Each engine run imports the program afresh (a new URL per run), so its resources are declared every time.
let runs = 0;
const program = async () => {
  const url = new URL(pathToFileURL(path.join(root, 'examples/demo/index.mts')).href);
  url.searchParams.set('run', String(++runs));
  return { ...(await import(url.href)) };
};

try {
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: 'demo', projectName: 'zoneguard-demo', program },
    {
      workDir: root,
      envVars: {
        PULUMI_HOME: path.join(work, 'home'),
        PULUMI_BACKEND_URL: pathToFileURL(path.join(work, 'state')).href,
        PULUMI_CONFIG_PASSPHRASE: 'demo',
      },
    },
  );
  await stack.setAllConfig({
    'zoneguard:baseUrl': { value: emulator.baseUrl },
    'zoneguard:apiToken': { value: emulator.credentials.apiToken, secret: true },
    'zoneguard-demo:bankZoneId': { value: zoneOf('enterprise') },
    'zoneguard-demo:storeZoneId': { value: zoneOf('pro') },
  });

  console.log(`Emulator at ${emulator.baseUrl}; running pulumi up on stack "demo"...\n`);
  const up = await stack.up({ onOutput: (text) => process.stdout.write(text), color: 'never' });
  console.log('\nStack outputs:');
  for (const [name, output] of Object.entries(up.outputs)) {
    const text = output.secret ? '[secret]' : JSON.stringify(output.value);
    console.log(`  ${name}: ${text.length > 140 ? `${text.slice(0, 137)}...` : text}`);
  }

  console.log('\nWhat the emulator now holds:');
  const client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  /** The rules of the zone's entry point of `phase` (none while it has none). */
  const rulesOf = async (zoneId: string, phase: 'http_request_firewall_custom' | 'http_ratelimit') =>
    (await client.rulesets.getEntrypoint({ zoneId, phase }).catch(() => undefined))?.rules.length ?? 0;
  for (const zone of emulator.zones) {
    const { pageGuard, counts, waf } = await emulator.admin.inventory(zone.id);
    console.log(
      `  ${zone.plan.padEnd(10)} ${zone.id}  page security ${pageGuard?.enabled ? 'on ' : 'off'}  ` +
        `CSP policies ${counts.cspPolicies}  firewall rules ${counts.firewallRules}  filters ${counts.filters}  ` +
        `custom rules ${await rulesOf(zone.id, 'http_request_firewall_custom')}  rate limiting rules ${await rulesOf(zone.id, 'http_ratelimit')}  ` +
        `WAF ${waf ? `${waf.migration_state} (previous ${waf.old_waf_status}, new ${waf.new_waf_status})` : 'none'}`,
    );
  }

  console.log('\nSecond pulumi preview (expecting no changes):');
  const preview = await stack.preview({ expectNoChanges: true, color: 'never' });
  console.log(`  ${JSON.stringify(preview.changeSummary)}: no changes.`);
} finally {
  await emulator.close();
}

