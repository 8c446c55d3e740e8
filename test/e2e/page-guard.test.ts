import { ZoneGuardClient } from '../../src/client';
import { CspPolicy } from '../../src/resources/csp-policy';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { expectNoCredentialAndSmallProviders, openSandbox, type EngineSandbox } from './harness';
import type { Stack } from '@pulumi/pulumi/automation';
import { testClient, zoneOfPlan } from '../support/emulator';

// The real engine against the emulator: pulumi up, preview --diff, refresh and destroy of PageGuardSettings and
// CspPolicy, driven through the Automation API.
jest.setTimeout(180_000);

let sandbox: EngineSandbox;
let stack: Stack;
let client: ZoneGuardClient;
let zoneId: string;
let otherZoneId: string;

// The program reads this object, so each step of a test declares a new desired state.
const desired = {
  enabled: true,
  zone: '',
  policy: { action: 'log' as 'log' | 'allow', description: 'observed shop scripts', value: "script-src 'self' https://cdn.example.com" },
};

beforeAll(async () => {
  sandbox = await openSandbox('page-guard');
  zoneId = zoneOfPlan(sandbox.emulator, 'enterprise');
  otherZoneId = zoneOfPlan(sandbox.emulator, 'business');
  desired.zone = zoneId;
  client = testClient(sandbox.emulator);
  stack = await sandbox.stack('dev', async () => {
    const settings = new PageGuardSettings('settings', { zoneId: desired.zone, enabled: desired.enabled });
    const policy = new CspPolicy('shop', {
      zoneId: desired.zone,
      action: desired.policy.action,
      expression: 'http.host eq "shop.example.com"',
      value: desired.policy.value,
      description: desired.policy.description,
    });
    return { policyId: policy.policyId, previous: settings.previous };
  });
});
afterAll(() => sandbox?.close());

async function previewText(): Promise<{ text: string; summary: Record<string, number> }> {
  let text = '';
  const result = await stack.preview({ diff: true, color: 'never', onOutput: (out) => (text += out) });
  return { text, summary: result.changeSummary as Record<string, number> };
}

test('up creates both; a second preview shows no change', async () => {
  const original = await client.pageGuard.get({ zoneId });
  const up = await stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toMatchObject({ create: 4 }); // with the stack's owner id
  const policyId = up.outputs.policyId!.value as string;
  expect(await client.cspPolicies.get({ zoneId, policyId })).toMatchObject({ action: 'log', description: expect.stringMatching(/^observed shop scripts zg:[0-9a-f]{10}$/) });
  expect(up.outputs.previous!.value).toMatchObject({ enabled: original.enabled });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the state holds no credential and small providers', async () => {
  // The token reaches the provider through the stack config, as a secret: encrypted in the state, never in clear.
  expect(await expectNoCredentialAndSmallProviders(sandbox, stack)).toEqual([
    'pulumi-nodejs:dynamic/zoneguard:CspPolicy',
    'pulumi-nodejs:dynamic/zoneguard:PageGuardSettings',
    'pulumi-nodejs:dynamic/zoneguard:StackOwner',
  ]);
});

test('a changed field shows exactly that change, and up applies it', async () => {
  desired.policy.description = 'all shop scripts';
  const { text, summary } = await previewText();
  expect(summary).toMatchObject({ update: 1, same: 3 }); // with the stack's owner id
  expect(text).toMatch(/~ description\s*:\s*"observed shop scripts" => "all shop scripts"/);
  expect(text).not.toMatch(/~ (value|action|expression|enabled)/);
  await stack.up({ color: 'never' });
  const { policyId } = await stack.outputs();
  expect(await client.cspPolicies.get({ zoneId, policyId: policyId!.value as string })).toMatchObject({ description: expect.stringMatching(/^all shop scripts zg:[0-9a-f]{10}$/) });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('an out-of-band change is found by refresh and undone by up', async () => {
  const { policyId } = await stack.outputs();
  await client.cspPolicies.update({ zoneId, policyId: policyId!.value as string, action: 'allow' });
  await client.pageGuard.update({ zoneId, enabled: false });
  await stack.refresh({ color: 'never' });
  const { summary, text } = await previewText();
  expect(summary).toMatchObject({ update: 2 });
  expect(text).toMatch(/~ action\s*:\s*"allow" => "log"/);
  await stack.up({ color: 'never' });
  expect(await client.cspPolicies.get({ zoneId, policyId: policyId!.value as string })).toMatchObject({ action: 'log' });
  expect((await client.pageGuard.get({ zoneId })).enabled).toBe(true);
  await stack.refresh({ color: 'never' });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('another zone replaces, and destroy restores the settings and removes the policy', async () => {
  const before = await client.pageGuard.get({ zoneId: otherZoneId });
  desired.zone = otherZoneId;
  const { summary } = await previewText();
  expect(summary).toMatchObject({ replace: 2 });
  await stack.up({ color: 'never' });
  const { policyId } = await stack.outputs();
  expect(await client.cspPolicies.get({ zoneId: otherZoneId, policyId: policyId!.value as string })).toMatchObject({ action: 'log' });

  await stack.destroy({ color: 'never' });
  await expect(client.cspPolicies.get({ zoneId: otherZoneId, policyId: policyId!.value as string })).rejects.toThrow(/404/);
  expect((await client.pageGuard.get({ zoneId: otherZoneId })).enabled).toBe(before.enabled);
});
