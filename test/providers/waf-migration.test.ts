// WafMigration's provider methods and planWafMigration against the emulator over loopback HTTP: every move of the
// transition table of docs/service.md#migration-modes on zones of each plan, the refusals, waiting, drift.
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from '../../src/client/errors';
import { WafMigrationUnsettledError, submitMayHaveActed, wafMigration as provider } from '../../src/providers/waf-migration';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';
import { OWASP_RULESET_ID } from '../../src/schemas/service';
import { planWafMigration } from '../../src/resources/waf-migration';
import type { RequestLogEntry, ZoneSeed } from '../../src/emulator';
import { checkedBy, expectRefusedAtCheck, useCaughtStderr, useProviderFixture } from './support';

const fx = useProviderFixture();
// The provider writes one progress line per poll to stderr; kept for the assertions, out of the output.
const progress = useCaughtStderr();

type Plan = 'free' | 'pro' | 'business' | 'enterprise';
type Props = Record<string, unknown>;
let zoneCounter = 0;

/** A fresh zone with a previous WAF (OWASP medium/simulate, as a typical zone), so every test owns its zone. */
async function freshZone(plan: Plan, overrides: Partial<ZoneSeed> = {}): Promise<string> {
  zoneCounter += 1;
  const zone = await fx.emulator.admin.seedZone({
    name: `waf-${zoneCounter}.example`,
    plan,
    previousWaf: { enabled: true, sensitivity: 'medium', actionMode: 'simulate', groupOverrides: { de677e5818985db1285d0e80225f06e5: 'off' } },
    firewallRules: [
      { expression: 'ip.src in {192.0.2.0/24}', action: 'bypass', products: ['waf'], description: 'office skips the WAF' },
      { expression: 'http.user_agent contains "sqlmap"', action: 'block' },
    ],
    ...overrides,
  });
  return zone.id;
}

/** Small waits for tests: the emulator completes a pending migration after the zone's migrationDelayMs. */
const FAST = { timeoutSeconds: 5, pollIntervalSeconds: 0.02 };
const declared = (zoneId: string, overrides: Props = {}): Props => ({ zoneId, mode: 'direct', wait: FAST, ...overrides });

const checked = (news: Props, olds: Props = {}): Promise<Props> => checkedBy(provider, news, olds);

const apiCalls = async () =>
  // The fixture types the entries loosely; the emulator's log has the query and the status too.
  ((await fx.requestsSince()) as RequestLogEntry[]).map((r) => {
    const path = r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]+/, '');
    const mode = (r.query as Record<string, string>).waf_migration;
    return `${r.method} ${path}${mode ? `?waf_migration=${mode}` : ''}${r.status >= 400 ? ` -> ${r.status}` : ''}`;
  });
const status = (zoneId: string) => fx.client.wafMigration.status({ zoneId });
const writes = (calls: string[]) => calls.filter((call) => !call.startsWith('GET '));

const READS = ['GET /waf_migration/check', 'GET /waf_migration/status', 'GET /firewall/waf/packages', 'GET /firewall/rules', 'GET /waf_migration/config'];
const ENTRYPOINT = '/rulesets/phases/http_request_firewall_managed/entrypoint';

const DELETE_MESSAGE = (zoneId: string) =>
  `WafMigration of zone ${zoneId} cannot be deleted: the migration to the new WAF managed rules cannot be undone, and ` +
  `deleting this resource would not give the zone its previous WAF back. To drop it from the stack without touching the ` +
  `zone: set the resource options protect: false and retainOnDelete: true and run pulumi up, or run pulumi state delete ` +
  `<urn> (pulumi state unprotect <urn> first if it is protected)`;

