import type { Stack } from '@pulumi/pulumi/automation';
import { ZoneGuardClient } from '../../src/client';
import { CustomRule, type CustomRuleArgs } from '../../src/resources/custom-rule';
import { RateLimitRule, type RateLimitRuleArgs } from '../../src/resources/rate-limit-rule';
import { CUSTOM_PHASE, RATELIMIT_PHASE, type RulesetRule } from '../../src/schemas';
import { splitMarked } from '../../src/schemas/owner-marker';
import { testClient, writesOf, zoneOfPlan } from '../support/emulator';
import { engineFailure, openSandbox, previewDiff, type EngineSandbox } from './harness';

// The real engine against the emulator: two stacks each own custom rules and rate limiting rules in one zone, with a
// rule added by hand between theirs. Each stack creates, updates, reorders and deletes its own rules with the
// per-rule endpoints; neither ever changes or removes a rule it does not hold; refresh finds a field and a place
// changed by hand, up puts them back, and the next previews are clean.
jest.setTimeout(300_000);

let sandbox: EngineSandbox;
let client: ZoneGuardClient;
let zoneId: string;
let alpha: Stack;
let beta: Stack;

type Rule = Omit<CustomRuleArgs, 'zoneId'>;
type Limit = Omit<RateLimitRuleArgs, 'zoneId'>;

// Each program reads its object, so each step declares a new desired state.
const alphaRules: Record<string, Rule> = {
  'alpha-office': { action: 'skip', expression: 'ip.src in {192.0.2.0/24}', ref: 'alpha-office', skip: { ruleset: 'current' }, position: { first: true } },
  'alpha-admin': { action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'alpha-admin' },
};
const alphaLimits: Record<string, Limit> = {
  'alpha-login': {
    action: 'block',
    expression: '(http.request.uri.path eq "/login")',
    ref: 'alpha-login',
    ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
  },
};
const betaRules: Record<string, Rule> = {
  'beta-bots': { action: 'managed_challenge', expression: 'cf.client.bot', ref: 'beta-bots' },
  'beta-log': { action: 'log', expression: '(http.request.uri.path contains "/api")', ref: 'beta-log' },
};
const betaLimits: Record<string, Limit> = {
  'beta-api': {
    action: 'managed_challenge',
    expression: '(http.request.uri.path contains "/api")',
    ref: 'beta-api',
    ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 10, requestsPerPeriod: 50, mitigationTimeout: 0 },
  },
};

const program = (rules: Record<string, Rule>, limits: Record<string, Limit>) => async () => {
  for (const [name, args] of Object.entries(rules)) new CustomRule(name, { zoneId, ...args });
  for (const [name, args] of Object.entries(limits)) new RateLimitRule(name, { zoneId, ...args });
  return {};
};

/** The zone's rules of `phase`, in the order they run. */
async function live(phase: typeof CUSTOM_PHASE | typeof RATELIMIT_PHASE = CUSTOM_PHASE): Promise<RulesetRule[]> {
  return (await client.rulesets.getEntrypoint({ zoneId, phase })).rules;
}
/** A rule's ref as its owner declared it: without the owner marker zoneguard writes after it (docs/ownership.md). */
const ownRef = (rule: RulesetRule) => splitMarked(rule.ref).own;
const refsOf = (rules: RulesetRule[]) => rules.map(ownRef);

/** The writes the emulator received since the last call, in order, as `METHOD path` with ids as :id (dry runs marked). */
async function writes(): Promise<string[]> {
  const written = await writesOf(sandbox.emulator, { path: 'belowApi', ids: true, dryRuns: 'marked' });
  await sandbox.emulator.admin.clearRequests();
  return written;
}

async function clean(...stacks: Stack[]): Promise<void> {
  for (const stack of stacks) await stack.preview({ expectNoChanges: true, color: 'never' });
}

