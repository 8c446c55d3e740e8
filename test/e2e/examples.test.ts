import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ZoneGuardClient } from '../../src/client';
import { engineFailure, inlineProgram, openSandbox, previewDiff, projectStack, type EngineSandbox } from './harness';
import { serveProgram } from './inline-host';
import type { Stack } from '@pulumi/pulumi/automation';
import { testClient, writesOf, zoneOfPlan } from '../support/emulator';
import { splitMarked } from '../../src/schemas/owner-marker';
import { describeEmulator } from '../../src/cli';

// Each example under examples/ run as its Pulumi project would be (its Pulumi.yaml's name, its config, its index.ts
// importing 'pulumi-zoneguard') through the real engine against the emulator: up, then a clean second preview, and
// what the example is for. So the examples cannot rot.
jest.setTimeout(240_000);

const examples = path.resolve(__dirname, '../../examples');

/** A sandbox of its own per example: a fresh emulator, so the examples never see each other's changes. */
function withSandbox(label: string) {
  const context = {} as { sandbox: EngineSandbox; client: ZoneGuardClient; zone: (plan: string) => string };
  beforeAll(async () => {
    context.sandbox = await openSandbox(label);
    const { emulator } = context.sandbox;
    context.client = testClient(emulator);
    context.zone = (plan) => zoneOfPlan(emulator, plan);
  });
  afterAll(() => context.sandbox?.close());
  return context;
}

const valueOf = async (stack: Stack, name: string) => (await stack.outputs())[name]?.value;