describe('check', () => {
  const zoneId = 'a'.repeat(32);
  test('fills the defaults and lets unknown values through during preview', async () => {
    expect(await checked({ zoneId, mode: 'validation' })).toEqual({
      zoneId,
      mode: 'validation',
      adjustments: { rules: [], categories: [] },
      wait: { timeoutSeconds: 900, pollIntervalSeconds: 5 },
    });
    expect(await checked({ zoneId: PREVIEW_UNKNOWN, mode: PREVIEW_UNKNOWN, adjustments: { rules: [PREVIEW_UNKNOWN] } })).toMatchObject({ zoneId: PREVIEW_UNKNOWN, mode: PREVIEW_UNKNOWN });
  });

  test.each([
    ['zoneId', { zoneId: 'my-zone' }, 'WafMigration.zoneId: must be a zone id: 32 lowercase hexadecimal characters'],
    ['mode', { mode: 'pending' }, 'WafMigration.mode: must be direct or validation'],
    ['adjustments.rules.0.action', { adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'simulate' }] } }, 'WafMigration.adjustments.rules.0.action: must be one of block, challenge, js_challenge, managed_challenge, log'],
    ['adjustments.rules.0', { adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa' }] } }, 'WafMigration.adjustments.rules.0: must set at least one of action, enabled, scoreThreshold'],
    // The id shape the emulator's entry point PUT refuses (one definition, ManagedRuleIdSchema): refused at preview already.
    ['adjustments.rules.0.ruleId', { adjustments: { rules: [{ ruleId: '981176', action: 'log' }] } }, 'WafMigration.adjustments.rules.0.ruleId: must be a managed rule id: 32 lowercase hexadecimal characters'],
    ['adjustments.categories.0.category', { adjustments: { categories: [{ category: '', enabled: false }] } }, 'WafMigration.adjustments.categories.0.category: must name a category'],
    ['wait.timeoutSeconds', { wait: { timeoutSeconds: 0 } }, 'WafMigration.wait.timeoutSeconds: must be more than 0'],
    ['wait.pollIntervalSeconds', { wait: { pollIntervalSeconds: 601 } }, 'WafMigration.wait.pollIntervalSeconds: must be at most 600'],
    ['colour', { colour: 'red' }, 'WafMigration: unknown input "colour"; remove it or check its spelling'],
  ])('a bad %s fails with its reason and sends nothing', async (property, bad, reason) => {
    await expectRefusedAtCheck(fx, provider, declared(zoneId, bad), [{ property, reason }]);
  });

  test('another zone, going back to validation, adjustments after direct: refused in the preview, nothing sent', async () => {
    const olds = await checked(declared(zoneId));
    await fx.requestsSince();
    const zone = await provider.check(olds, declared('b'.repeat(32)));
    expect(zone.failures).toEqual([{ property: 'zoneId', reason: expect.stringContaining('a WAF migration cannot be undone') }]);
    const back = await provider.check(olds, declared(zoneId, { mode: 'validation' }));
    expect(back.failures).toEqual([{ property: 'mode', reason: expect.stringContaining('cannot go back to validation: the migration cannot be undone') }]);
    const adjusted = await provider.check(olds, declared(zoneId, { adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] } }));
    expect(adjusted.failures).toEqual([{ property: 'adjustments', reason: expect.stringContaining('the migration cannot be undone or repeated') }]);
    for (const result of [zone, back, adjusted]) {
      expect(result.failures?.[0]?.reason).toContain('retainOnDelete: true');
      expect(result.failures?.[0]?.reason).toContain('pulumi state delete <urn>');
    }
    expect(await fx.requestsSince()).toEqual([]);
  });
});

