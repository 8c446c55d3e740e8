import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import type { Deployment, EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { RESOURCE_KINDS, typeToken, type ResourceKind } from '../../src/kinds';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { WafManagedRules } from '../../src/resources/waf-managed-rules';
import { MANAGED_RULESET_ID, WafMigration } from '../../src/resources/waf-migration';
import { ownerMarker } from '../../src/kinds/marker';
import { STACK_OWNER_TYPE } from '../../src/kinds';
import { STACK_OWNER_NAME } from '../../src/resources/stack-owner';
import { openSandbox, type EngineSandbox } from './harness';

// No change for existing stacks: a stack made by the package of e8e93dd (one resource of each kind, through the real
// engine; fixtures/upgrade-e8e93dd/README.md says how) is imported into a fresh stack of this build, against the
// emulator on the state that run left. A preview of the same program written against the current API shows every
// step `same` and sends no request; a refresh changes nothing, and a preview after it is clean too.
jest.setTimeout(300_000);

const FIXTURE = path.join(__dirname, 'fixtures', 'upgrade-e8e93dd');
/** The fixture's zone, project and stack: the URNs in its deployment name them. */
const ZONE_ID = '5e7a3c2b1d0f49e8a6b5c4d3e2f1a0b9';
const STACK = 'upgrade';
const PROJECT = 'zoneguard-e2e-upgrade';

/** The fixture's credential placeholders (README.md). */
const CREDENTIALS = ['<api-token>', '<api-key>', '<zone-token>'] as const;

/** fixtures/upgrade-e8e93dd/program.js, written against the current API. */
async function program(): Promise<Record<string, unknown>> {
  const zoneId = new pulumi.Config().require('zoneId');
  new PageGuardSettings('settings', { zoneId, enabled: true, useConnectionUrlPath: true });
  new CspPolicy('policy', {
    zoneId,
    action: 'log',
    expression: 'http.host eq "shop.upgrade.example"',
    value: "script-src 'self' https://js.stripe.com",
    description: 'upgrade: checkout scripts',
  });
  new FirewallRuleWithFilter('scanners', { zoneId, expression: '(http.user_agent contains "sqlmap")', action: 'block', description: 'upgrade: scanners' });
  const admin = new FirewallFilter('admin', { zoneId, expression: '(http.request.uri.path eq "/admin")', ref: 'upgrade-admin' });
  new FirewallRule('admin', { zoneId, filterId: admin.filterId, action: 'managed_challenge', priority: 10 });
  const migration = new WafMigration('migration', { zoneId, mode: 'direct', wait: { timeoutSeconds: 30, pollIntervalSeconds: 0.1 } });
  new WafManagedRules('managed', { zoneId, rules: [{ ref: 'managed', execute: { rulesetId: MANAGED_RULESET_ID } }] }, { dependsOn: [migration] });
  return {};
}

const fixtureText = (file: string) => fs.readFileSync(path.join(FIXTURE, file), 'utf8');
/** `text` with each placeholder replaced by its value. */
const filled = (text: string, values: Record<string, string>) => Object.entries(values).reduce((out, [placeholder, value]) => out.split(placeholder).join(value), text);

let sandbox: EngineSandbox;
let stack: Stack;
let scratch: string;

/** Every step of an engine run (preview or refresh), as `op type name`, and its change summary. */
async function steps(run: (onEvent: (event: EngineEvent) => void) => Promise<Record<string, number> | undefined>): Promise<{ ops: string[]; summary: Record<string, number> | undefined }> {
  const ops: string[] = [];
  const summary = await run((event) => {
    const step = event.resourcePreEvent?.metadata;
    if (step && step.type !== 'pulumi:pulumi:Stack') ops.push(`${step.op} ${step.type} ${step.urn.split('::').pop()}`);
  });
  return { ops: ops.sort(), summary };
}

/** The program's resources, by name and kind. */
const DECLARED: Array<[name: string, kind: ResourceKind]> = [
  ['settings', 'PageGuardSettings'],
  ['policy', 'CspPolicy'],
  ['scanners', 'FirewallRuleWithFilter'],
  ['admin', 'FirewallFilter'],
  ['admin', 'FirewallRule'],
  ['migration', 'WafMigration'],
  ['managed', 'WafManagedRules'],
];

/** The kinds whose objects carry an owner marker: their objects, made before markers, get it on the next up. */
const MARKED: ResourceKind[] = ['CspPolicy', 'FirewallRuleWithFilter', 'FirewallFilter', 'FirewallRule', 'WafManagedRules'];
/** The resource that keeps the stack's owner id (docs/ownership.md#owner-id): a stack that old has none, its first up draws it. */
const OWNER = `${STACK_OWNER_TYPE} ${STACK_OWNER_NAME}`;
/**
 * What a preview shows: the owner id's resource created, every resource of the program `same` but the marked kinds'
 * `update`, and the default provider `same`.
 */
const FIRST_PREVIEW = [
  `create ${OWNER}`,
  ...DECLARED.map(([name, kind]) => `${MARKED.includes(kind) ? 'update' : 'same'} ${typeToken(kind)} ${name}`),
  'same pulumi:providers:pulumi-nodejs default',
].sort();
const FIRST_SUMMARY = { create: 1, same: DECLARED.length + 1 - MARKED.length, update: MARKED.length };
/** What a clean preview shows: every resource of the program `same`, and the default provider too (its config unchanged). */
const ALL_SAME = [...DECLARED.map(([name, kind]) => `same ${typeToken(kind)} ${name}`), `same ${OWNER}`, 'same pulumi:providers:pulumi-nodejs default'].sort();
/** The change summary of a clean run: the resources, the owner id's and the stack, all the same. */
const SUMMARY = { same: DECLARED.length + 2 };
/** What a refresh before the first up visits: the fixture's resources (the owner id's is not in the state yet). */
const REFRESHED = [...DECLARED.map(([name, kind]) => `refresh ${typeToken(kind)} ${name}`), 'refresh pulumi:providers:pulumi-nodejs default'].sort();
const preview = () => steps(async (onEvent) => (await stack.preview({ color: 'never', onEvent })).changeSummary as Record<string, number>);

/** Asserts that a preview shows these steps and this summary, and sends no request. */
async function previewShows(ops: string[], summary: Record<string, number>): Promise<void> {
  await sandbox.emulator.admin.clearRequests();
  const seen = await preview();
  expect(seen.ops).toEqual(ops);
  expect(seen.summary).toEqual(summary);
  expect(await sandbox.emulator.admin.requests()).toEqual([]);
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-upgrade-'));
  // Fresh credentials in place of the placeholders; the stack's default provider recorded the token and the base URL
  // (its config), so the deployment gets the same token and this emulator's address.
  const credentials = Object.fromEntries(CREDENTIALS.map((placeholder) => [placeholder, `upgrade-${randomBytes(16).toString('hex')}`]));
  const statePath = path.join(scratch, 'emulator-state.json');
  fs.writeFileSync(statePath, filled(fixtureText('emulator-state.json'), credentials), { mode: 0o600 });
  sandbox = await openSandbox('upgrade', { statePath });
  stack = await sandbox.stack(STACK, program, { [`${PROJECT}:zoneId`]: { value: ZONE_ID } });
  const deployment = filled(fixtureText('stack.json'), { '<api-token>': credentials['<api-token>']!, '<base-url>': sandbox.emulator.baseUrl });
  await stack.importStack(JSON.parse(deployment) as Deployment);
});

