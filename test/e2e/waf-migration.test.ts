import { ZoneGuardClient } from '../../src/client';
import { OWASP_RULESET_ID, WafMigration, type WafMigrationAdjustments } from '../../src/resources/waf-migration';
import { engineFailure, expectNoCredentialAndSmallProviders, openSandbox, previewDiff, type EngineSandbox } from './harness';
import type { Stack } from '@pulumi/pulumi/automation';
import type { ZoneSeed } from '../../src/emulator';
import { testClient } from '../support/emulator';

// The real engine against the emulator's demo zones: the WAF migration on a Pro zone (direct), on the Enterprise zone
// (validation, then finalized), on the Business zone (incompatible until its URI-based override is deleted), and
// every refusal, asserted from what the engine prints.
jest.setTimeout(180_000);

const TYPE = 'pulumi-nodejs:dynamic/zoneguard:WafMigration';
// The emulator migrates at once (migrationDelayMs 0): a short poll keeps each run quick.
const wait = { timeoutSeconds: 60, pollIntervalSeconds: 1 };

let sandbox: EngineSandbox;
let client: ZoneGuardClient;
const zones = { free: '', pro: '', business: '', enterprise: '' };

// The programs read these objects, so each step of a test declares a new desired state.
const store = {
  zoneId: '',
  mode: 'validation' as 'direct' | 'validation',
  protect: undefined as boolean | undefined,
  retainOnDelete: undefined as boolean | undefined,
};
const bank = {
  mode: 'validation' as 'direct' | 'validation',
  adjustments: {
    rules: [{ rulesetId: OWASP_RULESET_ID, ruleId: '6179ae15870a4bb7b2d480d4843b323c', action: 'block', scoreThreshold: 40 }],
  } as WafMigrationAdjustments,
};

let storeStack: Stack;
let bankStack: Stack;
let mediaStack: Stack;

beforeAll(async () => {
  sandbox = await openSandbox('waf-migration');
  for (const zone of sandbox.emulator.zones) zones[zone.plan] = zone.id;
  store.zoneId = zones.pro;
  client = testClient(sandbox.emulator);
  const outputsOf = (migration: WafMigration) => ({
    migrationState: migration.migrationState,
    previousWafStatus: migration.previousWafStatus,
    newWafStatus: migration.newWafStatus,
    submittedRuleset: migration.submittedRuleset,
    conversion: migration.conversion,
  });
  storeStack = await sandbox.stack('store', async () => {
    const { zoneId, mode, protect, retainOnDelete } = store;
    return outputsOf(new WafMigration('store-waf', { zoneId, mode, wait }, { protect, retainOnDelete }));
  });
  bankStack = await sandbox.stack('bank', async () =>
    outputsOf(new WafMigration('bank-waf', { zoneId: zones.enterprise, mode: bank.mode, adjustments: bank.adjustments, wait })),
  );
  mediaStack = await sandbox.stack('media', async () => outputsOf(new WafMigration('media-waf', { zoneId: zones.business, mode: 'direct', wait })));
});
afterAll(() => sandbox?.close());

const status = (zoneId: string) => client.wafMigration.status({ zoneId });

async function migrationsIn(stack: Stack): Promise<Array<{ urn: string; protect?: boolean; retainOnDelete?: boolean }>> {
  const deployment = (await stack.exportStack()).deployment as { resources?: Array<{ type: string; urn: string; protect?: boolean }> };
  return (deployment.resources ?? []).filter((r) => r.type === TYPE);
}

/** The entry point submissions the emulator saw, as `waf_migration` mode per PUT. */
async function submissions(zoneId: string): Promise<string[]> {
  return (await sandbox.emulator.admin.requests())
    .filter((r) => r.method === 'PUT' && r.path.endsWith(`/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`))
    .map((r) => String(r.query.waf_migration));
}