describe('previous WAF only → new WAF only (direct), on every plan', () => {
  test.each(['free', 'pro', 'business', 'enterprise'] as const)('%s zone', async (plan) => {
    const zoneId = await freshZone(plan);
    const inputs = await checked(declared(zoneId));
    await fx.requestsSince();
    const { id, outs } = await provider.create(inputs);
    expect(id).toBe(zoneId);
    expect(await apiCalls()).toEqual([...READS, `PUT ${ENTRYPOINT}?waf_migration=pending`, 'GET /waf_migration/status']);
    expect(await status(zoneId)).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled', new_waf_status: 'enabled' });

    const submitted = (outs as Props).submittedRuleset as { rules: { action: string; action_parameters?: { id: string } }[] };
    expect(submitted.rules.map((r) => r.action_parameters?.id ?? r.action)).toEqual(['skip', MANAGED_RULESET_ID, OWASP_RULESET_ID]);
    expect(outs).toEqual({
      ...inputs,
      migrationState: 'complete',
      previousWafStatus: 'disabled',
      newWafStatus: 'enabled',
      submittedRuleset: submitted,
      conversion: {
        coreRuleSet: { sensitivity: 'medium', paranoiaLevel: 'PL1', scoreThreshold: 25, thresholdLevel: 'High', previousAction: 'simulate', action: 'log', enabled: true },
        bypassRuleIds: [expect.stringMatching(/^[0-9a-f]{32}$/)],
        changed: [
          expect.stringMatching(/^firewall rule [0-9a-f]{32} bypasses the WAF managed rules: recreated as a skip rule/),
          'the previous managed rules package becomes an execute rule of the Cloudflare Managed Ruleset',
          'core rule set sensitivity medium: paranoia level PL1, score threshold High (25 or higher)',
          'core rule set action simulate becomes log (the new ruleset has no simulate)',
        ],
        dropped: [expect.stringMatching(/^group overrides and rule overrides of the previous core rule set are not migrated/), expect.stringMatching(/^some specific configurations/)],
        adjusted: [],
        note: null,
      },
    });
    // The converted OWASP override is docs/service.md#sensitivity-conversion: Simulate became log, medium became threshold 25.
    const entrypoint = (await fx.emulator.admin.inventory(zoneId)).waf?.entrypoint as { rules: { action_parameters?: { id: string; overrides?: unknown } }[] };
    expect(entrypoint.rules[2]?.action_parameters?.overrides).toMatchObject({ rules: [{ action: 'log', score_threshold: 25 }] });

    // A second preview is clean, a refresh changes nothing, and every way back is refused.
    expect(await provider.diff(id, outs as Props, inputs)).toEqual({ changes: false, changed: [], replaces: [], deleteBeforeReplace: undefined });
    const read = await provider.read(id, outs as Props);
    expect(read).toEqual({ id, props: outs, inputs });
    expect((await provider.check(inputs, { ...inputs, mode: 'validation' })).failures?.[0]?.property).toBe('mode');
    await expect(provider.delete(id, outs as Props)).rejects.toThrow(DELETE_MESSAGE(zoneId));
    await expect(provider.update(id, outs as Props, { ...inputs, mode: 'validation' })).rejects.toThrow('cannot go back to validation');
    await fx.requestsSince();
  });
});

describe('an entry point PUT whose answer was lost', () => {
  test('a proxy 502 after the service acted: not repeated, the status read, the resource recorded with what was submitted', async () => {
    const zoneId = await freshZone('pro');
    const inputs = await checked(declared(zoneId));
    await fx.emulator.admin.setFaults({ loseAnswers: 1, match: { method: 'PUT' } });
    await fx.requestsSince();
    const { id, outs } = await provider.create(inputs);
    await fx.emulator.admin.clearFaults();
    expect(id).toBe(zoneId);
    // One PUT (its 502 not retried), then the status that shows it went through, then the wait.
    expect(await apiCalls()).toEqual([...READS, `PUT ${ENTRYPOINT}?waf_migration=pending -> 502`, 'GET /waf_migration/status', 'GET /waf_migration/status']);
    expect(outs).toMatchObject({ migrationState: 'complete', submittedRuleset: { name: expect.any(String), rules: expect.any(Array) } });
    expect(progress.calls().map(([line]) => String(line))).toContainEqual(
      expect.stringMatching(/submitting the configuration \(waf_migration=pending\): PUT .* failed: HTTP 502 Bad Gateway; the answer was lost, but the zone moved from start to (pending|complete): taken as submitted/),
    );
  });

  test('a 502 before the service acted: the status shows the zone unchanged, and create fails with nothing recorded', async () => {
    const zoneId = await freshZone('pro');
    const inputs = await checked(declared(zoneId));
    await fx.emulator.admin.setFaults({ serverErrors: 1, serverErrorStatus: 502, match: { method: 'PUT' } });
    await fx.requestsSince();
    await expect(provider.create(inputs)).rejects.toThrow(/failed: HTTP 502 Bad Gateway: 10001 .*; the zone is unchanged \(still start\): run pulumi up again$/);
    await fx.emulator.admin.clearFaults();
    expect(writes(await apiCalls())).toEqual([`PUT ${ENTRYPOINT}?waf_migration=pending -> 502`]);
    expect(await status(zoneId)).toMatchObject({ migration_state: 'start' });
  });
});

