import * as pulumi from '@pulumi/pulumi';
import type { LocalWorkspace, PulumiFn, Stack } from '@pulumi/pulumi/automation';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { WafMigration } from '../../src/resources/waf-migration';
import { engine, freshZone, unique } from '../resilience/support';
import { writesOf } from '../support/emulator';
import { holdsServiceObject, openSandbox, type EngineSandbox } from './harness';

// Who owns what, through the real engine against the emulator (README, "Who owns what"): a resource holds only the
// object it created or the one its adopt…Id names; identical declarations get an object each; a rename keeps its
// object through `aliases`; an adoption in the same run as the old resource's removal never ends in a deletion; a
// refresh through a wrong base URL forgets nothing; a migration whose answer was lost is recorded.
jest.setTimeout(300_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('ownership');
});
afterAll(() => sandbox?.close());

const TWIN = { action: 'log', expression: 'http.host eq "twin.ownership.example"', value: "script-src 'self'", description: 'twin' } as const;

/** CSP policies declared identically under each of `names()`; the outputs are their ids by name. */
function twins(zoneId: string, names: () => string[]): PulumiFn {
  return async () => Object.fromEntries(names().map((name) => [name, new CspPolicy(name, { zoneId, ...TWIN }).policyId]));
}

const policyIds = async (zoneId: string) => (await sandbox.emulator.admin.inventory(zoneId)).cspPolicies.map((p) => p.id).sort();
const ruleIds = async (zoneId: string) => (await sandbox.emulator.admin.inventory(zoneId)).firewallRules.map((r) => r.id).sort();
const idOf = (outputs: Record<string, { value: unknown }>, name: string) => String(outputs[name]?.value);
/** The resources of the stack's state as [name, id], the stack itself left out. */
async function held(stack: Stack): Promise<Array<[string, string | undefined]>> {
  const resources = ((await stack.exportStack()).deployment.resources ?? []) as Array<{ urn: string; type: string; id?: string }>;
  return resources.filter(holdsServiceObject).map((r) => [r.urn.split('::').pop()!, r.id]);
}
/** Requests that change something, as `METHOD path`. */
const writes = () => writesOf(sandbox.emulator);

describe('identical CSP policies', () => {
  test('two in one stack: each gets, keeps and removes its own policy through add, remove and destroy', async () => {
    const zoneId = await freshZone(sandbox.emulator, 'twins-one');
    let names = ['a', 'b'];
    const stack = await sandbox.stack(unique('twins-one'), twins(zoneId, () => names));

    const both = await stack.up({ color: 'never' });
    const [a, b] = [idOf(both.outputs, 'a'), idOf(both.outputs, 'b')];
    expect(a).not.toBe(b);
    expect(await policyIds(zoneId)).toEqual([a, b].sort());

    names = ['a'];
    await stack.up({ color: 'never' });
    expect(await policyIds(zoneId)).toEqual([a]);
    await stack.refresh({ color: 'never' });
    expect(await held(stack)).toEqual([['a', a]]);
    await stack.preview({ expectNoChanges: true, color: 'never' });

    names = ['a', 'c'];
    const added = await stack.up({ color: 'never' });
    const c = idOf(added.outputs, 'c');
    expect([a, b]).not.toContain(c);
    expect(await policyIds(zoneId)).toEqual([a, c].sort());

    await stack.destroy({ color: 'never' });
    expect(await policyIds(zoneId)).toEqual([]);
  });

  test('one in each of two stacks on one zone: destroying one stack leaves the other its policy, and its refresh finds it', async () => {
    const zoneId = await freshZone(sandbox.emulator, 'twins-two');
    const first = await sandbox.stack(unique('twins-first'), twins(zoneId, () => ['p']));
    const second = await sandbox.stack(unique('twins-second'), twins(zoneId, () => ['p']));
    const p1 = idOf((await first.up({ color: 'never' })).outputs, 'p');
    const p2 = idOf((await second.up({ color: 'never' })).outputs, 'p');
    expect(p1).not.toBe(p2);
    expect(await policyIds(zoneId)).toEqual([p1, p2].sort());

    await second.destroy({ color: 'never' });
    expect(await policyIds(zoneId)).toEqual([p1]);
    await first.refresh({ color: 'never' });
    expect(await held(first)).toEqual([['p', p1]]);
    await first.preview({ expectNoChanges: true, color: 'never' });

    await first.destroy({ color: 'never' });
    expect(await policyIds(zoneId)).toEqual([]);
  });
});