describe('a Pro zone', () => {
  test('validation is refused with a clear message, and the zone is unchanged', async () => {
    const text = await engineFailure((onOutput) => storeStack.up({ color: 'never', onOutput }));
    expect(text).toContain(`WafMigration of zone ${zones.pro}: validation mode is available to Enterprise zones only`);
    expect(text).toContain("Nothing was changed. Pro and Business zones migrate directly: declare mode: 'direct'");
    expect(await status(zones.pro)).toMatchObject({ migration_state: 'start', old_waf_status: 'enabled', new_waf_status: 'disabled' });
    expect(await migrationsIn(storeStack)).toEqual([]);
  });

  test('direct: up migrates and waits, reporting progress; the outputs show the conversion; a second preview shows no change', async () => {
    store.mode = 'direct';
    await sandbox.emulator.admin.clearRequests();
    let log = '';
    const up = await storeStack.up({ color: 'never', onOutput: (out) => (log += out) });
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(log).toContain(`zoneguard: WafMigration zone ${zones.pro}: migration_state complete`);
    expect(await submissions(zones.pro)).toEqual(['pending']);
    expect(await status(zones.pro)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });

    const { migrationState, previousWafStatus, newWafStatus, submittedRuleset, conversion } = up.outputs;
    expect([migrationState!.value, previousWafStatus!.value, newWafStatus!.value]).toEqual(['complete', 'disabled', 'enabled']);
    expect(submittedRuleset!.value).toMatchObject({ rules: expect.arrayContaining([expect.objectContaining({ action: 'execute' })]) });
    expect(conversion!.value).toMatchObject({
      coreRuleSet: { sensitivity: 'medium', previousAction: 'simulate', action: 'log' },
      changed: expect.arrayContaining(['core rule set action simulate becomes log (the new ruleset has no simulate)']),
    });
    const [migration] = await migrationsIn(storeStack);
    expect(migration).toMatchObject({ protect: true });
    await storeStack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('the state holds no credential, and the serialized provider is at most 2 KB', async () => {
    expect(await expectNoCredentialAndSmallProviders(sandbox, storeStack)).toContain(TYPE);
  });

  test('another zoneId fails at preview, in check: the migration cannot be undone', async () => {
    store.zoneId = zones.free;
    try {
      const text = await engineFailure((onOutput) => storeStack.preview({ diff: true, color: 'never', onOutput }));
      // The engine's framing of a check failure: refused during the preview, before any create, update or delete.
      expect(text).toContain(`${TYPE} resource 'store-waf': property zoneId value {${zones.free}} has a problem:`);
      expect(text).toContain(`WafMigration.zoneId: this resource migrated zone ${zones.pro} and cannot move to zone ${zones.free}`);
      expect(text).toContain('a WAF migration cannot be undone');
      expect(text).toContain('retainOnDelete: true');
    } finally {
      store.zoneId = zones.pro;
    }
    expect(await status(zones.free)).toMatchObject({ migration_state: 'start' });
  });

  test('going back from direct to validation fails at preview', async () => {
    store.mode = 'validation';
    try {
      const text = await engineFailure((onOutput) => storeStack.preview({ diff: true, color: 'never', onOutput }));
      expect(text).toContain(`${TYPE} resource 'store-waf': property mode value {validation} has a problem:`);
      expect(text).toContain(`WafMigration.mode: zone ${zones.pro} migrated directly to the new WAF managed rules and cannot go back to validation`);
      expect(text).toContain('the migration cannot be undone');
    } finally {
      store.mode = 'direct';
    }
    await storeStack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('destroy is refused by the engine while the resource is protected (the default)', async () => {
    const text = await engineFailure((onOutput) => storeStack.destroy({ color: 'never', onOutput }));
    expect(text).toMatch(/resource "urn:pulumi:store::[^"]*::store-waf" cannot be deleted\s+because it is protected/);
    expect(text).toContain("pulumi state unprotect 'urn:pulumi:store::");
    expect(await status(zones.pro)).toMatchObject({ migration_state: 'complete' });
    expect(await migrationsIn(storeStack)).toHaveLength(1);
  });

  test('with protect: false, the provider refuses the delete and says how to drop the resource from the stack', async () => {
    store.protect = false;
    await storeStack.up({ color: 'never' });
    expect(await migrationsIn(storeStack)).toEqual([expect.not.objectContaining({ protect: true })]);
    await sandbox.emulator.admin.clearRequests();
    const text = await engineFailure((onOutput) => storeStack.destroy({ color: 'never', onOutput }));
    expect(text).toContain(`WafMigration of zone ${zones.pro} cannot be deleted: the migration to the new WAF managed rules cannot be undone`);
    expect(text).toContain('set the resource options protect: false and retainOnDelete: true and run pulumi up');
    expect(text).toContain('pulumi state delete <urn>');
    expect((await sandbox.emulator.admin.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await migrationsIn(storeStack)).toHaveLength(1);
  });

  test('with retainOnDelete: true, destroy drops the resource from the stack and the zone stays migrated', async () => {
    store.retainOnDelete = true;
    await storeStack.up({ color: 'never' });
    await sandbox.emulator.admin.clearRequests();
    const destroy = await storeStack.destroy({ color: 'never' });
    expect(destroy.summary.resourceChanges).toMatchObject({ delete: 3 }); // with the stack's owner id
    expect(await migrationsIn(storeStack)).toEqual([]);
    expect((await sandbox.emulator.admin.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await status(zones.pro)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });
});

/**
 * The bank stack's up, the request log cleared first: the up, its change summary, the migrations it submitted, the
 * zone's status after it, and the stack's migration state and WAF statuses as its outputs say.
 */
async function upBank() {
  await sandbox.emulator.admin.clearRequests();
  const up = await bankStack.up({ color: 'never' });
  const states = [up.outputs.migrationState!.value, up.outputs.previousWafStatus!.value, up.outputs.newWafStatus!.value];
  return { up, changes: up.summary.resourceChanges, submitted: await submissions(zones.enterprise), status: await status(zones.enterprise), states };
}

describe('the Enterprise zone', () => {
  test('validation: both WAFs run; a second preview shows no change', async () => {
    const { up, ...after } = await upBank();
    expect(after).toEqual({
      changes: expect.objectContaining({ create: 3 }), // the stack, its owner id and the migration
      submitted: ['validation'],
      status: expect.objectContaining({ migration_state: 'validation', old_waf_status: 'enabled', new_waf_status: 'enabled' }),
      states: ['validation', 'enabled', 'enabled'],
    });
    expect(JSON.stringify(up.outputs.submittedRuleset!.value)).toContain('"score_threshold":40');
    await bankStack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('new adjustments while in validation show as an update and resubmit, still in validation', async () => {
    bank.adjustments = { ...bank.adjustments, categories: [{ category: 'wordpress', enabled: false }] };
    const { text, summary } = await previewDiff(bankStack);
    expect(summary).toMatchObject({ update: 1 });
    expect(text).toMatch(/~ adjustments\s*:/);
    expect(text).toMatch(/~ categories: \[\s*\+ \[0\]: \{\s*\+ category\s*: "wordpress"\s*\+ enabled\s*: false/);
    expect(text).not.toMatch(/~ mode\s*:/);

    const { up, states: _states, ...after } = await upBank();
    expect(after).toEqual({
      changes: expect.objectContaining({ update: 1 }),
      submitted: ['validation'],
      status: expect.objectContaining({ migration_state: 'validation', old_waf_status: 'enabled', new_waf_status: 'enabled' }),
    });
    expect(JSON.stringify(up.outputs.submittedRuleset!.value)).toMatch(/"category":"wordpress","enabled":false/);
    await bankStack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('mode direct finalizes: the preview shows the update, up completes the migration', async () => {
    bank.mode = 'direct';
    const { text, summary } = await previewDiff(bankStack);
    expect(summary).toMatchObject({ update: 1 });
    expect(text).toMatch(/~ mode\s*:\s*"validation" => "direct"/);
    expect(text).not.toMatch(/~ adjustments\s*:/);

    const { up: _up, ...after } = await upBank();
    expect(after).toEqual({
      changes: expect.objectContaining({ update: 1 }),
      submitted: ['pending'],
      status: expect.objectContaining({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' }),
      states: ['complete', 'disabled', 'enabled'],
    });
    await bankStack.preview({ expectNoChanges: true, color: 'never' });
  });
});

describe('the Business zone (a URI-based override)', () => {
  test('up fails with the override and the operation that deletes it, and succeeds once it is deleted', async () => {
    const [override] = await client.wafOverrides.list({ zoneId: zones.business }).toArray();
    const text = await engineFailure((onOutput) => mediaStack.up({ color: 'never', onOutput }));
    expect(text).toContain(`WafMigration of zone ${zones.business}: the migration was not submitted and the zone is unchanged`);
    expect(text).toContain(`${override!.id} for api.acme-media.example/upload/*`);
    expect(text).toContain(`DELETE /zones/${zones.business}/firewall/waf/overrides/{id} (client.wafOverrides.delete({ zoneId, overrideId }))`);
    expect(await status(zones.business)).toMatchObject({ migration_state: 'start', old_waf_status: 'enabled' });
    expect(await migrationsIn(mediaStack)).toEqual([]);

    await client.wafOverrides.delete({ zoneId: zones.business, overrideId: override!.id });
    const up = await mediaStack.up({ color: 'never' });
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(up.outputs.migrationState!.value).toBe('complete');
    expect(await status(zones.business)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });
});

/**
 * A zone seeded with the previous WAF on (medium sensitivity, block) and a stack `name` of one WafMigration `name-waf`
 * in it, declared with what `declared` answers at each run.
 */
async function migrationInNewZone(
  name: string,
  seed: Pick<ZoneSeed, 'name' | 'plan' | 'migrationDelayMs'>,
  declared: () => { mode: 'direct' | 'validation'; wait: { timeoutSeconds: number; pollIntervalSeconds: number } },
): Promise<{ zone: { id: string }; stack: Stack }> {
  const zone = await sandbox.emulator.admin.seedZone({ ...seed, previousWaf: { enabled: true, sensitivity: 'medium', actionMode: 'block' } });
  const stack = await sandbox.stack(name, async () => {
    const migration = new WafMigration(`${name}-waf`, { zoneId: zone.id, ...declared() });
    return { migrationState: migration.migrationState, mode: migration.mode };
  });
  return { zone, stack };
}

describe('an Enterprise zone finalized out of band', () => {
  test('refresh finds the migration complete; the program must then say direct, and going back is refused', async () => {
    const loans = { mode: 'validation' as 'direct' | 'validation', wait };
    const { zone, stack } = await migrationInNewZone('loans', { name: 'acme-loans.example', plan: 'enterprise' }, () => loans);
    await stack.up({ color: 'never' });
    expect(await status(zone.id)).toMatchObject({ migration_state: 'validation' });

    // Finalized in the dashboard: the converted configuration submitted as final.
    const ruleset = await client.wafMigration.config({ zoneId: zone.id });
    await client.wafMigration.updateEntrypoint({ zoneId: zone.id, mode: 'pending', ruleset });
    const refresh = await stack.refresh({ color: 'never' });
    expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
    // The resource's state, not the stack outputs: a refresh does not run the program.
    const deployment = (await stack.exportStack()).deployment as { resources: Array<{ type: string; inputs: object; outputs: object }> };
    const recorded = deployment.resources.find((r) => r.type === TYPE)!;
    expect(recorded.outputs).toMatchObject({ mode: 'direct', migrationState: 'complete', previousWafStatus: 'disabled', newWafStatus: 'enabled' });
    expect(recorded.inputs).toMatchObject({ mode: 'direct' });

    const text = await engineFailure((onOutput) => stack.preview({ color: 'never', onOutput }));
    expect(text).toContain(`WafMigration.mode: zone ${zone.id} migrated directly to the new WAF managed rules and cannot go back to validation`);

    loans.mode = 'direct';
    await sandbox.emulator.admin.clearRequests();
    await stack.preview({ expectNoChanges: true, color: 'never' });
    await stack.up({ color: 'never' });
    expect((await sandbox.emulator.admin.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await status(zone.id)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
  });
});

describe('a migration slower than the wait', () => {
  test('up fails but records the zone as pending; the next up waits for it without submitting again', async () => {
    const slow = { mode: 'direct' as const, wait: { timeoutSeconds: 1, pollIntervalSeconds: 1 } };
    const { zone, stack } = await migrationInNewZone('slow', { name: 'acme-slow.example', plan: 'pro', migrationDelayMs: 4000 }, () => slow);
    await sandbox.emulator.admin.clearRequests();
    const text = await engineFailure((onOutput) => stack.up({ color: 'never', onOutput }));
    // The engine prints a partial create's reasons under the resource's name.
    expect(text).toMatch(/WafMigration \(slow-waf\):\s*error: 1 error occurred:\s*\* the configuration was submitted, but the zone is still pending after 1s/);
    expect(text).toContain('the resource is recorded as pending: run pulumi up again later to wait for complete');
    expect(await submissions(zone.id)).toEqual(['pending']);
    // A partial create: the engine keeps the resource with the state it reached, so nothing is submitted twice.
    const deployment = (await stack.exportStack()).deployment as { resources: Array<{ type: string; outputs: Record<string, unknown> }> };
    expect(deployment.resources.find((r) => r.type === TYPE)?.outputs).toMatchObject({ migrationState: 'pending', mode: 'direct' });

    const { summary } = await previewDiff(stack);
    expect(summary).toMatchObject({ update: 1 });

    slow.wait = { timeoutSeconds: 30, pollIntervalSeconds: 1 };
    await sandbox.emulator.admin.clearRequests();
    const up = await stack.up({ color: 'never' });
    expect(up.outputs.migrationState!.value).toBe('complete');
    expect(await submissions(zone.id)).toEqual([]);
    expect(await status(zone.id)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });
});