describe('submitMayHaveActed', () => {
  const site = { method: 'PUT', path: '/zones/z/rulesets/phases/http_request_firewall_managed/entrypoint' };
  const items = (code: number) => [{ code, message: 'm' }];
  test.each<[string, unknown, boolean]>([
    ['a 5xx', new ServerError('x', { ...site, status: 502 }), true],
    ['a reset', new ConnectionError('x', { ...site, code: 'ECONNRESET' }), true],
    ['a timeout', new TimeoutError('x', { ...site, timeoutMs: 1 }), true],
    ['an unreadable success', new ResponseValidationError('x', { ...site, status: 200, issues: [] }), true],
    ['409 already migrated (10027)', new ConflictError('x', { ...site, status: 409, errors: items(10027) }), true],
    ['409 URI-based overrides (10031)', new ConflictError('x', { ...site, status: 409, errors: items(10031) }), false],
    ['400 refused', new BadRequestError('x', { ...site, status: 400, errors: items(1004) }), false],
    ['403 refused', new AuthenticationError('x', { ...site, status: 403, errors: items(10000) }), false],
    ['429 refused', new RateLimitedError('x', { ...site, status: 429, errors: items(971) }), false],
    ['not an error of the client', new Error('x'), false],
  ])('%s: %p', (_case, error, expected) => {
    expect(submitMayHaveActed(error)).toBe(expected);
  });
});

