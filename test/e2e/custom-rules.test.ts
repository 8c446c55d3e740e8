import type { Stack } from '@pulumi/pulumi/automation';
import { ZoneGuardClient } from '../../src/client';
import { CustomRule, type CustomRuleArgs } from '../../src/resources/custom-rule';
import { RateLimitRule, type RateLimitRuleArgs } from '../../src/resources/rate-limit-rule';
import { CUSTOM_PHASE, RATELIMIT_PHASE, type RulesetRule } from '../../src/schemas';
import { splitMarked } from '../../src/schemas/owner-marker';
import { testClient, zoneOfPlan } from '../support/emulator';
import { openSandbox, previewDiff, type EngineSandbox } from './harness';

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
  const requests = await sandbox.emulator.admin.requests();
  await sandbox.emulator.admin.clearRequests();
  return requests
    .filter((request) => request.method !== 'GET')
    .map((request) => `${request.method}${request.query.dry_run === 'true' ? ' (dry run)' : ''} ${request.path.replace(/^\/client\/v4/, '').replace(/[0-9a-f]{32}/g, ':id')}`);
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
  expect(up.summary.resourceChanges).toMatchObject({ create: 4 }); // the stack and its three rules
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

test('a declared place moves the rule; a rule moved and changed by hand is found by refresh and put back by up', async () => {
  alphaRules['alpha-admin'] = { ...alphaRules['alpha-admin']!, position: { after: 'by-hand' } };
  await sandbox.emulator.admin.clearRequests();
  await alpha.up({ color: 'never' });
  // The preview's check by the service (the diff's dry run), then the move.
  expect(await writes()).toEqual(['PATCH (dry run) /zones/:id/rulesets/:id/rules/:id', 'PATCH /zones/:id/rulesets/:id/rules/:id']);
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
