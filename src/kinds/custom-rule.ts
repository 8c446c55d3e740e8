import { CustomRuleShape } from '../rulesets/phase-rules';
import { PHASE_RULE_LIMITS, type RulePhase } from '../rulesets/phase-rules';
import { CUSTOM_PHASE } from '../schemas/rulesets';
import { adoption, declareKind, inPlace, zoneField, type Field, type Identity } from './declaration';
import { TakeOverSchema } from './marker';

/** A rule's own fields in both phases, changed in place by a PATCH of the rule (docs/service.md#ruleset-rules). */
export const PHASE_RULE_FIELDS = ['action', 'expression', 'description', 'enabled', 'ref'] as const;

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

/** The field table of a phase's rule, with the one field of its phase's own (`skip`, `ratelimit`). */
export function phaseRuleFields<const I extends string>(
  own: Field<I>,
): Field<(typeof PHASE_RULE_FIELDS)[number] | I | 'zoneId' | 'response' | 'position' | 'adoptRuleId' | 'takeOver'>[] {
  return [
    zoneField('replace'),
    ...inPlace(...PHASE_RULE_FIELDS),
    { input: 'response', wire: 'action_parameters.response', change: 'update' },
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
  fields: phaseRuleFields({ input: 'skip', wire: 'action_parameters', change: 'update' }),
  identity: phaseRuleIdentity('custom rule', CUSTOM_PHASE),
  ...PHASE_RULE_PARTS,
  example: { action: 'block', expression: '(http.request.uri.path eq "/admin")', ref: 'admin-block' },
});