describe('validation mode', () => {
  test.each(['free', 'pro', 'business'] as const)('refused on a %s zone with a clear message, the zone unchanged', async (plan) => {
    const zoneId = await freshZone(plan);
    const inputs = await checked(declared(zoneId, { mode: 'validation' }));
    await fx.requestsSince();
    const error = await provider.create(inputs).catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      new RegExp(`^WafMigration of zone ${zoneId}: validation mode is available to Enterprise zones only, and the service refused it for this zone \\(PUT .* 10033 .*\\)\\. Nothing was changed\\.`),
    );
    expect((error as Error).message).toContain("Pro and Business zones migrate directly: declare mode: 'direct'");
    expect(writes(await apiCalls())).toEqual([`PUT ${ENTRYPOINT}?waf_migration=validation -> 400`]);
    expect(await status(zoneId)).toMatchObject({ migration_state: 'start', old_waf_status: 'enabled', new_waf_status: 'disabled' });
  });

  test('enterprise: start → validation, adjustments resubmitted, then direct completes the migration', async () => {
    const zoneId = await freshZone('enterprise');
    const inputs = await checked(declared(zoneId, { mode: 'validation' }));
    await fx.requestsSince();
    const created = await provider.create(inputs);
    expect(writes(await apiCalls())).toEqual([`PUT ${ENTRYPOINT}?waf_migration=validation`]);
    let outs = created.outs as Props;
    expect(outs).toMatchObject({ migrationState: 'validation', previousWafStatus: 'enabled', newWafStatus: 'enabled' });
    // The validation-mode request omits each rule's id, version and ref (docs/service.md#validation-request).
    for (const rule of (outs.submittedRuleset as { rules: Props[] }).rules) expect(Object.keys(rule)).not.toEqual(expect.arrayContaining(['id']));
    expect(await provider.diff(zoneId, outs, inputs)).toMatchObject({ changes: false });

    // Adjustments changed while in validation: the preview shows them, the update resubmits in validation.
    const adjustments = { rules: [{ rulesetId: OWASP_RULESET_ID, ruleId: '6179ae15870a4bb7b2d480d4843b323c', action: 'block', scoreThreshold: 40 }], categories: [{ category: 'wordpress', enabled: false }] };
    const adjusted = await checked(declared(zoneId, { mode: 'validation', adjustments }), inputs);
    expect(await provider.diff(zoneId, outs, adjusted)).toMatchObject({ changes: true, changed: ['adjustments'], replaces: [] });
    outs = (await provider.update(zoneId, outs, adjusted)).outs as Props;
    expect(writes(await apiCalls())).toEqual([`PUT ${ENTRYPOINT}?waf_migration=validation`]);
    expect(outs).toMatchObject({ migrationState: 'validation', conversion: { adjusted: [expect.stringContaining('action block, score threshold 40'), expect.stringContaining('category wordpress: disabled')] } });
    const saved = (await fx.emulator.admin.inventory(zoneId)).waf?.entrypoint as { rules: { action_parameters?: { id: string; overrides?: Props } }[] };
    expect(saved.rules.find((r) => r.action_parameters?.id === OWASP_RULESET_ID)?.action_parameters?.overrides).toMatchObject({
      rules: [{ id: '6179ae15870a4bb7b2d480d4843b323c', action: 'block', score_threshold: 40 }],
    });
    expect(saved.rules.find((r) => r.action_parameters?.id === MANAGED_RULESET_ID)?.action_parameters?.overrides).toMatchObject({
      categories: [{ category: 'wordpress', enabled: false }],
    });

    // Only the wait settings changed: no change at all.
    expect(await provider.diff(zoneId, outs, { ...adjusted, wait: { timeoutSeconds: 60, pollIntervalSeconds: 1 } })).toMatchObject({ changes: false });

    // validation → direct: the final configuration, submitted pending; the previous WAF goes off.
    const final = await checked(declared(zoneId, { mode: 'direct', adjustments }), adjusted);
    expect(await provider.diff(zoneId, outs, final)).toMatchObject({ changes: true, changed: ['mode'], replaces: [] });
    outs = (await provider.update(zoneId, outs, final)).outs as Props;
    expect(writes(await apiCalls())).toEqual([`PUT ${ENTRYPOINT}?waf_migration=pending`]);
    expect(outs).toMatchObject({ mode: 'direct', migrationState: 'complete', previousWafStatus: 'disabled', newWafStatus: 'enabled' });
    expect((outs.submittedRuleset as { rules: Props[] }).rules[0]).toHaveProperty('id');

    // New WAF only: no move back, no other zone, no more adjustments; delete refuses.
    const back = await provider.check(final, { ...final, mode: 'validation' });
    expect(back.failures?.map((f) => f.property)).toEqual(['mode']);
    const more = await provider.check(final, { ...final, adjustments: { rules: [], categories: [] } });
    expect(more.failures?.map((f) => f.property)).toEqual(['adjustments']);
    const moved = await provider.check(final, { ...final, zoneId: 'c'.repeat(32) });
    expect(moved.failures?.map((f) => f.property)).toEqual(['zoneId']);
    await expect(provider.delete(zoneId, outs)).rejects.toThrow(DELETE_MESSAGE(zoneId));
    expect(await apiCalls()).toEqual([]);
  });
});

