// Pure decisions of WafMigration: adjustments, request body per mode, limits, conversion notes, the transition table,
// check refusals, diff, and the resource's options.
import { convertedExecute } from '../support/waf-rules';
import { BadRequestError, ServerError } from '../../src/client/errors';
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import {
  AdjustmentsSchema,
  NO_ADJUSTMENTS,
  adoptedConversion,
  applyAdjustments,
  assessProgress,
  conversionNotes,
  entrypointBody,
  migrationLimits,
  modeOfState,
  nextStep,
  progressLine,
  type Adjustments,
  incompatibilityOf,
} from '../../src/migration';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';
import { OWASP_RULESET_ID } from '../../src/schemas/service';
import {
  DEFAULT_WAIT,
  WafMigrationArgsSchema,
  diffWafMigration,
  isUnsettled,
  notSubmittedMessage,
  transitionFailures,
  validationRefusal,
} from '../../src/providers/waf-migration';
import { wafMigrationOptions } from '../../src/resources/waf-migration';
import type { EntrypointRuleset, WafPackage } from '../../src/schemas';

const zoneId = 'a'.repeat(32);
const otherZone = 'b'.repeat(32);
const ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c';

/** A converted configuration as the config read answers it: a skip rule, the managed ruleset, OWASP. */
const converted = (): EntrypointRuleset => ({
  name: 'default',
  rules: [
    { id: '', version: '', action: 'skip', expression: 'ip.src eq 192.0.2.1', description: 'Migrated from firewall rule x', ref: '', enabled: true },
    convertedExecute('managed'),
    convertedExecute('owasp', { categories: [{ category: 'paranoia-level-3', enabled: false }], rules: [{ id: ANOMALY_RULE, action: 'log', score_threshold: 25 }] }),
  ],
});

const adjustments = (input: unknown): Adjustments => AdjustmentsSchema.parse(input);
const overridesOf = (ruleset: EntrypointRuleset, rulesetId: string) =>
  ruleset.rules.find((rule) => rule.action_parameters?.id === rulesetId)?.action_parameters?.overrides;

describe('applyAdjustments', () => {
  test('no adjustment leaves the converted configuration as it is', () => {
    expect(applyAdjustments(converted(), NO_ADJUSTMENTS)).toEqual({ ruleset: converted(), applied: [], problems: [] });
  });

  test.each([
    [
      'a rule override of the managed ruleset (the default ruleset) is appended',
      { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] },
      MANAGED_RULESET_ID,
      { rules: [{ id: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] },
      ['Cloudflare Managed Ruleset: rule 5de7edfa648c4d6891dc3e7f84534ffa: action log'],
    ],
    [
      'an override the conversion made is merged, the adjustment winning',
      { rules: [{ rulesetId: OWASP_RULESET_ID, ruleId: ANOMALY_RULE, action: 'block', scoreThreshold: 40 }] },
      OWASP_RULESET_ID,
      { categories: [{ category: 'paranoia-level-3', enabled: false }], rules: [{ id: ANOMALY_RULE, action: 'block', score_threshold: 40 }] },
      [`Cloudflare OWASP Core Ruleset: rule ${ANOMALY_RULE}: action block, score threshold 40`],
    ],
    [
      'a category override is merged or appended',
      {
        categories: [
          { rulesetId: OWASP_RULESET_ID, category: 'paranoia-level-3', enabled: true },
          { rulesetId: OWASP_RULESET_ID, category: 'wordpress', action: 'log' },
        ],
      },
      OWASP_RULESET_ID,
      {
        categories: [
          { category: 'paranoia-level-3', enabled: true },
          { category: 'wordpress', action: 'log' },
        ],
        rules: [{ id: ANOMALY_RULE, action: 'log', score_threshold: 25 }],
      },
      ['Cloudflare OWASP Core Ruleset: category paranoia-level-3: enabled', 'Cloudflare OWASP Core Ruleset: category wordpress: action log'],
    ],
    [
      'a disabled rule',
      { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', enabled: false }] },
      MANAGED_RULESET_ID,
      { rules: [{ id: '5de7edfa648c4d6891dc3e7f84534ffa', enabled: false }] },
      ['Cloudflare Managed Ruleset: rule 5de7edfa648c4d6891dc3e7f84534ffa: disabled'],
    ],
  ])('%s', (_name, given, rulesetId, overrides, applied) => {
    const result = applyAdjustments(converted(), adjustments(given));
    expect(result.problems).toEqual([]);
    expect(overridesOf(result.ruleset, rulesetId)).toEqual(overrides);
    expect(result.applied).toEqual(applied);
  });

  test('the converted configuration given is not changed', () => {
    const original = converted();
    applyAdjustments(original, adjustments({ rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] }));
    expect(original).toEqual(converted());
  });

  test('an adjustment of a ruleset the configuration does not execute is a problem, not silently dropped', () => {
    const onlySkip: EntrypointRuleset = { name: 'default', rules: [] };
    const result = applyAdjustments(onlySkip, adjustments({ rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }], categories: [{ rulesetId: OWASP_RULESET_ID, category: 'c', enabled: false }] }));
    expect(result.problems).toEqual([
      `adjustments.rules[0]: ruleset ${MANAGED_RULESET_ID} (Cloudflare Managed Ruleset) is not executed by the converted configuration, which executes no managed ruleset`,
      `adjustments.categories[0]: ruleset ${OWASP_RULESET_ID} (Cloudflare OWASP Core Ruleset) is not executed by the converted configuration, which executes no managed ruleset`,
    ]);
    expect(result.applied).toEqual([]);
  });
});

