import { z } from 'zod';
import { ErrorCode, type FirewallRuleWire, type FirewallRuleCreateItem, type FirewallRuleUpdate } from '../schemas';
import type { Context } from './kit/context';
import { diffFields } from './kit/diff';
import { firewallObject, isConflictError, isQuotaError, normalizeFieldOf, productsFailures, ruleReads } from './kit/firewall';
import { FirewallRuleCreateItemSchema, FirewallRuleSchema, FirewallRuleUpdateSchema } from '../schemas/firewall-rules';
import { ProviderError } from './kit/implementation';
import { objectKind } from './kit/flow';
import { FirewallRuleKind, diffPlan, label as kindLabel, outputsOf, requestOf } from '../kinds';

const RESOURCE = FirewallRuleKind.kind;

/** Inputs of a FirewallRule (the second call of the two-call flow), as `check` validates them (src/kinds/firewall-rule.ts). */
export const FirewallRuleArgsSchema = FirewallRuleKind.args;
export type FirewallRuleInputs = z.output<typeof FirewallRuleArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the rule's id. */
export type FirewallRuleOutputs = FirewallRuleInputs & { ruleId: string };

// Every field but the zone changes in place: PUT /firewall/rules/{id} takes the filter by id too (docs/service.md#filters).
const DIFF = diffPlan(FirewallRuleKind);
const normalizeField = normalizeFieldOf(FirewallRuleKind, FirewallRuleSchema);

/** The create item: the filter by id, the second call of the recommended flow (docs/service.md#two-flows). */
export function ruleCreateItem(inputs: FirewallRuleInputs): FirewallRuleCreateItem {
  return requestOf(FirewallRuleCreateItemSchema, FirewallRuleKind, inputs);
}

/** The body of the PUT that brings a rule to the declared fields, its filter included. */
export function ruleUpdateBody(inputs: FirewallRuleInputs): Omit<FirewallRuleUpdate, 'id'> {
  return requestOf(FirewallRuleUpdateSchema, FirewallRuleKind, inputs);
}

/** The service's answer in the provider's names. */
export function outputsFromRule(zoneId: string, rule: FirewallRuleWire, adoptRuleId?: string): FirewallRuleOutputs {
  return outputsOf(FirewallRuleKind, zoneId, rule, adoptRuleId);
}

/** Diff of the declared inputs against the state: every field in place (the filter by id too), a new zone replaces. */
export function diffFirewallRule(olds: Record<string, unknown>, news: Record<string, unknown>) {
  return diffFields(olds, news, DIFF, normalizeField);
}

/**
 * What a refusal of a create or update means for a rule on a filter by id, and what to do (10027 or 10030). Pure.
 * 10027: the filter was created with another rule in one call and belongs to it (docs/service.md#single-call-filter).
 * 10030: the quota; nothing was created, the filter stays with its resource.
 */
export function ruleRefusalMessage(
  zoneId: string,
  name: string | undefined,
  filterId: string,
  code: typeof ErrorCode.conflict | typeof ErrorCode.ruleQuotaExceeded,
  serviceMessage: string,
): string {
  const me = kindLabel(RESOURCE, { zoneId }, name);
  if (code === ErrorCode.conflict) {
    return (
      `${me}: filter ${filterId} was created together with another rule in one call and belongs to that rule (${serviceMessage}). ` +
      `A FirewallRule needs a filter of its own: declare a FirewallFilter with the expression and set filterId: filter.id ` +
      `(the rule made in one call keeps its filter; to replace it, manage it as a FirewallRuleWithFilter)`
    );
  }
  return (
    `${me}: the zone's firewall rule quota is exceeded, no rule was created (${serviceMessage}). Filter ${filterId} is ` +
    `unchanged and stays with its own resource. Free a rule slot (delete a rule you no longer need, or raise the quota) ` +
    `and run pulumi up again`
  );
}

/** A create or update refused with one of the codes ruleRefusalMessage explains, rethrown with its meaning. */
function explained(ctx: Context, inputs: FirewallRuleInputs, error: unknown): unknown {
  if (!isConflictError(error) && !isQuotaError(error)) return error;
  const code = isConflictError(error) ? ErrorCode.conflict : ErrorCode.ruleQuotaExceeded;
  return new ProviderError(ruleRefusalMessage(inputs.zoneId, ctx.name, inputs.filterId, code, error.message), { cause: error });
}

async function createRule(ctx: Context, inputs: FirewallRuleInputs): Promise<FirewallRuleWire> {
  try {
    const [rule] = await ctx.client.firewallRules.create({ zoneId: inputs.zoneId, rules: [ruleCreateItem(inputs)] });
    if (!rule) throw new ProviderError(`${ctx.label()}: the service answered the create with no rule`);
    return rule;
  } catch (error) {
    throw explained(ctx, inputs, error);
  }
}

async function updateRule(ctx: Context, inputs: FirewallRuleInputs, ruleId: string): Promise<FirewallRuleWire> {
  try {
    return await ctx.client.firewallRules.update({ zoneId: inputs.zoneId, ruleId, ...ruleUpdateBody(inputs) });
  } catch (error) {
    throw explained(ctx, inputs, error);
  }
}

export const firewallRule = objectKind<FirewallRuleWire, FirewallRuleInputs, FirewallRuleOutputs>({
  ...firewallObject(RESOURCE, 'the rule', ruleReads),
  failures: (news) => productsFailures(RESOURCE, news),
  normalize: normalizeField,
  adopting: (inputs) => inputs.adoptRuleId,
  get: (ctx, zoneId, ruleId) => ctx.client.firewallRules.get({ zoneId, ruleId }),
  create: createRule,
  creating: (inputs) => `creating the rule on filter ${inputs.filterId}`,
  update: (ctx, inputs, ruleId) => updateRule(ctx, inputs, ruleId),
  // The rule alone: its filter belongs to its FirewallFilter resource, which the engine deletes after its rules.
  remove: (ctx, ruleId, { zoneId }) => ({ call: () => ctx.client.firewallRules.delete({ zoneId, ruleId }) }),
  outputs: (rule, declared) => outputsFromRule(declared.zoneId, rule, declared.adoptRuleId),
  matches: (current, inputs) => !diffFirewallRule(current, inputs).changes,
});