beforeAll(async () => {
  sandbox = await openSandbox('custom-rules');
  zoneId = zoneOfPlan(sandbox.emulator, 'business');
  client = testClient(sandbox.emulator);
  alpha = await sandbox.stack('alpha', program(alphaRules, alphaLimits));
  beta = await sandbox.stack('beta', program(betaRules, betaLimits));
});
afterAll(() => sandbox?.close());

let byHand: RulesetRule;
/** Beta's custom rules in the order they were created. */
let betaOrder: Array<string | undefined>;

test('two stacks create their rules in one zone with per-rule writes; a rule added by hand between them stays', async () => {
  await alpha.up({ color: 'never' });
  const rulesetId = (await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).id;
  const saved = await client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'block', expression: '(http.request.uri.path eq "/wp-login.php")', ref: 'by-hand' } });
  byHand = saved.rules.find((rule) => ownRef(rule) === 'by-hand')!;
  await sandbox.emulator.admin.clearRequests();
  const up = await beta.up({ color: 'never' });
  expect(up.summary.resourceChanges).toMatchObject({ create: 5 }); // the stack, its owner id and its three rules
  // Alpha made both entry points; beta's creates are one POST each.
  expect(await writes()).toEqual(Array(3).fill('POST /zones/:id/rulesets/:id/rules'));
  // Beta's two rules are created side by side: each is added last, in the order the engine ran them.
  betaOrder = refsOf(await live()).slice(3);
  expect([...betaOrder].sort()).toEqual(['beta-bots', 'beta-log']);
  expect(refsOf(await live()).slice(0, 3)).toEqual(['alpha-office', 'alpha-admin', 'by-hand']);
  expect(refsOf(await live(RATELIMIT_PHASE)).sort()).toEqual(['alpha-login', 'beta-api']);
  expect((await live()).find((rule) => ownRef(rule) === 'by-hand')).toEqual(byHand);
  // Each stack's rule carries its resource's owner marker after the declared ref; the rule added by hand has none.
  const markers = new Map([...(await live()), ...(await live(RATELIMIT_PHASE))].map((rule) => [ownRef(rule), splitMarked(rule.ref).marker]));
  expect(markers.get('by-hand')).toBeUndefined();
  const owned = [...markers].filter(([ref]) => ref !== 'by-hand').map(([, marker]) => marker);
  expect(owned).toEqual(owned.map(() => expect.stringMatching(/^zg:[0-9a-f]{10}$/)));
  expect(new Set(owned).size).toBe(owned.length);
  await clean(alpha, beta);
});

test('an update is a PATCH of that rule alone; the preview of a change the service refuses fails on that resource', async () => {
  alphaRules['alpha-admin'] = { ...alphaRules['alpha-admin']!, action: 'managed_challenge' };
  betaLimits['beta-api'] = { ...betaLimits['beta-api']!, ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 10, requestsPerPeriod: 80, mitigationTimeout: 0 } };
  const { text } = await previewDiff(alpha);
  expect(text).toMatch(/~ action\s*:\s*"block" => "managed_challenge"/);
  await alpha.up({ color: 'never' });
  await beta.up({ color: 'never' });
  expect((await live()).find((rule) => ownRef(rule) === 'alpha-admin')).toMatchObject({ action: 'managed_challenge' });
  expect((await live(RATELIMIT_PHASE)).find((rule) => ownRef(rule) === 'beta-api')).toMatchObject({ ratelimit: { requests_per_period: 80 } });
  expect((await live()).find((rule) => ownRef(rule) === 'by-hand')).toEqual(byHand);

  // A ref another rule of the phase holds: the local check cannot know it, the service's dry run refuses it. The dry
  // run sends the ref as the update would, with beta's owner marker, so the rule holding it here is one copied by
  // hand with the ref beta-log would take ("copied" and beta-log's marker).
  const betaLog = (await live()).find((rule) => ownRef(rule) === 'beta-log')!;
  const { id: rulesetId } = await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE });
  const copied = await client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: `copied ${splitMarked(betaLog.ref).marker}` } });
  betaRules['beta-log'] = { ...betaRules['beta-log']!, ref: 'copied' };
  let output = '';
  await expect(beta.preview({ color: 'never', onOutput: (out) => (output += out) })).rejects.toThrow();
  expect(output).toMatch(/CustomRule 'beta-log' [0-9a-f]{32} in zone [0-9a-f]{32}: the service refuses this change \(checked with dry_run, nothing was changed\)/);
  betaRules['beta-log'] = { ...betaRules['beta-log']!, ref: 'beta-log' };
  await client.rulesets.deleteRule({ zoneId, rulesetId, ruleId: copied.rules.at(-1)!.id! });
  await clean(alpha, beta);
});

