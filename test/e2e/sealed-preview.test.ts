import * as fs from 'node:fs';
import type { Stack } from '@pulumi/pulumi/automation';
import type { ZoneGuardClient } from '../../src/client';
import { CspPolicy } from '../../src/resources/csp-policy';
import { CustomRule } from '../../src/resources/custom-rule';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { CUSTOM_PHASE, type RulesetRule } from '../../src/schemas';
import { splitMarked } from '../../src/schemas/owner-marker';
import { testClient, writesOf, zoneOfPlan } from '../support/emulator';
import { openSandbox, type EngineSandbox } from './harness';
import { sealedPreview as sealPreview, sealedUp } from './sealing';

// Sealed previews through the real engine (docs/sealed-previews.md): a `preview --refresh` whose JSON and recorded
// landings `zoneguard preview-report --seal` turns into a seal, then an up with ZONEGUARD_SEAL naming it. Between
// the two, the zone moves (an edit in the dashboard, another stack's rule, a policy deleted by hand): the resource
// whose object moved fails before its write, naming what changed; the others are applied.
jest.setTimeout(300_000);

let sandbox: EngineSandbox;
let client: ZoneGuardClient;
let zoneId: string;
let alpha: Stack;

/** What the program of the stack `alpha` declares; each test changes some of it. */
interface Desired {
  policy: string;
  first: string;
  second: string;
  middle: boolean;
  /** The legacy firewall rules' descriptions: the kinds whose live object is read through kit/firewall.ts. */
  firewall: string;
  /** The page security settings' `useConnectionUrlPath`, once the program declares them (the last test: a per-zone kind). */
  connectionUrlPath?: boolean;
}
let desired: Desired = { policy: 'shop scripts', first: 'block admin', second: 'block login', middle: false, firewall: 'legacy' };

const program = async () => {
  const policy = new CspPolicy('shop', { zoneId, action: 'log', expression: 'http.host eq "shop.example"', value: "script-src 'self'", description: desired.policy });
  // After the policy (sealedUp of ./sealing says why): a refusal of this rule's write then comes after the policy's write, always.
  new CustomRule('first', { zoneId, action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'alpha-first', description: desired.first }, { dependsOn: [policy] });
  if (desired.middle) new CustomRule('middle', { zoneId, action: 'log', expression: '(http.request.uri.path eq "/api")', ref: 'alpha-middle', position: { after: 'alpha-first' } });
  new CustomRule('second', { zoneId, action: 'block', expression: '(http.request.uri.path eq "/login")', ref: 'alpha-second', description: desired.second });
  new FirewallRuleWithFilter('scanners', { zoneId, expression: 'http.user_agent contains "sqlmap"', action: 'block', description: `scanners ${desired.firewall}` });
  const filter = new FirewallFilter('wp-admin', { zoneId, expression: '(http.request.uri.path eq "/wp-admin")', description: `wp-admin ${desired.firewall}` });
  new FirewallRule('wp-admin', { zoneId, filterId: filter.id, action: 'challenge', description: `wp-admin rule ${desired.firewall}` });
  if (desired.connectionUrlPath !== undefined) new PageGuardSettings('page', { zoneId, enabled: true, useConnectionUrlPath: desired.connectionUrlPath });
  return {};
};

beforeAll(async () => {
  sandbox = await openSandbox('sealed-preview');
  client = testClient(sandbox.emulator);
  zoneId = zoneOfPlan(sandbox.emulator, 'enterprise');
  alpha = await sandbox.stack('alpha', program);
  await alpha.up({ color: 'never' });
});
afterAll(() => sandbox?.close());

const sealedPreview = (stack: Stack) => sealPreview(sandbox, stack);

const rules = async (): Promise<RulesetRule[]> => (await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).rules;
const ruleOf = async (ref: string) => (await rules()).find((rule) => splitMarked(rule.ref).own === ref)!;
const shopPolicy = async () => (await client.cspPolicies.list({ zoneId }).toArray()).find((policy) => splitMarked(policy.description).own.startsWith('shop'));
/** The writes the emulator logged since the last clear: method and path. */
const writes = () => writesOf(sandbox.emulator);