describe('a firewall rule renamed with the same expression', () => {
  const expression = '(http.request.uri.path eq "/renamed")';
  const ruleStack = async (label: string, declare: () => { name: string; aliases?: string[]; adoptRuleId?: string; takeOver?: boolean }) => {
    const zoneId = await freshZone(sandbox.emulator, label);
    const stack = await sandbox.stack(unique(label), async () => {
      const { name, aliases, adoptRuleId, takeOver } = declare();
      const rule = new FirewallRuleWithFilter(name, { zoneId, expression, action: 'block', adoptRuleId, takeOver }, { aliases: aliases?.map((alias) => ({ name: alias })) });
      return { ruleId: rule.ruleId };
    });
    return { zoneId, stack };
  };

  test('without aliases the up fails naming aliases and changes nothing; with aliases it is a no-op', async () => {
    let declared: { name: string; aliases?: string[] } = { name: 'old' };
    const { zoneId, stack } = await ruleStack('rename', () => declared);
    const ruleId = idOf((await stack.up({ color: 'never' })).outputs, 'ruleId');

    declared = { name: 'new' };
    await sandbox.emulator.admin.clearRequests();
    const refused = await engine((opts) => stack.up(opts));
    expect(refused.ok).toBe(false);
    const message = refused.resourceErrors.map((e) => e.message).join('\n');
    expect(message).toContain(`FirewallRuleWithFilter 'new' in zone ${zoneId}: firewall rule ${ruleId} of this zone already matches this expression`);
    expect(message).toContain(': 10102 ');
    expect(message).toContain("give it its old name as an alias, and the rule stays as it is: { aliases: [{ name: '<old name>' }] } in its resource options");
    // The refused create was the only write, and the old resource still holds the rule.
    expect(await writes()).toEqual([`POST /client/v4/zones/${zoneId}/firewall/rules`]);
    expect(await ruleIds(zoneId)).toEqual([ruleId]);
    expect(await held(stack)).toEqual([['old', ruleId]]);

    declared = { name: 'new', aliases: ['old'] };
    await sandbox.emulator.admin.clearRequests();
    const renamed = await stack.up({ color: 'never' });
    expect(Object.keys(renamed.summary.resourceChanges ?? {})).toEqual(['same']);
    expect(await writes()).toEqual([]);
    expect(await held(stack)).toEqual([['new', ruleId]]);
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('adopting the rule in the same up that removes its old resource: refused without takeOver; with it the delete is skipped, naming both, and the rule stays', async () => {
    let declared: { name: string; adoptRuleId?: string; takeOver?: boolean } = { name: 'old' };
    const { zoneId, stack } = await ruleStack('adopt-delete', () => declared);
    const ruleId = idOf((await stack.up({ color: 'never' })).outputs, 'ruleId');
    const [filter] = (await sandbox.emulator.admin.inventory(zoneId)).filters;

    // The rule carries the marker of 'old': another resource, so a plain adoption is refused before any write.
    declared = { name: 'fresh', adoptRuleId: ruleId };
    await sandbox.emulator.admin.clearRequests();
    const refused = await engine((opts) => stack.up(opts));
    expect(refused.ok).toBe(false);
    expect(refused.resourceErrors.map((e) => e.message).join('\n')).toMatch(
      new RegExp(`FirewallRuleWithFilter 'fresh' ${ruleId} in zone ${zoneId}: adopting it: refused before any change: it is marked as held by another owner \\(marker zg:[0-9a-f]{10} .*add takeOver: true beside adoptRuleId`),
    );
    expect(await writes()).toEqual([]);
    expect(await held(stack)).toEqual([['old', ruleId]]);

    declared = { name: 'fresh', adoptRuleId: ruleId, takeOver: true };
    await sandbox.emulator.admin.clearRequests();
    const run = await engine((opts) => stack.up(opts));
    expect(run.ok).toBe(true);
    expect(run.output).toContain(
      `zoneguard: FirewallRuleWithFilter 'old': not deleting firewall rule ${ruleId}: FirewallRuleWithFilter 'fresh' holds it (adopted in this run)`,
    );
    // One write: the take-over moves the marker into the rule's ref.
    expect(await writes()).toEqual([`PUT /client/v4/zones/${zoneId}/firewall/rules/${ruleId}`]);
    const inventory = await sandbox.emulator.admin.inventory(zoneId);
    expect(inventory.firewallRules.map((r) => r.id)).toEqual([ruleId]);
    expect(inventory.filters).toEqual([filter]);
    expect(await held(stack)).toEqual([['fresh', ruleId]]);
    await stack.preview({ expectNoChanges: true, color: 'never' });
  });

  test('an adoption of a rule another resource of the deployment holds is refused before any write', async () => {
    const taker: { adopt?: string } = {};
    const zoneId = await freshZone(sandbox.emulator, 'adopt-held');
    const stack = await sandbox.stack(unique('adopt-held'), async () => {
      const holder = new FirewallRuleWithFilter('holder', { zoneId, expression, action: 'block' });
      // dependsOn: the holder's step (its diff) comes first, as it would whenever the holder is older in the stack.
      if (taker.adopt) new FirewallRuleWithFilter('taker', { zoneId, expression, action: 'log', adoptRuleId: taker.adopt }, { dependsOn: [holder] });
      return { ruleId: holder.ruleId };
    });
    const ruleId = idOf((await stack.up({ color: 'never' })).outputs, 'ruleId');

    taker.adopt = ruleId;
    await sandbox.emulator.admin.clearRequests();
    const run = await engine((opts) => stack.up(opts));
    expect(run.ok).toBe(false);
    expect(run.resourceErrors.map((e) => e.message).join('\n')).toContain(
      `FirewallRuleWithFilter 'taker': refused before any change: FirewallRuleWithFilter 'holder' of this deployment holds firewall rule ${ruleId} (in its state)`,
    );
    expect(await writes()).toEqual([]);
    expect(await sandbox.emulator.admin.inventory(zoneId)).toMatchObject({ firewallRules: [expect.objectContaining({ id: ruleId, action: 'block' })] });
    expect(await held(stack)).toEqual([['holder', ruleId]]);
  });
});

describe('switching a rule between the single-call and the two-call form by adoption in one up', () => {
  test('both ways, the rule and its filter keep their ids, nothing is deleted, and the next preview is clean', async () => {
    const zoneId = await freshZone(sandbox.emulator, 'switch-forms');
    const expression = '(http.request.uri.path eq "/switch")';
    let form: { kind: 'single'; adoptRuleId?: string } | { kind: 'two'; ruleId: string; filterId: string } = { kind: 'single' };
    // Each adoption takes over what the other form's resource marked as its own: takeOver (docs/firewall-and-migration.md#switching-forms).
    const stack = await sandbox.stack(unique('switch-forms'), async () => {
      if (form.kind === 'single') {
        const rule = new FirewallRuleWithFilter('block', { zoneId, expression, action: 'block', ...(form.adoptRuleId ? { adoptRuleId: form.adoptRuleId, takeOver: true } : {}) });
        return { ruleId: rule.ruleId, filterId: rule.filterId };
      }
      const filter = new FirewallFilter('block-filter', { zoneId, expression, adoptFilterId: form.filterId, takeOver: true });
      const rule = new FirewallRule('block-rule', { zoneId, filterId: filter.id, action: 'block', adoptRuleId: form.ruleId, takeOver: true });
      return { ruleId: rule.ruleId, filterId: filter.filterId };
    });
    const made = await stack.up({ color: 'never' });
    const [ruleId, filterId] = [idOf(made.outputs, 'ruleId'), idOf(made.outputs, 'filterId')];

    form = { kind: 'two', ruleId, filterId };
    await sandbox.emulator.admin.clearRequests();
    const toTwo = await stack.up({ color: 'never' });
    expect(toTwo.summary.resourceChanges).toMatchObject({ create: 2, delete: 1 });
    expect([idOf(toTwo.outputs, 'ruleId'), idOf(toTwo.outputs, 'filterId')]).toEqual([ruleId, filterId]);
    // The marker moves to the rule; the filter, locked to its single-call rule, refuses it and is held as it is.
    expect(await writes()).toEqual([`PUT /client/v4/zones/${zoneId}/filters/${filterId}`, `PUT /client/v4/zones/${zoneId}/firewall/rules/${ruleId}`]);
    expect(toTwo.stdout).toContain(`not deleting firewall rule ${ruleId}: FirewallRule 'block-rule' holds it (adopted in this run)`);
    await stack.preview({ expectNoChanges: true, color: 'never' });

    form = { kind: 'single', adoptRuleId: ruleId };
    await sandbox.emulator.admin.clearRequests();
    const toSingle = await stack.up({ color: 'never' });
    expect(toSingle.summary.resourceChanges).toMatchObject({ create: 1, delete: 2 });
    expect([idOf(toSingle.outputs, 'ruleId'), idOf(toSingle.outputs, 'filterId')]).toEqual([ruleId, filterId]);
    expect(await writes()).toEqual([`PUT /client/v4/zones/${zoneId}/firewall/rules/${ruleId}`]);
    await stack.preview({ expectNoChanges: true, color: 'never' });
    expect(await ruleIds(zoneId)).toEqual([ruleId]);

    await stack.destroy({ color: 'never' });
    expect(await ruleIds(zoneId)).toEqual([]);
    expect((await sandbox.emulator.admin.inventory(zoneId)).filters).toEqual([]);
  });
});

test('refresh through a wrong base URL (a route 404) fails naming zoneguard:baseUrl and leaves the state byte-identical', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'wrong-url');
  const stack = await sandbox.stack(unique('wrong-url'), async () => {
    new PageGuardSettings('settings', { zoneId, enabled: true });
    new CspPolicy('policy', { zoneId, ...TWIN });
    new FirewallRuleWithFilter('rule', { zoneId, expression: '(http.request.uri.path eq "/wrong-url")', action: 'block' });
    new WafMigration('waf', { zoneId, mode: 'direct', wait: { timeoutSeconds: 60, pollIntervalSeconds: 0.5 } });
  });
  // The base URL from the environment, as a CI job would set it: a plain refresh configures the providers with the
  // config recorded by the last up, but reads the environment of this run.
  await stack.removeConfig('zoneguard:baseUrl');
  const env = (stack.workspace as LocalWorkspace).envVars;
  env.ZONEGUARD_BASE_URL = sandbox.emulator.baseUrl;
  await stack.up({ color: 'never' });
  // What the state holds, byte for byte: every resource (id, inputs, outputs, timestamps...) and the pending
  // operations. Left out: the manifest (when the file was written), and propertyDependencies, the engine's own
  // bookkeeping, which the Pulumi CLI's refresh (v3.274, as v3.259) drops from the snapshot it writes back even when every read failed.
  const stateContent = async () => {
    const { deployment } = await stack.exportStack();
    const resources = (deployment.resources as Array<Record<string, unknown>>).map(({ propertyDependencies: _deps, ...rest }) => rest);
    return JSON.stringify({ resources, pending: deployment.pending_operations ?? [] });
  };
  const before = await stateContent();
  const origin = new URL(sandbox.emulator.baseUrl).origin;

  for (const wrong of [`${origin}/client/v3`, origin, `${sandbox.emulator.baseUrl}/extra`]) {
    env.ZONEGUARD_BASE_URL = wrong;
    const run = await engine((opts) => stack.refresh(opts));
    expect(run.ok).toBe(false);
    // Every read that ran failed on the route 404 and named the setting (the engine may stop scheduling after one).
    expect(run.resourceErrors.length).toBeGreaterThan(0);
    for (const { message } of run.resourceErrors) {
      expect(message).toContain('HTTP 404 Not Found: 7000 ');
      expect(message).toContain('check zoneguard:baseUrl (or ZONEGUARD_BASE_URL)');
    }
    expect(await stateContent()).toBe(before);
  }

  env.ZONEGUARD_BASE_URL = sandbox.emulator.baseUrl;
  await stack.refresh({ color: 'never' });
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

test('the migration entry point PUT answered upstream but lost on the way back: up records the resource with what it submitted', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'lost-put');
  const stack = await sandbox.stack(unique('lost-put'), async () => {
    const waf = new WafMigration('waf', { zoneId, mode: 'direct', wait: { timeoutSeconds: 60, pollIntervalSeconds: 0.5 } });
    return { migrationState: waf.migrationState, submittedRuleset: waf.submittedRuleset };
  });
  await sandbox.emulator.admin.setFaults({ loseAnswers: 1, match: { method: 'PUT', pathPrefix: `/zones/${zoneId}/rulesets` } });
  await sandbox.emulator.admin.clearRequests();
  const run = await engine((opts) => stack.up(opts));
  await sandbox.emulator.admin.clearFaults();
  expect(run.ok).toBe(true);
  expect(await writes()).toEqual([`PUT /client/v4/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`]);
  expect((await sandbox.emulator.admin.requests()).find((r) => r.method === 'PUT')).toMatchObject({ status: 502, fault: 'loseAnswers' });
  const outputs = await stack.outputs();
  expect(outputs.migrationState?.value).toBe('complete');
  // What was sent is recorded (the zone has no previous WAF rules to convert, so the ruleset holds none).
  expect(outputs.submittedRuleset?.value).toEqual({ name: 'default', rules: [] });
  expect(await held(stack)).toEqual([['waf', zoneId]]);
  await stack.preview({ expectNoChanges: true, color: 'never' });
});