test('a rule made by hand carrying a ref a program places against: the preview fails on that resource, naming both rules, and writes nothing', async () => {
  const rulesetId = (await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).id;
  const copy = (await client.rulesets.createRule({ zoneId, rulesetId, rule: { action: 'log', expression: 'true', ref: 'alpha-office' } })).rules.at(-1)!;
  const office = (await live()).find((rule) => ownRef(rule) === 'alpha-office' && rule.id !== copy.id)!;
  alphaRules['alpha-api'] = { action: 'block', expression: '(http.request.uri.path eq "/api/admin")', ref: 'alpha-api', position: { after: 'alpha-office' } };
  await sandbox.emulator.admin.clearRequests();
  const refused = await engineFailure((onOutput) => alpha.preview({ color: 'never', onOutput }));
  expect(refused).toMatch(
    new RegExp(
      `CustomRule 'alpha-api' in zone ${zoneId}: position names "alpha-office", the ref of 2 rules of the zone's ${CUSTOM_PHASE} phase, so it cannot say which: ` +
        `${office.id} \\(ref "${office.ref}", marker zg:[0-9a-f]{10}: (a resource of this stack|another owner's)\\), ${copy.id} \\(ref "alpha-office", unmarked: made by hand or by another tool\\); ` +
        "name the one meant by its id",
    ),
  );
  expect(await writes()).toEqual([]);
  delete alphaRules['alpha-api'];
  await client.rulesets.deleteRule({ zoneId, rulesetId, ruleId: copy.id! });
  await clean(alpha, beta);
});

test('a declared place moves the rule; a rule moved and changed by hand is found by refresh and put back by up', async () => {
  alphaRules['alpha-admin'] = { ...alphaRules['alpha-admin']!, position: { after: 'by-hand' } };
  await sandbox.emulator.admin.clearRequests();
  // The preview's check by the service (the diff's dry run), naming the rule of another owner the move passes over
  // among the stack's diagnostics (with --diff, on the CLI's standard error).
  let moving = '';
  await alpha.preview({ color: 'never', onOutput: (out) => (moving += out) });
  expect(await writes()).toEqual(['PATCH (dry run) /zones/:id/rulesets/:id/rules/:id']);
  expect(moving).toMatch(
    /CustomRule 'alpha-admin' [0-9a-f]{32} in zone [0-9a-f]{32}: the up moves it to 3 of 5 in the zone's http_request_firewall_custom phase \(position \{"after":"by-hand"\}\), past 1 rule of other owners, whose order against it changes: "by-hand" \(unmarked\)/,
  );
  // The up's write is the service's check: the move alone.
  await alpha.up({ color: 'never' });
  expect(await writes()).toEqual(['PATCH /zones/:id/rulesets/:id/rules/:id']);
  expect(refsOf(await live())).toEqual(['alpha-office', 'by-hand', 'alpha-admin', ...betaOrder]);

  // By hand: the skip moved to the end and disabled.
  const office = (await live()).find((rule) => ownRef(rule) === 'alpha-office')!;
  const rulesetId = (await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).id;
  await client.rulesets.updateRule({ zoneId, rulesetId, ruleId: office.id!, rule: { enabled: false }, position: { index: 5 } });
  expect(refsOf(await live()).at(-1)).toBe('alpha-office');
  await alpha.refresh({ color: 'never' });
  const { text, summary } = await previewDiff(alpha);
  expect(summary).toMatchObject({ update: 1 });
  expect(text).toMatch(/~ enabled\s*:\s*false => true/);
  expect(text).toMatch(/position/);
  await alpha.up({ color: 'never' });
  expect(refsOf(await live())).toEqual(['alpha-office', 'by-hand', 'alpha-admin', ...betaOrder]);
  expect((await live()).find((rule) => ownRef(rule) === 'alpha-office')).toMatchObject({ enabled: true });
  expect((await live()).find((rule) => ownRef(rule) === 'by-hand')).toEqual(byHand);
  await clean(alpha, beta);
});