describe('examples/policies-across-zones', () => {
  const context = withSandbox('example-policies');
  let stack: Stack;
  let zones: Record<string, string>;
  let seeded: Record<string, { policies: number; enabled: boolean }>;

  beforeAll(async () => {
    const { sandbox, zone } = context;
    zones = { store: zone('pro'), media: zone('business'), bank: zone('enterprise') };
    seeded = {};
    for (const [name, zoneId] of Object.entries(zones)) {
      const inventory = await sandbox.emulator.admin.inventory(zoneId);
      seeded[name] = { policies: inventory.counts.cspPolicies, enabled: Boolean(inventory.pageGuard?.enabled) };
    }
    stack = await projectStack(sandbox, path.join(examples, 'policies-across-zones'), 'dev', { zones });
  });

  test('up applies the policy set to every zone; a second preview shows no change', async () => {
    const up = await stack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toEqual({ create: 11 }); // the stack, its owner id, 3 zones × (settings + 2 policies)
    const policies = up.outputs.policies!.value as Record<string, Record<string, string>>;
    expect(Object.keys(policies).sort()).toEqual(['bank', 'media', 'store']);
    for (const [name, zoneId] of Object.entries(zones)) {
      expect(Object.keys(policies[name]!).sort()).toEqual(['account', 'checkout']);
      expect(await context.client.cspPolicies.get({ zoneId, policyId: policies[name]!.checkout! })).toMatchObject({
        action: 'log',
        expression: 'http.request.uri.path contains "/checkout"',
        value: "script-src 'self' https://js.stripe.com",
      });
      expect(await context.client.cspPolicies.get({ zoneId, policyId: policies[name]!.account! })).toMatchObject({
        expression: 'starts_with(http.request.uri.path, "/account")',
      });
      expect((await context.client.pageGuard.get({ zoneId })).enabled).toBe(true);
    }
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('one config change enforces the whole set on every zone', async () => {
    await stack.setConfig('policies-across-zones:action', { value: 'allow' });
    const { text, summary } = await previewDiff(stack);
    expect(summary).toMatchObject({ update: 6 });
    expect(text.match(/~ action\s*:\s*"log" => "allow"/g)).toHaveLength(6);
    await stack.up({ color: 'never' });
    const policies = (await valueOf(stack, 'policies')) as Record<string, Record<string, string>>;
    for (const [name, zoneId] of Object.entries(zones)) {
      for (const policyId of Object.values(policies[name]!)) {
        expect(await context.client.cspPolicies.get({ zoneId, policyId })).toMatchObject({ action: 'allow' });
      }
    }
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('destroy removes the policies and puts each zone\'s page security back', async () => {
    await stack.destroy({ color: 'never' });
    for (const [name, zoneId] of Object.entries(zones)) {
      const inventory = await context.sandbox.emulator.admin.inventory(zoneId);
      expect(inventory.counts.cspPolicies).toBe(seeded[name]!.policies);
      expect(Boolean(inventory.pageGuard?.enabled)).toBe(seeded[name]!.enabled);
    }
  });
});

describe('examples/waf-migration-validation', () => {
  const context = withSandbox('example-waf');
  let stack: Stack;
  let zoneId: string;

  beforeAll(async () => {
    zoneId = context.zone('enterprise');
    stack = await projectStack(context.sandbox, path.join(examples, 'waf-migration-validation'), 'dev', { zoneId });
  });

  test('up starts the migration in validation mode and outputs the plan; a second preview shows no change', async () => {
    const up = await stack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toEqual({ create: 3 }); // the stack, its owner id, the migration
    expect(await context.client.wafMigration.status({ zoneId })).toMatchObject({
      migration_state: 'validation',
      old_waf_status: 'enabled',
      new_waf_status: 'enabled',
    });
    const { wafPlan, migrationMode, migrationState, previousWafStatus, newWafStatus } = up.outputs;
    expect([migrationMode!.value, migrationState!.value, previousWafStatus!.value, newWafStatus!.value]).toEqual([
      'validation',
      'validation',
      'enabled',
      'enabled',
    ]);
    // The plan is read when the program runs, before the migration: what this up submitted.
    expect(wafPlan!.value).toMatchObject({ zoneId, compatible: true, migrationState: 'start', problems: [] });
    expect((wafPlan!.value as { conversion: { adjusted: string[] } }).conversion.adjusted).toEqual([
      expect.stringContaining('rule 6179ae15870a4bb7b2d480d4843b323c: action block, score threshold 40'),
      expect.stringContaining('category wordpress: disabled'),
    ]);
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('mode direct in the config finalizes: the preview shows the mode change, up completes the migration', async () => {
    await stack.setConfig('waf-migration-validation:mode', { value: 'direct' });
    const { text, summary } = await previewDiff(stack);
    expect(summary).toMatchObject({ update: 1 });
    expect(text).toMatch(/~ mode\s*:\s*"validation" => "direct"/);
    const up = await stack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await context.client.wafMigration.status({ zoneId })).toMatchObject({
      migration_state: 'complete',
      old_waf_status: 'disabled',
      new_waf_status: 'enabled',
    });
    expect(up.outputs.migrationState!.value).toBe('complete');
    await stack.preview({ expectNoChanges: true, color: 'never' });
    expect(await valueOf(stack, 'wafPlan')).toMatchObject({ migrationState: 'validation' });
  });
});

describe('examples/waf-migrate-then-manage', () => {
  const context = withSandbox('example-waf-manage');
  let stack: Stack;
  let zoneId: string;
  const entrypoint = '/rulesets/phases/http_request_firewall_managed/entrypoint';
  // A dry run saves nothing: a preview's diff of a change sends one (docs/custom-rules.md#previews), no write.
  const writes = () => writesOf(context.sandbox.emulator, { path: 'belowZone', dryRuns: 'leftOut' });

  beforeAll(async () => {
    zoneId = context.zone('pro');
    stack = await projectStack(context.sandbox, path.join(examples, 'waf-migrate-then-manage'), 'dev', { zoneId });
  });

  test('up migrates the zone, and WafManagedRules takes the entry point over with one write, its owner marker; a second preview shows no change', async () => {
    await context.sandbox.emulator.admin.clearRequests();
    const up = await stack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toEqual({ create: 4 }); // with the stack's owner id
    // The migration's submission, then the take-over's marker in the entry point's description (docs/ownership.md).
    expect(await writes()).toEqual([`PUT ${entrypoint}`, `PUT ${entrypoint}`]);
    expect(await context.client.wafMigration.status({ zoneId })).toMatchObject({ migration_state: 'complete', new_waf_status: 'enabled' });
    expect(up.outputs.migrationState!.value).toBe('complete');
    expect(up.outputs.ruleOrder!.value).toEqual(['managed-ruleset', 'owasp-core-ruleset']);
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('an office network in the config adds one exception first: the preview names that rule, up writes once', async () => {
    const before = (await valueOf(stack, 'ruleIds')) as Record<string, string>;
    await stack.setConfig('waf-migrate-then-manage:officeNetwork', { value: '192.0.2.0/24' });
    const { text, summary } = await previewDiff(stack);
    expect(summary).toMatchObject({ update: 1 });
    expect(text).toMatch(/\+ office\s*: \{\s*\+ description: "The office network skips the managed rules"\s*\+ enabled\s*: true\s*\+ expression : "ip.src in \{192.0.2.0\/24\}"/);
    await context.sandbox.emulator.admin.clearRequests();
    const up = await stack.up({ color: 'never' });
    expect(await writes()).toEqual([`PUT ${entrypoint}`]);
    expect(up.outputs.ruleOrder!.value).toEqual(['office', 'managed-ruleset', 'owasp-core-ruleset']);
    expect(up.outputs.ruleIds!.value).toMatchObject(before);
    const saved = await context.client.rulesets.getEntrypoint({ zoneId });
    expect(saved.rules[0]).toMatchObject({ ref: 'office', action: 'skip', expression: 'ip.src in {192.0.2.0/24}', action_parameters: { ruleset: 'current' } });
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });
});

describe('examples/rules-per-team', () => {
  const context = withSandbox('example-rules-per-team');
  let security: Stack;
  let api: Stack;
  let zoneId: string;
  const phase = 'http_request_firewall_custom';
  /** The zone's custom rules by the ref their programs declared (without the owner marker), in the order they run. */
  const refs = async () => (await context.client.rulesets.getEntrypoint({ zoneId, phase })).rules.map((rule) => splitMarked(rule.ref).own);

  beforeAll(async () => {
    zoneId = context.zone('business');
    security = await projectStack(context.sandbox, path.join(examples, 'rules-per-team'), 'security', { zoneId, team: 'security' });
    api = await projectStack(context.sandbox, path.join(examples, 'rules-per-team'), 'api', { zoneId, team: 'api' });
  });

  test('two stacks of one program each create their rules in one zone, in the declared order, beside a rule made by hand; second previews show no change', async () => {
    expect((await security.up({ color: 'never' })).summary.resourceChanges).toEqual({ create: 4 }); // the stack, its owner id, two rules
    const { id: rulesetId } = await context.client.rulesets.getEntrypoint({ zoneId, phase });
    await context.client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'by-hand' } });
    expect((await api.up({ color: 'never' })).summary.resourceChanges).toEqual({ create: 4 });
    expect(await refs()).toEqual(['office', 'admin', 'api-bots', 'by-hand']);
    expect((await context.client.rulesets.getEntrypoint({ zoneId, phase: 'http_ratelimit' })).rules.map((rule) => splitMarked(rule.ref).own)).toEqual(['api-login']);
    await security.preview({ expectNoChanges: true, color: 'never' });
    await api.preview({ expectNoChanges: true, color: 'never' });
  });

  test("each stack's destroy removes its own rules only", async () => {
    await api.destroy({ color: 'never' });
    expect(await refs()).toEqual(['office', 'admin', 'by-hand']);
    await security.preview({ expectNoChanges: true, color: 'never' });
    await security.destroy({ color: 'never' });
    expect(await refs()).toEqual(['by-hand']);
  });
});

describe('examples/ci-preview', () => {
  const context = withSandbox('example-ci');
  let stack: Stack;
  let zoneId: string;

  beforeAll(async () => {
    zoneId = context.zone('enterprise');
    stack = await projectStack(context.sandbox, path.join(examples, 'ci-preview'), 'ci', {
      zoneId,
      shopHost: 'shop.acme-bank.example',
      blockedUserAgents: ['sqlmap'],
    });
  });

  test('up deploys; the outputs summarize the observed CSP and the WAF migration plan; a second preview shows no change', async () => {
    const up = await stack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toEqual({ create: 4 }); // with the stack's owner id
    const shopCsp = up.outputs.shopCsp!.value as { policyId: string; value: string; leftOut: string[] };
    expect(shopCsp.value).toMatch(/^script-src 'self' https:\/\//);
    expect(shopCsp.leftOut.length).toBeGreaterThan(0);
    for (const line of shopCsp.leftOut) expect(line).toMatch(/^https?:\/\/\S+ \((score|domain|url|invalid-url)(, (score|domain|url|invalid-url))*\)$/);
    expect(await context.client.cspPolicies.get({ zoneId, policyId: shopCsp.policyId })).toMatchObject({ value: shopCsp.value });
    expect(up.outputs.wafMigration!.value).toMatchObject({ compatible: true, migrationState: 'start', problems: [] });
    expect((up.outputs.wafMigration!.value as { changed: string[] }).changed.length).toBeGreaterThan(0);
    expect(await context.client.firewallRules.get({ zoneId, ruleId: up.outputs.scannerRuleId!.value as string })).toMatchObject({
      action: 'block',
      filter: { expression: 'http.user_agent contains "sqlmap"' },
    });
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  /**
   * Runs examples/ci-preview/ci.sh itself, as a CI job does: from the stack's folder, with the stack's backend and
   * passphrase in the environment and `zoneguard` installed in the folder's node_modules/.bin. The program is served
   * by this process (inline-host.ts), reached through the flags ci.sh passes on to pulumi.
   */
  async function runCiScript(mode: string, extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; summary: string }> {
    const workDir = stack.workspace.workDir;
    const bin = path.join(workDir, 'node_modules', '.bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'zoneguard'), `#!/bin/sh\nexec node ${JSON.stringify(path.resolve(examples, '../dist/cli/index.js'))} "$@"\n`, { mode: 0o755 });
    const summary = path.join(workDir, 'step-summary.md');
    fs.writeFileSync(summary, '');
    const served = await serveProgram(inlineProgram(path.join(examples, 'ci-preview', 'index.ts')));
    const env = { ...process.env, ...stack.workspace.envVars, GITHUB_STEP_SUMMARY: summary, PREVIEW_JSON: path.join(workDir, `preview-${mode}.json`), PULUMI_STACK: '', ...extraEnv };
    delete (env as Record<string, string | undefined>).PULUMI_STACK; // the script's default stack, `ci`
    const result = await promisify(execFile)('bash', [path.join(examples, 'ci-preview', 'ci.sh'), mode, ...served.flags], { cwd: workDir, env, encoding: 'utf8' }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    served.close(result.code !== 0);
    return { ...result, summary: fs.readFileSync(summary, 'utf8') };
  }

  test("ci.sh pr prints the reviewer's Markdown report: per zone the changes, CSP sources gained and lost, the firewall rule, the WAF plan", async () => {
    await stack.setAllConfig({
      'ci-preview:blockedUserAgents': { value: JSON.stringify(['sqlmap', 'nikto']) },
      'ci-preview:shopHost': { value: 'login.acme-bank.example' },
    });
    try {
      const { code, stdout, summary } = await runCiScript('pr');
      expect(code).toBe(0);
      expect(summary).toBe(stdout);
      fs.writeFileSync(path.join(context.sandbox.dir, 'ci-report-pr.md'), stdout);
      const lines = stdout.split('\n');
      expect(lines[0]).toBe('### Pulumi preview of stack `ci`: 1 to update, 1 to replace');
      expect(lines).toContain(`**Zone \`${zoneId}\`**`);
      expect(lines).toContain('| update | CspPolicy `shop-observed-scripts` | description, expression, value |');
      expect(lines).toContain('| replace | FirewallRuleWithFilter `block-scanners` | expression |');
      expect(stdout).toMatch(/^- CSP policy `shop-observed-scripts`, script-src: gains `https:\/\/\S+`(, `https:\/\/\S+`)*; loses `https:\/\/\S+`/m);
      expect(lines).toContain(
        '- FirewallRuleWithFilter `block-scanners` replaced: expression `http.user_agent contains "sqlmap"` → `http.user_agent contains "sqlmap" or http.user_agent contains "nikto"`',
      );
      expect(lines).toContain('**WAF migration plan** (stack output `wafMigration`): compatible, state `start`');
      expect(stdout).toMatch(/^- changes: \S/m);
      expect(stdout).not.toContain(PREVIEW_UNKNOWN);
      // A preview changes nothing on the zone.
      expect(await context.client.firewallRules.get({ zoneId, ruleId: (await valueOf(stack, 'scannerRuleId')) as string })).toMatchObject({
        filter: { expression: 'http.user_agent contains "sqlmap"' },
      });
    } finally {
      await stack.setAllConfig({
        'ci-preview:blockedUserAgents': { value: JSON.stringify(['sqlmap']) },
        'ci-preview:shopHost': { value: 'shop.acme-bank.example' },
      });
    }
  });

  test('ci.sh pr on a bad input fails, and its report names the resource and the field in one line', async () => {
    await stack.setConfig('ci-preview:blockedUserAgents', { value: JSON.stringify(['sqlmap', 'bad"agent']) });
    try {
      const { code, stdout } = await runCiScript('pr');
      expect(code).not.toBe(0);
      fs.writeFileSync(path.join(context.sandbox.dir, 'ci-report-failed.md'), stdout);
      const failed = stdout.split('\n').filter((line) => line.startsWith('- FirewallRuleWithFilter `block-scanners`: '));
      expect(stdout.split('\n')[0]).toBe('### Pulumi preview of stack `ci`: failed');
      expect(failed).toEqual([
        '- FirewallRuleWithFilter `block-scanners`: FirewallRuleWithFilter.expression: line 1, column 68: expected an operator or end of input after string "bad", found "agent"',
      ]);
    } finally {
      await stack.setConfig('ci-preview:blockedUserAgents', { value: JSON.stringify(['sqlmap']) });
    }
  });

  test('ci.sh pr keeps the seal beside the report; ci.sh deploy with it refuses a policy edited in the dashboard since, naming the edit', async () => {
    const seal = path.join(stack.workspace.workDir, 'zoneguard-seal.json');
    await stack.setConfig('ci-preview:shopHost', { value: 'login.acme-bank.example' });
    try {
      const pr = await runCiScript('pr', { SEAL_FILE: seal });
      expect(pr.code).toBe(0);
      expect(pr.stdout).toContain('| update | CspPolicy `shop-observed-scripts` | description, expression, value |');
      const sealed = JSON.parse(fs.readFileSync(seal, 'utf8')) as { stack: string; resources: Array<{ kind: string; op: string }> };
      expect(sealed.stack).toBe('ci');
      expect(sealed.resources.map(({ kind, op }) => `${op} ${kind}`)).toEqual(['update CspPolicy']);
      // An incident responder turns the policy off in the dashboard after the review.
      const policyId = ((await valueOf(stack, 'shopCsp')) as { policyId: string }).policyId;
      await context.client.cspPolicies.update({ zoneId, policyId, enabled: false });

      const deploy = await runCiScript('deploy', { SEAL_FILE: seal });
      fs.writeFileSync(path.join(context.sandbox.dir, 'ci-deploy-refused.txt'), `${deploy.stdout}${deploy.stderr}`);
      expect(deploy.code).not.toBe(0);
      expect(`${deploy.stdout}${deploy.stderr}`).toContain(
        `CspPolicy 'shop-observed-scripts' ${policyId} in zone ${zoneId}: changed on the service since the sealed preview: enabled true → false; ` +
          'nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up',
      );
      // The policy stays as the dashboard left it.
      expect(await context.client.cspPolicies.get({ zoneId, policyId })).toMatchObject({ enabled: false, expression: 'http.host eq "shop.acme-bank.example"' });
    } finally {
      await stack.setConfig('ci-preview:shopHost', { value: 'shop.acme-bank.example' });
      // The policy as the program declares it again: the refresh finds it disabled, the up enables it.
      await stack.up({ refresh: true, color: 'never' });
    }
  });

  test("ci.sh deploy with an older preview's seal (another deploy ran since) stops in the up's own preview, before any write", async () => {
    const seal = path.join(stack.workspace.workDir, 'zoneguard-seal-older.json');
    const agents = (list: string[]) => stack.setConfig('ci-preview:blockedUserAgents', { value: JSON.stringify(list) });
    try {
      await agents(['sqlmap', 'nikto']);
      expect((await runCiScript('pr', { SEAL_FILE: seal })).code).toBe(0);
      // Another pull request is deployed first.
      await agents(['sqlmap', 'curl']);
      await stack.up({ color: 'never' });
      await agents(['sqlmap', 'nikto']);
      await context.sandbox.emulator.admin.clearRequests();

      const deploy = await runCiScript('deploy', { SEAL_FILE: seal });
      expect(deploy.code).not.toBe(0);
      const ruleId = (await valueOf(stack, 'scannerRuleId')) as string;
      expect(`${deploy.stdout}${deploy.stderr}`).toContain(
        `FirewallRuleWithFilter 'block-scanners' ${ruleId} in zone ${zoneId}: the stack's state of it changed since the sealed preview (an up ran after it, so the seal is of an older preview): ` +
          'expression "http.user_agent contains \\"sqlmap\\"" → "http.user_agent contains \\"sqlmap\\" or http.user_agent contains \\"curl\\""',
      );
      expect((await context.sandbox.emulator.admin.requests()).filter((request) => request.method !== 'GET')).toEqual([]);
    } finally {
      await agents(['sqlmap']);
      await stack.up({ color: 'never' });
    }
  });

  test('drift made in the dashboard fails the refreshing preview that expects no changes', async () => {
    const policyId = ((await valueOf(stack, 'shopCsp')) as { policyId: string }).policyId;
    await stack.preview({ refresh: true, expectNoChanges: true, color: 'never' });
    await context.client.cspPolicies.update({ zoneId, policyId, enabled: false });
    const text = await engineFailure((onOutput) => stack.preview({ refresh: true, expectNoChanges: true, diff: true, color: 'never', onOutput }));
    expect(text).toMatch(/~ enabled\s*:\s*false => true/);
    expect(text).toContain('no changes were expected for preview but changes were proposed');
  });
});

/** The body of a README section (`## <heading>` to the next `## `), and its first fenced block in a language. */
function readmeBlock(heading: string, language: string): string {
  const section = fs.readFileSync(path.resolve(examples, '../README.md'), 'utf8').split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  const block = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'm').exec(section)?.[1];
  if (block === undefined) throw new Error(`README.md: no ${language} block under "## ${heading}"`);
  return block;
}

describe("the README's first stack, with the zone and token of its Configure section", () => {
  const context = withSandbox('readme-first-stack');
  let stack: Stack;
  let zoneId: string;

  beforeAll(async () => {
    // The README's program text, unchanged, as the index.ts of a project of its own.
    const folder = path.join(context.sandbox.dir, 'readme-first-stack-project');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'Pulumi.yaml'), 'name: first-stack\nruntime: nodejs\n');
    fs.writeFileSync(path.join(folder, 'index.ts'), readmeBlock('A first stack', 'ts'));
    const configure = readmeBlock('Configure', 'sh');
    zoneId = /^pulumi config set zoneId (\S+)$/m.exec(configure)![1]!;
    const token = /^pulumi config set --secret zoneguard:apiToken (\S+)$/m.exec(configure)![1]!;
    // The emulator the README starts (`npx zoneguard emulator`: the demo seed) prints that token and zone.
    const banner = describeEmulator(context.sandbox.emulator, undefined, context.sandbox.emulator.credentials.zoneTokens);
    expect(banner).toContain(`API token  ${token} `);
    expect(banner).toMatch(new RegExp(`^  ${zoneId} `, 'm'));
    stack = await projectStack(context.sandbox, folder, 'dev', { zoneId });
  });

  test('the first up creates its three resources; a second preview shows no change; destroy leaves the zone as seeded', async () => {
    const seeded = (await context.sandbox.emulator.admin.inventory(zoneId)).counts;
    const up = await stack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toEqual({ create: 5 }); // the stack, its owner id and the three resources
    expect((await context.client.pageGuard.get({ zoneId })).enabled).toBe(true);
    expect((await context.sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject({
      cspPolicies: seeded.cspPolicies + 1,
      firewallRules: seeded.firewallRules + 1,
      filters: seeded.filters + 1,
    });
    await stack.preview({ expectNoChanges: true, color: 'never' });
    await stack.destroy({ color: 'never' });
    expect((await context.sandbox.emulator.admin.inventory(zoneId)).counts).toMatchObject(seeded);
  });
});

describe("the README's GitHub Actions job, in a copy of examples/ci-preview with the packed package", () => {
  const context = withSandbox('readme-ci-job');
  let folder: string;
  let env: NodeJS.ProcessEnv;
  let zoneId: string;
  const sh = (command: string, extra: NodeJS.ProcessEnv = {}) =>
    promisify(execFile)('bash', ['-c', command], { cwd: folder, env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

  beforeAll(async () => {
    zoneId = context.zone('enterprise');
    // The stack's folder, outside this repo (nothing of its node_modules resolves), with the tarball the README has
    // a user put there until the package is published.
    folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-ci-job-')));
    fs.cpSync(path.join(examples, 'ci-preview'), folder, { recursive: true });
    // Without the package's `prepare` (a rebuild of dist/, which another engine suite of the same run may be reading): the
    // run builds dist/ first.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', folder], {
      cwd: path.resolve(examples, '..'),
      encoding: 'utf8',
    });
    expect(stdout.trim().split('\n').pop()).toBe('pulumi-zoneguard-0.1.0.tgz');
    // The job's backend and the stack's one-time config (ci.sh's header), with the real CLI.
    env = {
      ...process.env,
      PULUMI_HOME: path.join(context.sandbox.dir, 'home'),
      PULUMI_BACKEND_URL: `file://${path.join(context.sandbox.dir, 'state')}`,
      PULUMI_CONFIG_PASSPHRASE: 'ci',
    };
    delete env.NODE_PATH;
    delete env.PULUMI_STACK;
    await sh(
      [
        'pulumi stack init ci --non-interactive',
        `pulumi config set zoneId ${zoneId}`,
        'pulumi config set shopHost shop.acme-bank.example',
        "pulumi config set --path 'blockedUserAgents[0]' sqlmap",
        `pulumi config set zoneguard:baseUrl ${context.sandbox.emulator.baseUrl}`,
        `pulumi config set --secret zoneguard:apiToken ${context.sandbox.emulator.credentials.apiToken}`,
      ].join(' && '),
    );
  });

  afterAll(() => {
    if (folder && !process.env.ZONEGUARD_KEEP_E2E) fs.rmSync(folder, { recursive: true, force: true });
  });

  test("its run step (npm ci, then ci.sh pr) installs from the folder's lockfile and prints the reviewer's report", async () => {
    const job = readmeBlock('Jobs', 'yaml');
    const steps = [...job.matchAll(/^ {6}- run: (.+)$/gm)].map((match) => match[1]!);
    expect(steps).toEqual(['npm ci && ./ci.sh pr']);
    // Minus the runner: its Pulumi CLI runs the program with Pulumi's Node.js language host, which this repository
    // cannot build; a `pulumi` first on PATH hands the preview the program served from this process (inline-host.ts).
    const served = await serveProgram(inlineProgram(path.join(folder, 'index.ts')));
    const bin = path.join(context.sandbox.dir, 'runner-bin');
    fs.mkdirSync(bin, { recursive: true });
    const real = (await sh('command -v pulumi')).stdout.trim();
    fs.writeFileSync(path.join(bin, 'pulumi'), `#!/bin/sh\nexec ${real} "$@" ${served.flags.join(' ')}\n`, { mode: 0o755 });
    const summary = path.join(context.sandbox.dir, 'step-summary.md');
    fs.writeFileSync(summary, '');
    const result = await sh(steps[0]!, { PATH: `${bin}:${env.PATH}`, GITHUB_STEP_SUMMARY: summary }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: `${error.stdout}\n${error.stderr}` }),
    );
    served.close(result.code !== 0);
    expect(result.code).toBe(0);
    // npm ci installed the tarball: a real copy, with its zoneguard command.
    expect(fs.lstatSync(path.join(folder, 'node_modules', 'pulumi-zoneguard')).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(folder, 'node_modules', '.bin', 'zoneguard'))).toBe(true);
    const report = result.stdout.slice(result.stdout.indexOf('### Pulumi preview of stack `ci`'));
    expect(report.split('\n')[0]).toBe('### Pulumi preview of stack `ci`: 4 to create'); // with the stack's owner id
    expect(report).toContain(`**Zone \`${zoneId}\`**`);
    expect(fs.readFileSync(summary, 'utf8')).toBe(report);
  });
});
