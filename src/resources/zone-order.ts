import * as pulumi from '@pulumi/pulumi';

// A WafMigration converts the zone's firewall rules as they stand when it is submitted: a bypass rule becomes a skip
// rule of the new configuration (conversion.bypassRuleIds). The engine runs resources that do not depend on each
// other in parallel, so a rule declared in the same program could be created after the migration read the zone, and
// be left out. So the migration depends on the firewall rules (FirewallRuleWithFilter, FirewallRule) the program
// declares on its zone, without the user writing `dependsOn` (docs/firewall-and-migration.md). Rules are noted per
// run of the program (the Stack resource of the run), since one process can run several (the Automation API's inline
// programs).

interface DeclaredRule {
  zoneId: pulumi.Output<string>;
  resource: pulumi.Resource;
}

const rulesByRun = new WeakMap<pulumi.Resource, DeclaredRule[]>();

/** The rules noted in the current run of the program; undefined outside a run (no stack resource). */
function rulesOfThisRun(): DeclaredRule[] | undefined {
  const run = pulumi.runtime.getStackResource();
  if (!run) return undefined;
  let rules = rulesByRun.get(run);
  if (!rules) rulesByRun.set(run, (rules = []));
  return rules;
}

/** Notes a firewall rule the program declares, for the migrations of its zone to wait for. */
export function noteFirewallRule(resource: pulumi.Resource, zoneId: pulumi.Input<string>): void {
  rulesOfThisRun()?.push({ zoneId: pulumi.output(zoneId), resource });
}

/** The indexes of `zones` equal to `zone`: which rules are on the migration's zone. Pure. */
export function sameZone(zone: string, zones: readonly string[]): number[] {
  return zones.flatMap((candidate, index) => (candidate === zone ? [index] : []));
}

/**
 * The firewall rules the program declares on `zoneId`, as a `dependsOn` input, with the resources the user listed.
 * Rules declared after the migration in the same synchronous part of the program count too: the list is read once
 * that part has run (the next turn of the event loop).
 */
export function dependsOnZoneRules(
  zoneId: pulumi.Input<string>,
  listed: pulumi.CustomResourceOptions['dependsOn'],
): pulumi.Input<pulumi.Input<pulumi.Resource>[]> {
  const rules = rulesOfThisRun() ?? [];
  const declared = new Promise<DeclaredRule[]>((resolve) => setImmediate(() => resolve([...rules])));
  // pulumi.all unwraps each rule's zone and leaves the resources as they are.
  return pulumi.all([zoneId, declared, listed ?? []]).apply(([zone, found, mine]) => [
    ...(Array.isArray(mine) ? mine : [mine]),
    ...sameZone(zone, found.map((rule) => rule.zoneId)).map((index) => found[index]!.resource),
  ]);
}