test('a dashboard edit of a rule the preview updates: that rule fails naming the edit and stays as edited; the policy is applied', async () => {
  desired = { ...desired, policy: 'shop scripts v2', first: 'block admin paths' };
  const { seal, report } = await sealedPreview(alpha);
  expect(report).toContain('| update | CustomRule `first` | description |');
  const first = await ruleOf('alpha-first');
  await client.rulesets.updateRule({ zoneId, rulesetId: (await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE })).id, ruleId: first.id!, rule: { action: 'managed_challenge' } });

  const { failed, text } = await sealedUp(alpha, seal);
  expect(failed).toBe(true);
  const marker = splitMarked(first.ref).marker!;
  expect(text).toContain(
    `CustomRule 'first' ${first.id} in zone ${zoneId} (the rule "alpha-first" (id ${first.id}, marker ${marker})): changed on the service since the sealed preview: ` +
      'action "block" → "managed_challenge"; nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up',
  );
  expect(await ruleOf('alpha-first')).toMatchObject({ action: 'managed_challenge', description: 'block admin' });
  expect(splitMarked((await shopPolicy())!.description).own).toBe('shop scripts v2');
  // Preview again: the report shows the reviewer the dashboard's edit the up would undo, apart from the program's change.
  const again = await sealedPreview(alpha);
  expect(again.report).toContain('| update | CustomRule `first` | action, description |');
  expect(again.report).toContain(
    '**Live changes since the last up that this up undoes** (made on the service, not by this change)\n\n- CustomRule `first`: action `managed_challenge` now, put back to `block`\n',
  );
});

test('a tampered seal, and a seal of another stack, are refused in one line before any write; the seal of this preview is kept', async () => {
  desired = { ...desired, policy: 'shop scripts v3' };
  const { seal } = await sealedPreview(alpha);
  const tampered = `${seal}.tampered.json`;
  fs.writeFileSync(tampered, fs.readFileSync(seal, 'utf8').replace('"shop scripts v2"', '"shop scripts v9"'));
  const beta = await sandbox.stack('beta', async () => {
    new CspPolicy('beta', { zoneId, action: 'log', expression: 'http.host eq "beta.example"', value: "script-src 'self'" });
  });
  await beta.up({ color: 'never' });
  const { seal: betaSeal } = await sealedPreview(beta);
  const betaOwner = (JSON.parse(fs.readFileSync(betaSeal, 'utf8')) as { ownerId: string }).ownerId;
  const alphaOwner = (JSON.parse(fs.readFileSync(seal, 'utf8')) as { ownerId: string }).ownerId;

  await sandbox.emulator.admin.clearRequests();
  const refusedTampered = await sealedUp(alpha, tampered);
  expect(refusedTampered.failed).toBe(true);
  expect(refusedTampered.text).toContain(
    `zoneguard: the seal ${tampered} was changed after the preview wrote it (its content does not match its digest); run the pull request's preview again (ci.sh pr) and use the seal it writes; nothing was written`,
  );
  const refusedOther = await sealedUp(alpha, betaSeal);
  expect(refusedOther.failed).toBe(true);
  expect(refusedOther.text).toContain(
    `zoneguard: the seal ${betaSeal} is of another stack's preview (zoneguard-e2e-sealed-preview/beta, owner id ${betaOwner}), not of this stack (owner id ${alphaOwner}); nothing was written: keep the seal this stack's preview wrote`,
  );
  expect(await writes()).toEqual([]);

  const kept = await sealedUp(alpha, seal);
  expect(kept).toMatchObject({ failed: false });
  expect(splitMarked((await shopPolicy())!.description).own).toBe('shop scripts v3');
  expect(await ruleOf('alpha-first')).toMatchObject({ action: 'block', description: 'block admin paths' });
});

test('another stack adds a rule between the two rules a create lands between: the create fails naming that rule; nothing is created', async () => {
  desired = { ...desired, middle: true };
  const { seal, report } = await sealedPreview(alpha);
  expect(report).toContain('| create | CustomRule `middle` |');
  // Where the preview saw it land: after alpha-first, before the rule that follows it (the two rules' creates ran
  // side by side, so which comes first is the engine's order).
  const seen = await rules();
  const first = seen.find((rule) => splitMarked(rule.ref).own === 'alpha-first')!;
  const next = seen[seen.indexOf(first) + 1];
  const beta = await sandbox.stack('beta', async () => {
    new CspPolicy('beta', { zoneId, action: 'log', expression: 'http.host eq "beta.example"', value: "script-src 'self'" });
    new CustomRule('intruder', { zoneId, action: 'block', expression: '(http.request.uri.path eq "/xmlrpc.php")', ref: 'beta-intruder', position: { after: 'alpha-first' } });
  });
  await beta.up({ color: 'never' });
  const intruder = await ruleOf('beta-intruder');
  const words = (rule: RulesetRule | undefined) =>
    rule === undefined ? 'the end' : `rule "${splitMarked(rule.ref).own}" (id ${rule.id}, marker ${splitMarked(rule.ref).marker})`;

  const { failed, text } = await sealedUp(alpha, seal);
  expect(failed).toBe(true);
  expect(text).toContain(
    `CustomRule 'middle' in zone ${zoneId}: the zone's http_request_firewall_custom phase changed since the sealed preview: the create now lands between ` +
      `${words(first)} and ${words(intruder)}, where the preview showed it between ${words(first)} and ${words(next)}; ` +
      'nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up',
  );
  const after = (await rules()).map((rule) => splitMarked(rule.ref).own);
  expect(after).not.toContain('alpha-middle');
  expect(after.indexOf('beta-intruder')).toBe(after.indexOf('alpha-first') + 1);
  desired = { ...desired, middle: false };
});