afterAll(async () => {
  await sandbox?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test('the fixture holds one resource of each kind of e8e93dd, and no credential but placeholders', () => {
  const deployment = JSON.parse(fixtureText('stack.json')) as Deployment;
  const types = ((deployment.deployment.resources ?? []) as Array<{ type: string }>).map((resource) => resource.type);
  // The kinds of e8e93dd, each still of the registry; a kind added since has no resource in a stack that old.
  expect(types.filter((type) => type.includes('/zoneguard:')).sort()).toEqual(DECLARED.map(([, kind]) => typeToken(kind)).sort());
  expect(DECLARED.filter(([, kind]) => !RESOURCE_KINDS.includes(kind))).toEqual([]);
  const state = JSON.parse(fixtureText('emulator-state.json')) as {
    credentials: { apiTokens: string[]; apiKey: string };
    zones: Array<{ tokens: string[] }>;
  };
  const secrets = [...state.credentials.apiTokens, state.credentials.apiKey, ...state.zones.flatMap((zone) => zone.tokens)];
  expect([...new Set(secrets)].sort()).toEqual([...CREDENTIALS].sort());
  // The stack's default provider records its config, the token included: the placeholder there too, and no other.
  const provider = ((deployment.deployment.resources ?? []) as Array<{ type: string; inputs: Record<string, unknown> }>).find((r) => r.type === 'pulumi:providers:pulumi-nodejs');
  expect(provider?.inputs['zoneguard:apiToken']).toMatchObject({ plaintext: JSON.stringify('<api-token>') });
  expect(provider?.inputs['zoneguard:baseUrl']).toBe('<base-url>');
  for (const placeholder of ['<api-key>', '<zone-token>']) expect(fixtureText('stack.json')).not.toContain(placeholder);
});

test('a preview with this build shows one update per object without an owner marker, the rest the same, and sends no request', async () => {
  await previewShows(FIRST_PREVIEW, FIRST_SUMMARY);
});

test('a refresh changes nothing and writes no marker; the preview after it still shows the same updates', async () => {
  const refresh = await steps(async (onEvent) => (await stack.refresh({ color: 'never', onEvent })).summary.resourceChanges as Record<string, number>);
  expect(refresh.ops).toEqual(REFRESHED);
  expect(refresh.summary).toEqual({ same: DECLARED.length + 1 });
  expect((await sandbox.emulator.admin.requests()).filter((request) => request.method !== 'GET')).toEqual([]);
  await previewShows(FIRST_PREVIEW, FIRST_SUMMARY);
});

test("the next up writes each marker (one write per unmarked object, the user's text kept), and the preview after it is clean and sends no request", async () => {
  await sandbox.emulator.admin.clearRequests();
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toEqual(FIRST_SUMMARY);
  const written = (await sandbox.emulator.admin.requests()).filter((request) => request.method !== 'GET').map((request) => request.method);
  expect(written).toEqual(MARKED.map(() => 'PUT'));
  const inventory = await sandbox.emulator.admin.inventory(ZONE_ID);
  const marker = /^zg:[0-9a-f]{10}$/;
  // The marker is the one of the owner id the up drew, recorded in the state.
  const resources = ((await stack.exportStack()).deployment.resources ?? []) as Array<{ type: string; outputs?: Record<string, unknown> }>;
  const ownerId = resources.find((resource) => resource.type === STACK_OWNER_TYPE)?.outputs?.ownerId as string;
  expect(ownerId).toMatch(/^[0-9a-f]{16}$/);
  const policyMarker = ownerMarker({ ownerId, project: PROJECT, stack: STACK, parent: '', kind: 'CspPolicy', name: 'policy' });
  expect(inventory.cspPolicies.map((policy) => policy.description)).toEqual([`upgrade: checkout scripts ${policyMarker}`]);
  expect(inventory.filters.map((filter) => filter.ref).sort()).toEqual([expect.stringMatching(/^upgrade-admin zg:[0-9a-f]{10}$/), undefined].sort());
  expect(inventory.firewallRules.map((rule) => rule.ref)).toEqual([expect.stringMatching(marker), expect.stringMatching(marker)]);
  await previewShows(ALL_SAME, SUMMARY);
});