test("a preview checks each create with the service: in a zone without an entry point the one over the quota, and one the zone is not entitled to, fail on their resource's line; a create is one call", async () => {
  // A free zone (5 custom rules) with no custom entry point yet, and a third stack declaring six rules.
  const freeZone = zoneOfPlan(sandbox.emulator, 'free');
  const names = ['one', 'two', 'three', 'four', 'five', 'six'];
  const declared: Record<string, Rule & { zoneId: string }> = Object.fromEntries(
    names.map((name) => [name, { zoneId: freeZone, action: 'block', expression: `(http.request.uri.path eq "/${name}")`, ref: name }]),
  );
  const gamma = await sandbox.stack('gamma', async () => {
    for (const [name, args] of Object.entries(declared)) new CustomRule(name, args);
    return {};
  });
  const calls = async () => {
    const requests = await sandbox.emulator.admin.requests();
    await sandbox.emulator.admin.clearRequests();
    return requests.map((r) => `${r.method}${r.query.dry_run === 'true' ? ' (dry run)' : ''} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]{32}/, '').replace(/[0-9a-f]{32}/g, ':id')}`);
  };
  const entrypoint = `/rulesets/phases/${CUSTOM_PHASE}/entrypoint`;
  await sandbox.emulator.admin.clearRequests();

  // The engine checks the creates one at a time, in the order their registrations reach it. Each sends the
  // create-only write of the entry point as the preview's creates so far would leave it (a dry run saves nothing):
  // the one checked sixth would leave 6 rules, and the preview fails on its line, with the service's words.
  const over = await engineFailure((onOutput) => gamma.preview({ color: 'never', onOutput }));
  const refused = new RegExp(
    `CustomRule '(${names.join('|')})' in zone ${freeZone}: the service refuses this change \\(checked with dry_run, nothing was changed\\): POST /zones/${freeZone}/rulesets failed: HTTP 400 Bad Request: 1004 rules: the ${CUSTOM_PHASE} phase of zone ${freeZone} \\(free plan\\) allows 5 rules; this write would leave 6`,
  ).exec(over);
  expect(refused).not.toBeNull();
  for (const passed of names.filter((name) => name !== refused![1])) expect(over).not.toMatch(new RegExp(`CustomRule '${passed}' in zone`));
  // One read of the zone's entry point, then one call per create; never a PUT.
  expect(await calls()).toEqual([`GET ${entrypoint}`, ...Array(6).fill('POST (dry run) /rulesets')]);
  await expect(client.rulesets.getEntrypoint({ zoneId: freeZone, phase: CUSTOM_PHASE })).rejects.toThrow('has no http_request_firewall_custom entry point');
  await sandbox.emulator.admin.clearRequests();

  delete declared[refused![1]!];
  await gamma.preview({ color: 'never' });
  expect(await calls()).toEqual([`GET ${entrypoint}`, ...Array(5).fill('POST (dry run) /rulesets')]);
  // The up: one call per create, after one read of the zone's entry point; the first makes the entry point with the
  // create-only write, the others POST themselves to it; no dry run.
  await gamma.up({ color: 'never' });
  expect(await calls()).toEqual([`GET ${entrypoint}`, 'POST /rulesets', ...Array(4).fill('POST /rulesets/:id/rules')]);
  // An unchanged resource costs the preview no call.
  await gamma.preview({ expectNoChanges: true, color: 'never' });
  expect(await calls()).toEqual([]);

  // The bot score, which the local checker accepts: the business zone (which has an entry point: the create's own
  // POST is the dry run) is not entitled to it.
  declared.bots = { zoneId, action: 'block', expression: 'cf.bot_management.score lt 30', ref: 'bots' };
  const unentitled = await engineFailure((onOutput) => gamma.preview({ color: 'never', onOutput }));
  expect(unentitled).toMatch(
    new RegExp(`CustomRule 'bots' in zone ${zoneId}: the service refuses this change \\(checked with dry_run, nothing was changed\\): POST .* cf\\.bot_management\\.score needs Bot Management, an add-on of the enterprise plan; this zone is on the business plan`),
  );
  delete declared.bots;
  await gamma.destroy({ color: 'never' });
  expect((await client.rulesets.getEntrypoint({ zoneId: freeZone, phase: CUSTOM_PHASE })).rules).toEqual([]);
  await clean(alpha, beta);
});