describe('zones that already moved', () => {
  test('a zone migrated by hand is taken over in direct mode without submitting anything', async () => {
    const zoneId = await freshZone('pro');
    const config = await fx.client.wafMigration.config({ zoneId });
    await fx.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: config });
    await fx.requestsSince();
    const inputs = await checked(declared(zoneId));
    const { outs } = await provider.create(inputs);
    expect(writes(await apiCalls())).toEqual([]);
    expect(outs).toMatchObject({
      migrationState: 'complete',
      submittedRuleset: null,
      conversion: { note: "the zone's migration was already complete when this resource was created: it submitted nothing and converted nothing" },
    });
  });

  test('validation declared on a zone that already migrated is refused: it cannot be undone', async () => {
    const zoneId = await freshZone('enterprise');
    const config = await fx.client.wafMigration.config({ zoneId });
    await fx.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: config });
    await expect(provider.create(await checked(declared(zoneId, { mode: 'validation' })))).rejects.toThrow(
      `WafMigration of zone ${zoneId}: the zone's migration is complete, and a migration cannot be undone: validation mode is no longer possible; declare mode: 'direct'`,
    );
  });

  test('a zone already in validation is taken over: the declared configuration is resubmitted', async () => {
    const zoneId = await freshZone('enterprise');
    const config = await fx.client.wafMigration.config({ zoneId });
    await fx.client.wafMigration.updateEntrypoint({ zoneId, mode: 'validation', ruleset: config });
    await fx.requestsSince();
    const { outs } = await provider.create(await checked(declared(zoneId, { mode: 'validation' })));
    expect(writes(await apiCalls())).toEqual([`PUT ${ENTRYPOINT}?waf_migration=validation`]);
    expect(outs).toMatchObject({ migrationState: 'validation' });
  });
});

describe('waiting', () => {
  test('polls until the pending migration completes, one progress line per poll', async () => {
    const zoneId = await freshZone('business', { migrationDelayMs: 300 });
    const { outs } = await provider.create(await checked(declared(zoneId, { wait: { timeoutSeconds: 10, pollIntervalSeconds: 0.05 } })));
    expect(outs).toMatchObject({ migrationState: 'complete' });
    const lines = progress.calls().map((call) => String(call[0]));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toMatch(new RegExp(`^zoneguard: WafMigration zone ${zoneId}: migration_state pending \\(previous WAF enabled, new WAF enabled\\), waiting for complete \\(0s of 10s\\)$`));
    expect(lines.at(-1)).toMatch(/migration_state complete \(previous WAF disabled, new WAF enabled\)/);
  });

  test('a timeout records the submitted migration as it stands; the next up waits for it', async () => {
    const zoneId = await freshZone('pro', { migrationDelayMs: 1500 });
    const inputs = await checked(declared(zoneId, { wait: { timeoutSeconds: 0.2, pollIntervalSeconds: 0.05 } }));
    const raw = { ...inputs, __provider: 'serialized provider text' };
    const error = await provider.create(raw).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WafMigrationUnsettledError);
    const partial = error as WafMigrationUnsettledError;
    // The engine records a partial create from id, properties and reasons (ErrorResourceInitFailed).
    expect(partial.id).toBe(zoneId);
    expect(partial.message).toMatch(new RegExp(`^WafMigration of zone ${zoneId}: the configuration was submitted, but the zone is still pending after 0.2s`));
    expect(partial.message).toContain('run pulumi up again later to wait for complete, or raise wait.timeoutSeconds');
    expect(partial.reasons).toHaveLength(1);
    expect(partial.properties).toMatchObject({ ...inputs, migrationState: 'pending', __provider: 'serialized provider text', submittedRuleset: expect.any(Object) });

    // The next preview shows the unsettled migration as a change; the update waits, submitting nothing.
    const olds = partial.properties;
    const next = await checked(declared(zoneId, { wait: { timeoutSeconds: 10, pollIntervalSeconds: 0.05 } }), inputs);
    expect(await provider.diff(zoneId, olds, next)).toMatchObject({ changes: true, changed: ['migrationState'], replaces: [] });
    await fx.requestsSince();
    const { outs } = await provider.update(zoneId, olds, next);
    expect(writes(await apiCalls())).toEqual([]);
    expect(outs).toMatchObject({ migrationState: 'complete', submittedRuleset: partial.properties.submittedRuleset, conversion: partial.properties.conversion });
    expect(await provider.diff(zoneId, outs as Props, next)).toMatchObject({ changes: false });
  });
});

