/**
 * The wire of a rule of either phase (CustomRule, RateLimitRule), from their field tables (src/kinds/wire.ts): the
 * fields both declare alike, then the rate limiting rule's own (`ratelimit`), each where its table puts it and as it
 * converts it. What is of the whole rule stays here: its place, and `action_parameters` sent empty to clear a former
 * one. Pure.
 */
import type { z } from 'zod';
import type { DeclaredRule } from '../rulesets/phase-rules';
import { RuleCreateSchema, type RulesetRule } from '../schemas/rulesets';
import { CustomRuleKind } from './custom-rule';
import type { KindDeclaration } from './declaration';
import { RateLimitRuleKind } from './rate-limit-rule';
import { inputsOf, requestOf, wireFields } from './wire';

/** A rule's declared fields as the wire holds them: all but its zone, its place among the others and its adoption. */
export type RuleOnWire = Omit<DeclaredRule, 'zoneId' | 'position' | 'adoptRuleId'>;

/**
 * The wire fields of a kind's rule but its place: the write's `position` is made from the phase's other rules
 * (src/rulesets/phase-rules.ts positionOf) and a read's from where the rule runs (observedPlace), not from the rule.
 */
const ruleFields = <I extends string>(declaration: KindDeclaration<string, I, string, z.ZodType>) =>
  wireFields(declaration)
    .map((field) => field.input)
    .filter((input) => input !== 'position');

const customFields = ruleFields(CustomRuleKind);
/** The rate limiting rule's fields that a custom rule does not have. */
const rateLimitOwn = ruleFields(RateLimitRuleKind).filter((input) => !(customFields as readonly string[]).includes(input));

/**
 * The declared fields of a rule of either phase that go on the wire: what a write sends, a read reports and an
 * adoption compares; the field tables', which test/kinds/wire.test.ts holds equal to RuleOnWire's keys.
 */
export const PHASE_RULE_WIRE_FIELDS = [...customFields, ...rateLimitOwn] as (keyof RuleOnWire)[];

/** The wire rule of a declared one (no id, no position). `action_parameters` is sent empty to clear a former one. Pure. */
export function phaseRuleToWire(rule: Partial<RuleOnWire>): Omit<RulesetRule, 'id' | 'version' | 'last_updated'> {
  const { action_parameters: parameters, ...fields } = requestOf(RuleCreateSchema, CustomRuleKind, rule, customFields);
  return { ...fields, action_parameters: parameters ?? {}, ...requestOf(RuleCreateSchema, RateLimitRuleKind, rule, rateLimitOwn) };
}

/**
 * A live rule in the declared names: what a read reports. A ref the service defaulted to the rule's id reads as
 * empty (the declared default); an empty `action_parameters` as nothing. Pure.
 */
export function phaseRuleFromWire(rule: RulesetRule): RuleOnWire {
  return { ...inputsOf(CustomRuleKind, rule, customFields), ...inputsOf(RateLimitRuleKind, rule, rateLimitOwn) } as RuleOnWire;
}