test("two stacks' first up on a zone without entry points, started together with 100 ms of latency: every rule of both is made, and the next preview of each is clean", async () => {
  const proZone = zoneOfPlan(sandbox.emulator, 'pro');
  const team = (name: string) =>
    sandbox.stack(name, async () => {
      new CustomRule(`${name}-admin`, { zoneId: proZone, action: 'block', expression: `(http.request.uri.path eq "/${name}/admin")`, ref: `${name}-admin` });
      new CustomRule(`${name}-api`, { zoneId: proZone, action: 'log', expression: `(http.request.uri.path eq "/${name}/api")`, ref: `${name}-api` });
      new RateLimitRule(`${name}-login`, {
        zoneId: proZone,
        action: 'block',
        expression: `(http.request.uri.path eq "/${name}/login")`,
        ref: `${name}-login`,
        ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
      });
      return {};
    });
  const [delta, epsilon] = [await team('delta'), await team('epsilon')];
  await sandbox.emulator.admin.clearRequests();
  await sandbox.emulator.admin.setFaults({ latencyMs: 100 });
  try {
    await Promise.all([delta.up({ color: 'never' }), epsilon.up({ color: 'never' })]);
  } finally {
    await sandbox.emulator.admin.clearFaults();
  }
  const custom = refsOf((await client.rulesets.getEntrypoint({ zoneId: proZone, phase: CUSTOM_PHASE })).rules);
  const limits = refsOf((await client.rulesets.getEntrypoint({ zoneId: proZone, phase: RATELIMIT_PHASE })).rules);
  expect([...custom].sort()).toEqual(['delta-admin', 'delta-api', 'epsilon-admin', 'epsilon-api']);
  expect([...limits].sort()).toEqual(['delta-login', 'epsilon-login']);
  // Never a PUT of an entry point: each phase's first rules went through the create-only write.
  expect((await writes()).filter((write) => write.startsWith('PUT'))).toEqual([]);
  await clean(delta, epsilon);
  await delta.destroy({ color: 'never' });
  await epsilon.destroy({ color: 'never' });
  expect((await client.rulesets.getEntrypoint({ zoneId: proZone, phase: CUSTOM_PHASE })).rules).toEqual([]);
});

test('a stack deletes only its own rules; destroy leaves the other owners\' and the rule added by hand', async () => {
  delete betaRules['beta-bots'];
  await beta.up({ color: 'never' });
  expect(refsOf(await live())).toEqual(['alpha-office', 'by-hand', 'alpha-admin', ...betaOrder.filter((ref) => ref !== 'beta-bots')]);
  await clean(alpha, beta);
  await alpha.destroy({ color: 'never' });
  expect(refsOf(await live())).toEqual(['by-hand', 'beta-log']);
  expect(refsOf(await live(RATELIMIT_PHASE))).toEqual(['beta-api']);
  await beta.destroy({ color: 'never' });
  expect(await live()).toEqual([byHand]);
  expect(await live(RATELIMIT_PHASE)).toEqual([]);
});
