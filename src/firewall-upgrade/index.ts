// The move of a zone's legacy firewall rules to custom rules, apart from Pulumi: the requests and the equivalence
// check, the matching of converted rules, and the read-only plan (docs/firewall-and-migration.md#upgrade).
export { checkEquivalence, describeRequest, describeVerdict, equivalenceLine, requestsOf, zoneEvaluator } from './equivalence';
export type { Difference, Equivalence, KeyedCustomRule, ZoneRules } from './equivalence';
export { planFromReads, readFirewallUpgradePlan, type FirewallRulesUpgradePlan, type PlannedRule, type PlanReads } from './plan';
export { holderOf, holderText, matchConversions, type Holder, type Holders } from './match';
export { moveOf, renderMoveProgram, type Move, type MoveRule } from './move';