describe('refused before submitting', () => {
  test('an incompatible zone: the reason, the URI-based overrides and the operation that deletes them', async () => {
    const overrideId = '0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d';
    const zoneId = await freshZone('business', { wafOverrides: [{ id: overrideId, description: 'upload API', urls: ['api.example.com/upload/*'], rules: { '100015': 'disable' } }] });
    const inputs = await checked(declared(zoneId));
    await fx.requestsSince();
    await expect(provider.create(inputs)).rejects.toThrow(
      `WafMigration of zone ${zoneId}: the migration was not submitted and the zone is unchanged:\n` +
        `  - zone ${zoneId} cannot migrate: it has 1 URI-based WAF override (${overrideId} for api.example.com/upload/*); ` +
        `delete it with DELETE /zones/${zoneId}/firewall/waf/overrides/{id} (client.wafOverrides.delete({ zoneId, overrideId })), then run pulumi up again`,
    );
    expect(writes(await apiCalls())).toEqual([]);

    // Once the override is deleted, as the message says, the migration goes through.
    await fx.client.wafOverrides.delete({ zoneId, overrideId });
    const { outs } = await provider.create(inputs);
    expect(outs).toMatchObject({ migrationState: 'complete' });
  });

  test('more than 200 firewall rules', async () => {
    const firewallRules = Array.from({ length: 201 }, (_, i) => ({ expression: `ip.src eq 10.0.${Math.floor(i / 250)}.${i % 250}`, action: 'block' as const }));
    const zoneId = await freshZone('enterprise', { firewallRules });
    await fx.requestsSince();
    await expect(provider.create(await checked(declared(zoneId)))).rejects.toThrow(
      `WafMigration of zone ${zoneId}: the migration was not submitted and the zone is unchanged:\n` +
        '  - the zone has 201 firewall rules to migrate, more than 200: the migration cannot be completed without support; delete rules you no longer need, or contact support',
    );
    expect(writes(await apiCalls())).toEqual([]);
  });

  test('a firewall rule expression over 4 KB', async () => {
    const long = `http.request.uri.path in {${Array.from({ length: 300 }, (_, i) => `"/legacy/path/${String(i).padStart(4, '0')}"`).join(' ')}}`;
    const zoneId = await freshZone('pro', { firewallRules: [{ id: '4'.repeat(32), expression: long, action: 'block' }] });
    const bytes = Buffer.byteLength(long);
    expect(bytes).toBeGreaterThan(4096);
    await fx.requestsSince();
    await expect(provider.create(await checked(declared(zoneId)))).rejects.toThrow(
      `  - firewall rule ${'4'.repeat(32)} has an expression of ${bytes} bytes, more than 4096: the migration cannot be completed without support; shorten the expression (split the rule), or contact support`,
    );
    expect(writes(await apiCalls())).toEqual([]);
  });

  test('an adjustment of a ruleset the converted configuration does not execute', async () => {
    const zoneId = await freshZone('free', { previousWaf: undefined, firewallRules: [] });
    await fx.requestsSince();
    await expect(provider.create(await checked(declared(zoneId, { adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] } })))).rejects.toThrow(
      `  - adjustments.rules[0]: ruleset ${MANAGED_RULESET_ID} (Cloudflare Managed Ruleset) is not executed by the converted configuration, which executes no managed ruleset`,
    );
    expect(writes(await apiCalls())).toEqual([]);
  });
});

