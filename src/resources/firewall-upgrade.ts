import type { ZoneGuardClient } from '../client';
import { readFirewallUpgradePlan, type FirewallRulesUpgradePlan } from '../firewall-upgrade';
import { ownershipOf, type StackExport } from '../insights/orphans';
import { ZoneIdSchema, formatZodIssues, readableIssue } from '../schemas';
import { clientFromStackConfig } from './stack-client';

export type { FirewallRulesUpgradePlan, PlannedRule } from '../firewall-upgrade';

/** Arguments of {@link planFirewallRulesUpgrade}. */
export interface PlanFirewallRulesUpgradeArgs {
  zoneId: string;
  /** The client to read with; default: one built from the stack config (zoneguard:apiToken, ...) or the environment. */
  client?: ZoneGuardClient;
  /** What `pulumi stack export` wrote for the stacks on this zone: who holds each rule is read from them. */
  stackExports?: StackExport[];
}

/**
 * What moving a zone's legacy firewall rules to custom rules does, without changing anything: for each legacy rule
 * (while the legacy API answers reads) the custom rule it is or will be, who holds it, and every difference in
 * behaviour the equivalence check finds; the zone's verdict; bad input, one line each
 * (docs/firewall-and-migration.md#upgrade-plan). For stack outputs in CI previews:
 * `export const firewallPlan = planFirewallRulesUpgrade({ zoneId })`.
 */
export async function planFirewallRulesUpgrade({ zoneId, client, stackExports }: PlanFirewallRulesUpgradeArgs): Promise<FirewallRulesUpgradePlan> {
  const zone = ZoneIdSchema.safeParse(zoneId, { error: readableIssue });
  if (!zone.success) throw new Error(`planFirewallRulesUpgrade: ${formatZodIssues(zone.error, 'zoneId').join('; ')}`);
  const holders = stackExports === undefined ? undefined : ownershipOf(stackExports, zoneId);
  return readFirewallUpgradePlan(client ?? clientFromStackConfig('pulumi-zoneguard-plan'), zoneId, holders);
}