test('a policy deleted by hand that the preview showed updating: its update fails saying so', async () => {
  desired = { ...desired, policy: 'shop scripts v4' };
  const { seal } = await sealedPreview(alpha);
  const policy = (await shopPolicy())!;
  await client.cspPolicies.delete({ zoneId, policyId: policy.id });
  await sandbox.emulator.admin.clearRequests();

  const { failed, text } = await sealedUp(alpha, seal);
  expect(failed).toBe(true);
  expect(text).toContain(
    `CspPolicy 'shop' ${policy.id} in zone ${zoneId}: deleted on the service since the sealed preview; nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up`,
  );
  expect(await writes()).toEqual([]);
  // Back to a zone as declared: the refresh forgets the policy, the up creates it again.
  await alpha.up({ refresh: true, color: 'never' });
});

test('with no change on the zone since the preview, the sealed up makes the writes of an up without the seal, and no more reads', async () => {
  const before = { ...desired, middle: true };
  const after = { ...before, policy: 'shop scripts v5', second: 'block login v2', middle: false, firewall: 'legacy v2' };
  desired = before;
  await alpha.up({ color: 'never' });
  desired = after;
  const { seal } = await sealedPreview(alpha);
  await sandbox.emulator.admin.clearRequests();
  expect(await sealedUp(alpha, seal)).toMatchObject({ failed: false });
  const sealed = await sandbox.emulator.admin.counters();

  desired = before;
  await alpha.up({ color: 'never' });
  desired = after;
  await sandbox.emulator.admin.clearRequests();
  await alpha.up({ color: 'never' });
  const unsealed = await sandbox.emulator.admin.counters();
  // Updates (the policy's, a custom rule's, the legacy rules' and filter's), a delete (the middle rule's): the same
  // writes, and the same reads (the owner marker's) but for when the coalesced reads of a zone's list meet.
  const writeRoutes = (byRoute: Record<string, number>) => Object.fromEntries(Object.entries(byRoute).filter(([route]) => !route.startsWith('GET ')));
  const readsOf = (byRoute: Record<string, number>) => Object.entries(byRoute).filter(([route]) => route.startsWith('GET ')).reduce((sum, [, n]) => sum + n, 0);
  expect(writeRoutes(sealed.byRoute)).toEqual(writeRoutes(unsealed.byRoute));
  expect(readsOf(sealed.byRoute)).toBeLessThanOrEqual(readsOf(unsealed.byRoute));
  expect(Object.keys(writeRoutes(sealed.byRoute)).sort()).toEqual([
    'DELETE /zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id',
    'PATCH /zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id',
    'PUT /zones/:zone_id/filters/:filter_id',
    'PUT /zones/:zone_id/firewall/rules/:rule_id',
    'PUT /zones/:zone_id/page_guard/policies/:policy_id',
  ]);
});

test('a seal of an older preview (an up ran after it) is refused before any write, naming the state that moved', async () => {
  desired = { ...desired, policy: 'shop scripts v6' };
  const { seal } = await sealedPreview(alpha);
  desired = { ...desired, policy: 'shop scripts v7' };
  await alpha.up({ color: 'never' });
  desired = { ...desired, policy: 'shop scripts v6' };
  const policy = (await shopPolicy())!;
  await sandbox.emulator.admin.clearRequests();

  const { failed, text } = await sealedUp(alpha, seal);
  expect(failed).toBe(true);
  expect(text).toContain(
    `CspPolicy 'shop' ${policy.id} in zone ${zoneId}: the stack's state of it changed since the sealed preview (an up ran after it, so the seal is of an older preview): ` +
      'description "shop scripts v5" → "shop scripts v7"; nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up',
  );
  expect(await writes()).toEqual([]);
  expect(splitMarked((await shopPolicy())!.description).own).toBe('shop scripts v7');
});

test('a dashboard edit of the page security settings the preview updates: their update fails naming the field; they stay as the dashboard left them', async () => {
  desired = { ...desired, connectionUrlPath: false };
  await alpha.up({ color: 'never' });
  desired = { ...desired, connectionUrlPath: true };
  const { seal, report } = await sealedPreview(alpha);
  expect(report).toContain('| update | PageGuardSettings `page` | useConnectionUrlPath |');
  await client.pageGuard.update({ zoneId, enabled: false });
  await sandbox.emulator.admin.clearRequests();

  const { failed, text } = await sealedUp(alpha, seal);
  expect(failed).toBe(true);
  expect(text).toContain(
    `PageGuardSettings 'page' of zone ${zoneId}: changed on the service since the sealed preview: enabled true → false; ` +
      'nothing was written to it: preview again (ci.sh pr) and have the new report reviewed before this up',
  );
  expect(await writes()).toEqual([]);
  expect(await client.pageGuard.get({ zoneId })).toMatchObject({ enabled: false, use_connection_url_path: false });
});