describe('owner markers across stacks and components (docs/ownership.md)', () => {
  const MARKED = /zg:[0-9a-f]{10}/;

  test('two stacks, one rule and one policy: an adoption of what the other stack marked is refused before any write; with takeOver the marker moves, and each destroy in turn deletes only what it holds', async () => {
    const zoneId = await freshZone(sandbox.emulator, 'cross-stack');
    const expression = '(http.request.uri.path eq "/cross-stack")';
    const holder = await sandbox.stack(unique('cross-holder'), async () => {
      const rule = new FirewallRuleWithFilter('rule', { zoneId, expression, action: 'block' });
      const policy = new CspPolicy('policy', { zoneId, ...TWIN });
      return { ruleId: rule.ruleId, policyId: policy.policyId };
    });
    const made = await holder.up({ color: 'never' });
    const [ruleId, policyId] = [idOf(made.outputs, 'ruleId'), idOf(made.outputs, 'policyId')];

    const taking: { takeOver?: boolean } = {};
    const taker = await sandbox.stack(unique('cross-taker'), async () => {
      new FirewallRuleWithFilter('rule', { zoneId, expression, action: 'block', adoptRuleId: ruleId, ...taking });
      new CspPolicy('policy', { zoneId, ...TWIN, adoptPolicyId: policyId, ...taking });
      return {};
    });
    await sandbox.emulator.admin.clearRequests();
    const refused = await engine((opts) => taker.up(opts));
    expect(refused.ok).toBe(false);
    const messages = refused.resourceErrors.map((e) => e.message).join('\n');
    expect(messages).toMatch(new RegExp(`FirewallRuleWithFilter 'rule' ${ruleId} in zone ${zoneId}: adopting it: refused before any change: it is marked as held by another owner \\(marker zg:[0-9a-f]{10} `));
    expect(messages).toMatch(new RegExp(`CspPolicy 'policy' ${policyId} in zone ${zoneId}: adopting it: refused before any change`));
    expect(await writes()).toEqual([]);
    await holder.preview({ expectNoChanges: true, color: 'never' });

    taking.takeOver = true;
    await taker.up({ color: 'never' });
    // The holder's next update of either would be refused; its destroy leaves both, one line each.
    await sandbox.emulator.admin.clearRequests();
    const destroyed = await engine((opts) => holder.destroy(opts));
    expect(destroyed.ok).toBe(true);
    expect(destroyed.output).toMatch(new RegExp(`not deleting it: it is marked as held by another owner \\(marker ${MARKED.source}`));
    expect(await writes()).toEqual([]);
    expect(await ruleIds(zoneId)).toEqual([ruleId]);
    expect(await policyIds(zoneId)).toEqual([policyId]);

    await taker.destroy({ color: 'never' });
    expect(await ruleIds(zoneId)).toEqual([]);
    expect(await policyIds(zoneId)).toEqual([]);
  });

  test('a single-call rule beside an unused filter another stack holds leaves that filter alone and says whose it is', async () => {
    const zoneId = await freshZone(sandbox.emulator, 'foreign-filter');
    const expression = '(http.request.uri.path eq "/foreign-filter")';
    const filterStack = await sandbox.stack(unique('filter-owner'), async () => ({ filterId: new FirewallFilter('filter', { zoneId, expression }).filterId }));
    const filterId = idOf((await filterStack.up({ color: 'never' })).outputs, 'filterId');
    const ruleStack = await sandbox.stack(unique('rule-owner'), async () => {
      new FirewallRuleWithFilter('rule', { zoneId, expression, action: 'block' });
      return {};
    });
    await sandbox.emulator.admin.clearRequests();
    const run = await engine((opts) => ruleStack.up(opts));
    expect(run.ok).toBe(false);
    expect(run.resourceErrors.map((e) => e.message).join('\n')).toMatch(
      new RegExp(`filter ${filterId} of this zone already has this expression and no rule, and it is marked by another owner \\(${MARKED.source}\\)`),
    );
    // The refused single-call create was the only write; the other stack's filter is as it made it.
    expect(await writes()).toEqual([`POST /client/v4/zones/${zoneId}/firewall/rules`]);
    expect(await ruleIds(zoneId)).toEqual([]);
    await filterStack.preview({ expectNoChanges: true, color: 'never' });
    await filterStack.refresh({ color: 'never' });
    await filterStack.preview({ expectNoChanges: true, color: 'never' });
    await filterStack.destroy({ color: 'never' });
  });

  test('two components of two types each with a child named policy: two policies, and removing one component deletes only its own; an adoption of a policy this stack holds by a resource whose step may come first is refused', async () => {
    const zoneId = await freshZone(sandbox.emulator, 'components');
    // Pulumi's URN holds the parent's type, not its name: children of one name need parents of two types.
    const team = (type: string) =>
      class extends pulumi.ComponentResource {
        readonly policyId: pulumi.Output<string>;
        constructor(name: string, adopt?: string) {
          super(`zoneguard-test:index:${type}`, name);
          this.policyId = new CspPolicy('policy', { zoneId, ...TWIN, ...(adopt ? { adoptPolicyId: adopt } : {}) }, { parent: this }).policyId;
        }
      };
    const [Red, Blue, Green] = [team('Red'), team('Blue'), team('Green')];
    let teams = { red: true, blue: true };
    const extra: { adopt?: string } = {};
    const stack = await sandbox.stack(unique('components'), async () => ({
      ...(teams.red ? { red: new Red('red').policyId } : {}),
      ...(teams.blue ? { blue: new Blue('blue').policyId } : {}),
      ...(extra.adopt ? { green: new Green('green', extra.adopt).policyId } : {}),
    }));
    const both = await stack.up({ color: 'never' });
    const [red, blue] = [idOf(both.outputs, 'red'), idOf(both.outputs, 'blue')];
    expect(red).not.toBe(blue);
    expect(await policyIds(zoneId)).toEqual([red, blue].sort());

    // A third component adopting red's policy: red's marker names another resource, whichever step runs first.
    extra.adopt = red;
    await sandbox.emulator.admin.clearRequests();
    const refused = await engine((opts) => stack.up(opts));
    expect(refused.ok).toBe(false);
    // Refused by the marker on the policy, or (when red's step came first) by the run's own guard, naming the namesake.
    expect(refused.resourceErrors.map((e) => e.message).join('\n')).toMatch(
      new RegExp(`CspPolicy 'policy'( ${red} in zone ${zoneId}: adopting it)?: refused before any change: (it is marked as held by another owner|another CspPolicy 'policy' \\(under another parent\\) of this deployment holds policy ${red})`),
    );
    expect(await writes()).toEqual([]);
    delete extra.adopt;

    teams = { red: false, blue: true };
    await stack.up({ color: 'never' });
    expect(await policyIds(zoneId)).toEqual([blue]);
    await stack.preview({ expectNoChanges: true, color: 'never' });
    await stack.destroy({ color: 'never' });
    expect(await policyIds(zoneId)).toEqual([]);
  });
});
