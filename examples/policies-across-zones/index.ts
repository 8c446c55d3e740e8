// One set of CSP policies for every zone of a company: declared once, applied to each zone in a loop. Start with
// action "log" to see what the policies would block, then set "allow" to enforce them everywhere at once.
import * as pulumi from '@pulumi/pulumi';
import { CspPolicy, PageGuardSettings } from 'pulumi-zoneguard';

const config = new pulumi.Config();
/** The zones, by a short name that goes into each resource's name: { store: '<zone id>', ... }. */
const zones = config.requireObject<Record<string, string>>('zones');
const action = config.get('action', { allowedValues: ['log', 'allow'] }) ?? 'log';

/** The policy set: one entry per part of the sites, the same on every zone. */
const policySet = [
  {
    name: 'checkout',
    description: 'Checkout: first-party scripts and the payment provider only',
    expression: 'http.request.uri.path contains "/checkout"',
    value: "script-src 'self' https://js.stripe.com",
  },
  {
    name: 'account',
    description: 'Account pages: first-party scripts only',
    expression: 'starts_with(http.request.uri.path, "/account")',
    value: "script-src 'self'",
  },
];

const policyIds: Record<string, Record<string, pulumi.Output<string>>> = {};
for (const [zoneName, zoneId] of Object.entries(zones)) {
  // Policies are enforced only where page security is on; destroying the stack puts the zone's settings back.
  new PageGuardSettings(`${zoneName}-page-security`, { zoneId, enabled: true });
  policyIds[zoneName] = {};
  for (const policy of policySet) {
    const resource = new CspPolicy(`${zoneName}-${policy.name}`, {
      zoneId,
      action,
      expression: policy.expression,
      value: policy.value,
      description: policy.description,
    });
    policyIds[zoneName][policy.name] = resource.policyId;
  }
}

/** The policy ids per zone and per policy of the set. */
export const policies = policyIds;
export const policyAction = action;