describe('read', () => {
  test('drift: a validation finalized out of band is read as direct, and going back is then refused', async () => {
    const zoneId = await freshZone('enterprise');
    const inputs = await checked(declared(zoneId, { mode: 'validation' }));
    const { outs } = await provider.create(inputs);
    const config = await fx.client.wafMigration.config({ zoneId });
    await fx.client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: config });

    const read = await provider.read(zoneId, outs as Props);
    expect(read.props).toMatchObject({ mode: 'direct', migrationState: 'complete', previousWafStatus: 'disabled', newWafStatus: 'enabled' });
    expect(read.inputs).toEqual({ ...inputs, mode: 'direct' });
    const preview = await provider.check(read.inputs as Props, inputs);
    expect(preview.failures).toEqual([{ property: 'mode', reason: expect.stringContaining('cannot go back to validation') }]);
    // The program updated to direct: clean.
    expect(await provider.diff(zoneId, read.props as Props, await checked({ ...inputs, mode: 'direct' }, read.inputs as Props))).toMatchObject({ changes: false });
  });

  test('a zone the service no longer knows fails the read: a migration never leaves the state on a 404', async () => {
    const zoneId = await freshZone('pro');
    const { outs } = await provider.create(await checked(declared(zoneId)));
    await fx.emulator.admin.removeZone(zoneId);
    await expect(provider.read(zoneId, outs as Props)).rejects.toThrow(
      new RegExp(`^WafMigration of zone ${zoneId}: the service does not know the zone \\(GET /zones/${zoneId}/waf_migration/status failed: HTTP 404 Not Found: 10013 .*\\); the resource stays in the state\\. .*pulumi state delete <urn>`),
    );
  });
});

describe('planWafMigration', () => {
  test('compatibility, converted configuration with adjustments, notes and limits, with reads only', async () => {
    const zoneId = await freshZone('enterprise');
    await fx.requestsSince();
    const plan = await planWafMigration({
      zoneId,
      client: fx.client,
      adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] },
    });
    const calls = await apiCalls();
    expect(calls).toEqual(READS);
    expect(plan).toMatchObject({
      zoneId,
      compatible: true,
      migrationState: 'start',
      previousWafStatus: 'enabled',
      newWafStatus: 'disabled',
      incompatibility: null,
      limits: { firewallRules: 2, maxFirewallRules: 200, maxExpressionBytes: 4096, problems: [] },
      problems: [],
      conversion: { coreRuleSet: { paranoiaLevel: 'PL1', scoreThreshold: 25 }, adjusted: ['Cloudflare Managed Ruleset: rule 5de7edfa648c4d6891dc3e7f84534ffa: action log'] },
    });
    expect(plan.ruleset?.rules.find((r) => r.action_parameters?.id === MANAGED_RULESET_ID)?.action_parameters?.overrides?.rules).toEqual([
      { id: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' },
    ]);
    // The same zone, planned twice, gives the same plan.
    expect(await planWafMigration({ zoneId, client: fx.client, adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] } })).toEqual(plan);
  });

  test('an incompatible zone shows why; a migrated zone has nothing left to convert', async () => {
    const overrideId = '0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e';
    const blocked = await freshZone('business', { wafOverrides: [{ id: overrideId, urls: ['example.com/*'] }] });
    const plan = await planWafMigration({ zoneId: blocked, client: fx.client });
    expect(plan).toMatchObject({ compatible: false, ruleset: null, incompatibility: { overrides: [{ id: overrideId, description: null, urls: ['example.com/*'] }] } });
    expect(plan.problems).toEqual([plan.incompatibility?.reason]);

    const done = await freshZone('pro');
    await provider.create(await checked(declared(done)));
    await fx.requestsSince();
    const after = await planWafMigration({ zoneId: done, client: fx.client });
    expect(await apiCalls()).toEqual(['GET /waf_migration/check', 'GET /waf_migration/status']);
    expect(after).toMatchObject({ compatible: false, migrationState: 'complete', incompatibility: null, ruleset: null, problems: [] });
  });

  test('bad arguments are refused before any request', async () => {
    await fx.requestsSince();
    await expect(planWafMigration({ zoneId: 'zone', client: fx.client })).rejects.toThrow('planWafMigration: zoneId: must be a zone id: 32 lowercase hexadecimal characters');
    await expect(planWafMigration({ zoneId: 'a'.repeat(32), client: fx.client, adjustments: { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa' }] } })).rejects.toThrow(
      'planWafMigration: adjustments.rules.0: must set at least one of action, enabled, scoreThreshold',
    );
    expect(await fx.requestsSince()).toEqual([]);
  });
});