describe('AdjustmentsSchema', () => {
  test.each([
    ['an override that sets nothing', { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa' }] }, 'rules.0: must set at least one of action, enabled, scoreThreshold'],
    ['an action the rulesets do not have', { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'simulate' }] }, 'rules.0.action: must be one of block, challenge, js_challenge, managed_challenge, log'],
    ['a score threshold below 1', { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', scoreThreshold: 0 }] }, 'rules.0.scoreThreshold: must be at least 1'],
    ['a ruleset id that is not one', { rules: [{ rulesetId: 'owasp', ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', enabled: true }] }, 'rules.0.rulesetId: must be an identifier: 32 lowercase hexadecimal characters'],
    ['the same rule twice', { rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', enabled: true }, { ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }] }, 'rules.1.ruleId: overrides rule 5de7edfa648c4d6891dc3e7f84534ffa again (already at rules[0]); merge the two'],
    ['the same category twice', { categories: [{ category: 'c', enabled: true }, { category: 'c', enabled: false }] }, 'categories.1.category: overrides category c again (already at categories[0]); merge the two'],
    ['an unknown key', { groups: [] }, ': Unrecognized key: "groups"'],
  ])('refuses %s', (_name, input, message) => {
    const result = AdjustmentsSchema.safeParse(input);
    expect(result.success).toBe(false);
    const [issue] = result.error?.issues ?? [];
    expect(`${issue?.path.join('.')}: ${issue?.message}`).toBe(message);
  });

  test('defaults: empty lists, the managed ruleset', () => {
    expect(adjustments({})).toEqual(NO_ADJUSTMENTS);
    expect(adjustments({ rules: [{ ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', enabled: false }] }).rules[0]?.rulesetId).toBe(MANAGED_RULESET_ID);
  });
});

describe('entrypointBody', () => {
  test('the pending request sends the rules as read', () => {
    expect(entrypointBody(converted(), 'pending')).toEqual(converted());
  });
  test('the validation request omits each rule id, version and ref (docs/service.md#validation-request)', () => {
    const body = entrypointBody(converted(), 'validation');
    expect(body.rules).toHaveLength(3);
    for (const rule of body.rules) {
      expect(rule).not.toHaveProperty('id');
      expect(rule).not.toHaveProperty('version');
      expect(rule).not.toHaveProperty('ref');
    }
    expect(body.rules[1]).toEqual({ action: 'execute', expression: 'true', description: 'Cloudflare Managed Ruleset', enabled: true, action_parameters: { id: MANAGED_RULESET_ID, overrides: { rules: [] } } });
  });
});

describe('migrationLimits', () => {
  const rule = (i: number, expression = `ip.src eq 192.0.2.${i % 250}`) => ({ id: String(i).padStart(32, '0'), expression, action: 'block' });
  const many = (n: number) => Array.from({ length: n }, (_, i) => rule(i));
  test.each([
    ['no rule', [], 0, 0, []],
    ['200 rules is the limit', many(200), 200, 21, []],
    [
      '201 rules is past it',
      many(201),
      201,
      21,
      ['the zone has 201 firewall rules to migrate, more than 200: the migration cannot be completed without support; delete rules you no longer need, or contact support'],
    ],
    ['an expression of exactly 4096 bytes', [rule(1, 'x'.repeat(4096))], 1, 4096, []],
    [
      'an expression of 4097 bytes',
      [rule(1, 'x'.repeat(4097))],
      1,
      4097,
      [`firewall rule ${rule(1).id} has an expression of 4097 bytes, more than 4096: the migration cannot be completed without support; shorten the expression (split the rule), or contact support`],
    ],
    ['bytes, not characters: 2049 two-byte characters', [rule(2, 'é'.repeat(2049))], 1, 4098, [expect.stringContaining('4098 bytes, more than 4096')]],
  ])('%s', (_name, rules, count, longest, problems) => {
    const limits = migrationLimits(rules);
    expect(limits).toMatchObject({ firewallRules: count, maxFirewallRules: 200, longestExpressionBytes: longest, maxExpressionBytes: 4096 });
    expect(limits.problems).toEqual(problems);
  });

  test('every rule past 4 KB is named', () => {
    expect(migrationLimits([rule(1, 'x'.repeat(5000)), rule(2), rule(3, 'y'.repeat(4100))]).problems).toHaveLength(2);
  });
});

describe('conversionNotes', () => {
  const owasp = (sensitivity: WafPackage['sensitivity'], action_mode: WafPackage['action_mode']): WafPackage => ({
    id: '1'.repeat(32),
    name: 'OWASP ModSecurity Core Rule Set',
    zone_id: zoneId,
    detection_mode: 'anomaly',
    sensitivity,
    action_mode,
  });
  const vendor: WafPackage = { id: '2'.repeat(32), name: 'CloudFlare', zone_id: zoneId, detection_mode: 'traditional' };

  test.each([
    ['high', 'block', 'PL2', 40, 'Medium', 'block'],
    ['medium', 'simulate', 'PL1', 25, 'High', 'log'],
    ['low', 'challenge', 'PL1', 40, 'Medium', 'challenge'],
    ['default', 'simulate', 'PL2', 40, 'Medium', 'log'],
  ] as const)('sensitivity %s, action %s: %s, threshold %s (%s), action %s', (sensitivity, action, level, threshold, thresholdLevel, newAction) => {
    const notes = conversionNotes({ packages: [vendor, owasp(sensitivity, action)], firewallRules: [] });
    expect(notes.coreRuleSet).toEqual({
      sensitivity,
      paranoiaLevel: level,
      scoreThreshold: threshold,
      thresholdLevel,
      previousAction: action,
      action: newAction,
      enabled: true,
    });
    expect(notes.changed).toContain(`core rule set sensitivity ${sensitivity}: paranoia level ${level}, score threshold ${thresholdLevel} (${threshold} or higher)`);
    expect(notes.changed).toContain(
      action === 'simulate' ? 'core rule set action simulate becomes log (the new ruleset has no simulate)' : `core rule set action ${action} stays ${newAction}`,
    );
    expect(notes.dropped).toEqual([
      'group overrides and rule overrides of the previous core rule set are not migrated: recreate the ones you need as category or rule overrides of the new ruleset (adjustments.categories, adjustments.rules)',
      'some specific configurations of the previous core rule set may be lost in the conversion; review the converted configuration',
    ]);
  });

  test('sensitivity off: the new ruleset is deployed disabled', () => {
    const notes = conversionNotes({ packages: [owasp('off', 'block')], firewallRules: [] });
    expect(notes.coreRuleSet).toMatchObject({ sensitivity: 'off', enabled: false, paranoiaLevel: 'PL2' });
    expect(notes.changed[0]).toMatch(/^core rule set sensitivity off: the Cloudflare OWASP Core Ruleset is deployed disabled/);
  });

  test('bypass rules become skip rules, sorted; other rules are not mentioned', () => {
    const notes = conversionNotes({
      packages: [],
      firewallRules: [
        { id: 'f'.repeat(32), expression: 'a', action: 'bypass', products: ['waf'] },
        { id: 'e'.repeat(32), expression: 'b', action: 'bypass', products: ['rateLimit'] },
        { id: 'c'.repeat(32), expression: 'c', action: 'bypass', products: ['waf', 'bic'] },
        { id: 'd'.repeat(32), expression: 'd', action: 'block' },
      ],
      adjusted: ['x'],
    });
    expect(notes).toEqual({
      coreRuleSet: null,
      bypassRuleIds: ['c'.repeat(32), 'f'.repeat(32)],
      changed: [
        `firewall rule ${'c'.repeat(32)} bypasses the WAF managed rules: recreated as a skip rule of the new configuration`,
        `firewall rule ${'f'.repeat(32)} bypasses the WAF managed rules: recreated as a skip rule of the new configuration`,
      ],
      dropped: [],
      adjusted: ['x'],
      note: null,
    });
  });

  test('deterministic: the same zone gives the same notes', () => {
    const facts = { packages: [vendor, owasp('low', 'simulate')], firewallRules: [{ id: 'a'.repeat(32), expression: 'x', action: 'bypass', products: ['waf'] }] };
    expect(conversionNotes(facts)).toEqual(conversionNotes(structuredClone(facts)));
  });

  test('a zone that migrated before the resource existed converted nothing', () => {
    expect(adoptedConversion('complete')).toEqual({
      coreRuleSet: null,
      bypassRuleIds: [],
      changed: [],
      dropped: [],
      adjusted: [],
      note: "the zone's migration was already complete when this resource was created: it submitted nothing and converted nothing",
    });
  });
});

describe('the transition table', () => {
  test.each([
    ['start', 'direct', true, { kind: 'submit', mode: 'pending' }],
    ['start', 'validation', true, { kind: 'submit', mode: 'validation' }],
    ['validation', 'direct', false, { kind: 'submit', mode: 'pending' }],
    ['validation', 'validation', true, { kind: 'submit', mode: 'validation' }],
    ['validation', 'validation', false, { kind: 'nothing' }],
    ['pending', 'direct', false, { kind: 'wait' }],
    ['complete', 'direct', true, { kind: 'nothing' }],
    ['pending', 'validation', false, { kind: 'refuse', reason: expect.stringContaining('a migration cannot be undone') }],
    ['complete', 'validation', true, { kind: 'refuse', reason: expect.stringContaining("is complete, and a migration cannot be undone: validation mode is no longer possible; declare mode: 'direct'") }],
    ['phase_three', 'direct', true, { kind: 'refuse', reason: expect.stringContaining('migration_state phase_three') }],
  ] as const)('%s, declared %s, resubmit %s', (state, mode, resubmit, expected) => {
    expect(nextStep(state, mode, resubmit)).toEqual(expected);
  });

  const status = (migration_state: string, old: 'enabled' | 'disabled', fresh: 'enabled' | 'disabled') => ({
    migration_state,
    old_waf_status: old,
    new_waf_status: fresh,
  });
  test.each([
    [status('complete', 'disabled', 'enabled'), 'direct', 'settled'],
    [status('pending', 'enabled', 'enabled'), 'direct', 'moving'],
    [status('start', 'enabled', 'disabled'), 'direct', 'moving'],
    [status('validation', 'enabled', 'enabled'), 'validation', 'settled'],
    [status('start', 'enabled', 'disabled'), 'validation', 'moving'],
    [status('complete', 'disabled', 'enabled'), 'validation', 'off'],
    [status('pending', 'enabled', 'enabled'), 'validation', 'off'],
  ] as const)('progress of %j toward %s: %s', (given, mode, kind) => {
    expect(assessProgress(given, mode).kind).toBe(kind);
  });

  test.each([
    ['start', 'direct', 'direct'],
    ['start', 'validation', 'validation'],
    ['validation', 'direct', 'validation'],
    ['pending', 'validation', 'direct'],
    ['complete', 'validation', 'direct'],
  ] as const)('the mode of state %s (recorded %s) is %s', (state, recorded, mode) => {
    expect(modeOfState(state, recorded)).toBe(mode);
  });

  test('one progress line per poll', () => {
    expect(progressLine(zoneId, status('pending', 'enabled', 'enabled'), 'direct', 12_400, 900_000)).toBe(
      `zoneguard: WafMigration zone ${zoneId}: migration_state pending (previous WAF enabled, new WAF enabled), waiting for complete (12s of 900s)`,
    );
    expect(progressLine(zoneId, status('complete', 'disabled', 'enabled'), 'direct', 1_200, 900_000)).toBe(
      `zoneguard: WafMigration zone ${zoneId}: migration_state complete (previous WAF disabled, new WAF enabled), settled after 1s`,
    );
  });
});

describe('check refusals (transitionFailures)', () => {
  const olds = { zoneId, mode: 'direct', adjustments: NO_ADJUSTMENTS, wait: DEFAULT_WAIT };
  const validationOlds = { ...olds, mode: 'validation' };
  const withAdjustment = { rules: [{ rulesetId: MANAGED_RULESET_ID, ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }], categories: [] };
  test.each([
    ['a create has nothing to compare', {}, { zoneId: otherZone, mode: 'validation' }, []],
    ['nothing changed', olds, olds, []],
    ['another zone', olds, { ...olds, zoneId: otherZone }, ['zoneId']],
    ['another zone, not known yet, passes the preview', olds, { ...olds, zoneId: PREVIEW_UNKNOWN }, []],
    ['back to validation after direct', olds, { ...olds, mode: 'validation' }, ['mode']],
    ['adjustments after direct', olds, { ...olds, adjustments: withAdjustment }, ['adjustments']],
    ['zone and mode at once: one failure each', olds, { ...olds, zoneId: otherZone, mode: 'validation' }, ['zoneId', 'mode']],
    ['validation to direct is the way forward', validationOlds, { ...validationOlds, mode: 'direct', adjustments: withAdjustment }, []],
    ['adjustments while in validation', validationOlds, { ...validationOlds, adjustments: withAdjustment }, []],
  ])('%s', (_name, old, news, properties) => {
    expect(transitionFailures(old, news).map((f) => f.property)).toEqual(properties);
  });

  test('the messages say the migration cannot be undone and how to proceed', () => {
    const [zone, mode] = transitionFailures(olds, { ...olds, zoneId: otherZone, mode: 'validation' });
    const drop =
      'to drop this resource from the stack without touching the zone, set the resource options protect: false and ' +
      'retainOnDelete: true and run pulumi up, or run pulumi state delete <urn> (the urn is shown by pulumi stack --show-urns)';
    expect(zone?.reason).toBe(
      `WafMigration.zoneId: this resource migrated zone ${zoneId} and cannot move to zone ${otherZone}: a WAF migration cannot be ` +
        `undone, so the resource stays bound to its zone. Declare a new WafMigration resource for zone ${otherZone}, and keep ` +
        `zoneId ${zoneId} here; ${drop}`,
    );
    expect(mode?.reason).toBe(
      `WafMigration.mode: zone ${zoneId} migrated directly to the new WAF managed rules and cannot go back to validation: ` +
        `the migration cannot be undone. Keep mode: 'direct'; ${drop}`,
    );
    const [adjusted] = transitionFailures(olds, { ...olds, adjustments: withAdjustment });
    expect(adjusted?.reason).toMatch(/^WafMigration\.adjustments: zone a{32} migrated directly, so adjustments can no longer be submitted: the migration cannot be undone or repeated\./);
    expect(adjusted?.reason).toContain('manage the new WAF\'s http_request_firewall_managed entry point with a WafManagedRules resource (dependsOn this migration');
    expect(adjusted?.reason).toContain(`zoneguard export --zone ${zoneId} writes it with the rules the zone holds`);
  });
});

describe('diffWafMigration', () => {
  const outs = { zoneId, mode: 'validation', adjustments: NO_ADJUSTMENTS, wait: DEFAULT_WAIT, migrationState: 'validation' };
  const withAdjustment = { rules: [{ rulesetId: MANAGED_RULESET_ID, ruleId: '5de7edfa648c4d6891dc3e7f84534ffa', action: 'log' }], categories: [] };
  test.each([
    ['nothing changed', outs, {}, []],
    ['wait settings are never a change', outs, { wait: { timeoutSeconds: 60, pollIntervalSeconds: 1 } }, []],
    ['validation to direct', outs, { mode: 'direct' }, ['mode']],
    ['adjustments', outs, { adjustments: withAdjustment }, ['adjustments']],
    ['another zone is a change, never a replacement', outs, { zoneId: otherZone }, ['zoneId']],
    ['a direct migration recorded as still pending waits again', { ...outs, mode: 'direct', migrationState: 'pending' }, { mode: 'direct' }, ['migrationState']],
    ['a validation recorded as settled', { ...outs, migrationState: 'validation' }, {}, []],
  ])('%s', (_name, olds, change, changed) => {
    const news = { zoneId, mode: 'validation', adjustments: NO_ADJUSTMENTS, wait: DEFAULT_WAIT, ...change };
    const diff = diffWafMigration(olds, news);
    expect(diff.changed).toEqual(changed);
    expect(diff.changes).toBe(changed.length > 0);
    expect(diff.replaces).toEqual([]);
  });

  test.each([
    [{ mode: 'direct', migrationState: 'complete' }, false],
    [{ mode: 'direct', migrationState: 'pending' }, true],
    [{ mode: 'validation', migrationState: 'validation' }, false],
    [{ mode: 'validation', migrationState: 'start' }, true],
    [{ mode: 'direct' }, false],
  ])('isUnsettled(%j) is %s', (outputs, unsettled) => {
    expect(isUnsettled(outputs)).toBe(unsettled);
  });
});

describe('inputs schema', () => {
  test('defaults', () => {
    expect(WafMigrationArgsSchema.parse({ zoneId, mode: 'direct' })).toEqual({
      zoneId,
      mode: 'direct',
      adjustments: { rules: [], categories: [] },
      wait: { timeoutSeconds: 900, pollIntervalSeconds: 5 },
    });
    expect(WafMigrationArgsSchema.parse({ zoneId, mode: 'direct', wait: { timeoutSeconds: 1 } }).wait).toEqual({ timeoutSeconds: 1, pollIntervalSeconds: 5 });
  });
});

describe('messages', () => {
  const refusal = (code: number, message: string, status = 400) =>
    new BadRequestError(`PUT /zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint failed: HTTP ${status}: ${code} ${message}`, {
      method: 'PUT',
      path: '/p',
      status,
      errors: [{ code, message }],
    });
  test('validationRefusal: the plan refusal code gets the clear message', () => {
    const message = validationRefusal(zoneId, refusal(10033, 'waf_migration: validation mode is available to Enterprise zones only'));
    expect(message).toMatch(new RegExp(`^WafMigration of zone ${zoneId}: validation mode is available to Enterprise zones only, and the service refused it for this zone \\(`));
    expect(message).toContain("Nothing was changed. Pro and Business zones migrate directly: declare mode: 'direct'");
  });

  test.each([
    ['a refusal naming Enterprise without the code (codes decide, not message text)', refusal(1004, 'validation requires an Enterprise plan')],
    ['another refusal', refusal(10031, 'zone cannot migrate')],
    ['a server error', new ServerError('HTTP 500 enterprise', { method: 'PUT', path: '/p', status: 500 })],
    ['not a client error', new Error('enterprise')],
  ])('validationRefusal: %s gets no message of its own', (_name, error) => {
    expect(validationRefusal(zoneId, error)).toBeUndefined();
  });

  test('incompatibility names each URI-based override and the operation that deletes it', () => {
    const incompatibility = incompatibilityOf(zoneId, [
      { id: '1'.repeat(32), description: 'upload', urls: ['api.example.com/upload/*'], rules: { '100015': 'disable' } },
      { id: '2'.repeat(32), urls: [] },
    ]);
    expect(incompatibility).toEqual({
      reason:
        `zone ${zoneId} cannot migrate: it has 2 URI-based WAF overrides (${'1'.repeat(32)} for api.example.com/upload/*; ${'2'.repeat(32)}); ` +
        `delete each with DELETE /zones/${zoneId}/firewall/waf/overrides/{id} (client.wafOverrides.delete({ zoneId, overrideId })), then run pulumi up again`,
      overrides: [
        { id: '1'.repeat(32), description: 'upload', urls: ['api.example.com/upload/*'] },
        { id: '2'.repeat(32), description: null, urls: [] },
      ],
      deleteOperation: `DELETE /zones/${zoneId}/firewall/waf/overrides/{id} (client.wafOverrides.delete({ zoneId, overrideId }))`,
    });
    expect(incompatibilityOf(zoneId, []).reason).toMatch(/has no URI-based WAF override to delete; contact support$/);
  });

  test('problems before submitting come as one message, one line each', () => {
    expect(notSubmittedMessage(zoneId, { problems: ['one', 'two'] })).toBe(
      `WafMigration of zone ${zoneId}: the migration was not submitted and the zone is unchanged:\n  - one\n  - two`,
    );
  });
});

describe('resource options', () => {
  test.each([
    ['protected by default', undefined, { protect: true }],
    ['other options kept', { retainOnDelete: true }, { retainOnDelete: true, protect: true }],
    ['the program may unprotect it', { protect: false }, { protect: false }],
  ])('%s', (_name, opts, expected) => {
    expect(wafMigrationOptions(opts)).toEqual(expected);
  });
});
