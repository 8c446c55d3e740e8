import { CustomRuleShape } from '../rulesets/phase-rules';
import { PHASE_RULE_LIMITS, toDeclaredNames, toWireNames, type BlockResponseInput, type RulePhase, type RuleSkip } from '../rulesets/phase-rules';
import type { ActionParameters, BlockResponse } from '../schemas';
import { CUSTOM_PHASE } from '../schemas/rulesets';
import { adoption, declareKind, inPlace, zoneField, type Field, type Identity } from './declaration';
import { TakeOverSchema } from './marker';

/**
 * A block's own answer as the wire holds it (`action_parameters.response`); none for a skip rule that skips, whose
 * parameters are what it skips. Pure.
 */
function responseToWire(value: unknown, rule: Readonly<Record<string, unknown>>): BlockResponse | undefined {
  if (value === undefined || (rule.action === 'skip' && rule.skip !== undefined)) return undefined;
  return toWireNames(value as BlockResponseInput) as BlockResponse;
}

/** A block rule's own answer in the declared names (a member left out: 0, '', an empty content type none); other rules have none. Pure. */
function responseFromWire(value: unknown, rule: Readonly<Record<string, unknown>>): BlockResponseInput | undefined {
  if (!value || rule.action !== 'block') return undefined;
  const response = value as BlockResponse;
  return { statusCode: 0, content: '', ...toDeclaredNames({ ...response, content_type: response.content_type || undefined }) } as BlockResponseInput;
}

/** What a skip rule skips, as its `action_parameters`; a rule of another action sends none for it. Pure. */
function skipToWire(value: unknown, rule: Readonly<Record<string, unknown>>): ActionParameters | undefined {
  if (rule.action !== 'skip' || value === undefined) return undefined;
  const skip = value as RuleSkip;
  return { ...skip, ...(skip.phases ? { phases: [...skip.phases] } : {}), ...(skip.products ? { products: [...skip.products] } : {}) };
}

/** A skip rule's `action_parameters` as what it skips, in the declared names (none: an empty skip); other rules skip nothing. Pure. */
function skipFromWire(value: unknown, rule: Readonly<Record<string, unknown>>): RuleSkip | undefined {
  if (rule.action !== 'skip') return undefined;
  const parameters = (value ?? {}) as ActionParameters;
  const skip: RuleSkip = {};
  if (parameters.ruleset !== undefined) skip.ruleset = parameters.ruleset as 'current';
  if (parameters.phases !== undefined) skip.phases = [...parameters.phases];
  if (parameters.products !== undefined) skip.products = [...parameters.products];
  if (parameters.rules !== undefined) skip.rules = parameters.rules;
  return skip;
}

/**
 * A rule's own fields in both phases, changed in place by a PATCH of the rule (docs/service.md#ruleset-rules), on the
 * wire under the same names; a `ref` the service defaulted to the rule's id reads as empty, the declared default.
 */
const ownFields = (): Field<'action' | 'expression' | 'description' | 'enabled' | 'ref'>[] => [
  ...inPlace('action', 'expression', 'description', 'enabled'),
  { input: 'ref', wire: 'ref', change: 'update', fromWire: (ref, rule) => (ref === rule.id ? undefined : ref) },
];

/** What a rule of a phase's entry point is to the service; its owner marker lives in its ref. */
export const phaseRuleIdentity = (noun: string, phase: RulePhase) =>
  ({
    object: 'rulesetRule',
    scope: 'object',
    idOutput: 'ruleId',
    adoptInput: 'adoptRuleId',
    noun,
    marker: 'ref',
    markerMax: PHASE_RULE_LIMITS.refMax,
    phase,
  }) as const satisfies Identity;

/**
 * What the kinds of both phases declare alike: the outputs the provider computes, and what `zoneguard orphans`
 * recognises a pending create by (the rule's ref carries the owner marker, its action and expression are as sent).
 */
export const PHASE_RULE_PARTS = { outputs: ['ruleId', 'rulesetId'], createdWith: ['action', 'expression'] } as const;

/**
 * The field table of a phase's rule, with the one field of its phase's own (`skip`, `ratelimit`): what a write sends
 * and a read reports (src/kinds/phase-rule-wire.ts).
 */
export function phaseRuleFields<const I extends string>(
  own: Field<I>,
): Field<'action' | 'expression' | 'description' | 'enabled' | 'ref' | I | 'zoneId' | 'response' | 'position' | 'adoptRuleId' | 'takeOver'>[] {
  return [
    zoneField('replace'),
    ...ownFields(),
    { input: 'response', wire: 'action_parameters.response', change: 'update', toWire: responseToWire, fromWire: responseFromWire },
    own,
    { input: 'position', wire: 'position', change: 'update' },
    ...adoption('adoptRuleId'),
  ];
}

/**
 * One custom rule of a zone's `http_request_firewall_custom` entry point, written alone with the per-rule endpoints
 * (docs/service.md#ruleset-rules), never by a PUT of the entry point: the other rules are other owners'.
 */
export const CustomRuleKind = declareKind('CustomRule', {
  // The grammar of the phase is checked on top by the provider (src/rulesets/phase-rules.ts declaredRuleProblems).
  args: CustomRuleShape.extend({ takeOver: TakeOverSchema }),
  fields: phaseRuleFields({ input: 'skip', wire: 'action_parameters', change: 'update', toWire: skipToWire, fromWire: skipFromWire }),
  identity: phaseRuleIdentity('custom rule', CUSTOM_PHASE),
  ...PHASE_RULE_PARTS,
  example: { action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'admin-block' },
});
