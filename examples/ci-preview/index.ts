// A stack made for CI. On a pull request, `pulumi preview --diff` shows each resource the change touches, and the
// stack outputs summarize what the reviewer should know even where no resource changes: the CSP allow-list built
// from the scripts the service observed (with the malicious ones it left out) and what a WAF migration of the zone
// would do. On the main branch, `pulumi preview --refresh --expect-no-changes` fails when the zone drifted.
// See ci.sh beside this file.
import * as pulumi from '@pulumi/pulumi';
import { CspPolicy, FirewallRuleWithFilter, clientFromStackConfig, planWafMigration } from 'pulumi-zoneguard';
import { cspFromObservedScripts } from 'pulumi-zoneguard/insights';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const shopHost = config.require('shopHost');
const blockedUserAgents = config.requireObject<string[]>('blockedUserAgents');

// Reads only, with the stack's credentials: run at every preview, so the outputs are current.
const client = clientFromStackConfig();
const observed = cspFromObservedScripts({ client, zoneId, hosts: [shopHost] });
const plan = planWafMigration({ zoneId, client });

// The allow-list follows what the service observes: a new script origin on the shop shows up as a change of `value`
// in the preview of the next pull request, for a human to accept.
const shopPolicy = new CspPolicy('shop-observed-scripts', {
  zoneId,
  action: 'log',
  expression: `http.host eq "${shopHost}"`,
  value: observed.then((csp) => csp.value),
  description: `Scripts observed on ${shopHost}, malicious ones left out`,
});

const scanners = new FirewallRuleWithFilter('block-scanners', {
  zoneId,
  expression: blockedUserAgents.map((agent) => `http.user_agent contains "${agent}"`).join(' or '),
  action: 'block',
  description: 'Vulnerability scanners',
});

/** The CSP the shop policy carries, and what it leaves out and why. */
export const shopCsp = {
  policyId: shopPolicy.policyId,
  value: shopPolicy.value,
  leftOut: observed.then((csp) => csp.excluded.map((script) => `${script.url} (${script.reasons.join(', ')})`)),
};
export const scannerRuleId = scanners.ruleId;
/** What migrating the zone to the new WAF managed rules would do; nothing is submitted by this stack. */
export const wafMigration = plan.then((p) => ({
  compatible: p.compatible,
  migrationState: p.migrationState,
  problems: p.problems,
  changed: p.conversion.changed,
  dropped: p.conversion.dropped,
}));
