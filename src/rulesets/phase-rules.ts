import { ownTextSchema, splitMarked } from '../schemas/owner-marker';
import { z } from 'zod';
import { checkExpression, formatExpressionError, parseExpression } from '../expression';
import { hostStringProblems } from '../expression/hosts';
import {
  BLOCK_CONTENT_TYPES,
  CUSTOM_PHASE,
  FIREWALL_LIMITS,
  HexIdSchema,
  RATELIMIT_PHASE,
  ZoneIdSchema,
  type RulePosition,
  type RulesetRule,
} from '../schemas';
import { CUSTOM_ACTIONS, RATELIMIT_ACTIONS } from '../schemas/rulesets';
import { ruleProblems, skipCurrentInput, SkippedRulesInputSchema, StringsInputSchema, type ProblemPath, type RuleProblem } from './grammar';

// Custom rules and rate limiting rules as a user declares them, one rule per resource (CustomRule, RateLimitRule):
// the declared inputs, their checks with the rules grammar (src/rulesets/grammar.ts) worded in the inputs' names, and
// where the rule runs among the others of its phase. The wire rule of a declared one is its kind's field table's
// (src/kinds/phase-rule-wire.ts). Pure.

/** The two phases of rules held one per resource. */
export type RulePhase = typeof CUSTOM_PHASE | typeof RATELIMIT_PHASE;

/** A block's own answer, in the program's names (the wire's `action_parameters.response`). */
export const BlockResponseInputSchema = z
  .object({
    statusCode: z.number({ error: 'must be a number' }),
    content: z.string({ error: 'must be a string' }),
    contentType: z.enum(BLOCK_CONTENT_TYPES, { error: `must be one of ${BLOCK_CONTENT_TYPES.join(', ')}` }).optional(),
  })
  .strict();
export type BlockResponseInput = z.output<typeof BlockResponseInputSchema>;

/** What a custom rule's skip skips (the legacy allow and bypass): any of the rest of the phase, phases, products, managed rules. */
export const RuleSkipSchema = z
  .object({
    ruleset: skipCurrentInput("the rest of this phase's rules"),
    phases: StringsInputSchema.optional(),
    products: StringsInputSchema.optional(),
    rules: SkippedRulesInputSchema.optional(),
  })
  .strict();
export type RuleSkip = z.output<typeof RuleSkipSchema>;

/** A rate limiting rule's counting, in the program's names (the wire's `ratelimit`). */
export const RatelimitInputSchema = z
  .object({
    characteristics: z.array(z.string({ error: 'must be a string' }), { error: 'must be a list, for example ["cf.colo.id", "ip.src"]' }),
    period: z.number({ error: 'must be a number of seconds' }),
    requestsPerPeriod: z.number({ error: 'must be a number' }),
    mitigationTimeout: z.number({ error: 'must be a number of seconds' }),
    countingExpression: z.string({ error: 'must be a string' }).optional(),
    requestsToOrigin: z.boolean().optional(),
  })
  .strict();
export type RatelimitInput = z.output<typeof RatelimitInputSchema>;

const ruleRef = z.string({ error: 'must be a rule id or ref' }).min(1, 'must name a rule: its id (another resource\'s ruleId) or its ref');

/**
 * Where a rule runs among the rules of its phase: before or after another rule (its id, usually another resource's
 * `ruleId`, or its ref), first, or last. A relation, not an index: it holds as long as the rule runs on that side of
 * the other (or first, or last), whatever other rules do around them.
 */
export const RulePlaceSchema = z.union(
  [
    z.strictObject({ before: ruleRef }),
    z.strictObject({ after: ruleRef }),
    z.strictObject({ first: z.literal(true) }),
    z.strictObject({ last: z.literal(true) }),
  ],
  { error: 'must be one of { before: rule }, { after: rule }, { first: true }, { last: true }' },
);
export type RulePlace = z.output<typeof RulePlaceSchema>;

/** Bounds of a rule's own texts: the firewall rules' (docs/service.md#filters), as for the managed rules. */
export const PHASE_RULE_LIMITS = { refMax: FIREWALL_LIMITS.refMax, descriptionMax: FIREWALL_LIMITS.descriptionMax } as const;

/** The inputs both kinds share: the zone, the rule's own fields, where it runs, and an adoption. */
const ruleInputs = {
  zoneId: ZoneIdSchema,
  expression: z.string({ error: 'must be a string' }).min(1, 'must not be empty (true means all traffic)'),
  description: z
    .string({ error: 'must be a string' })
    .max(PHASE_RULE_LIMITS.descriptionMax, `must be at most ${PHASE_RULE_LIMITS.descriptionMax} characters`)
    .default(''),
  enabled: z.boolean().default(true),
  // Its own text: the owner marker takes room of the service's limit (docs/ownership.md).
  ref: ownTextSchema(PHASE_RULE_LIMITS.refMax, z.string({ error: 'must be a string' })).default(''),
  response: BlockResponseInputSchema.optional(),
  position: RulePlaceSchema.optional(),
  adoptRuleId: HexIdSchema.optional(),
};

/** The actions of a phase's rules, as a schema (docs/service.md#ruleset-actions). */
const actionOf = <const A extends readonly [string, ...string[]]>(actions: A) => z.enum(actions, { error: `must be one of ${actions.join(', ')}` });

/** Inputs of a CustomRule (phase http_request_firewall_custom), before the grammar's checks. */
export const CustomRuleShape = z.object({ ...ruleInputs, action: actionOf(CUSTOM_ACTIONS), skip: RuleSkipSchema.optional() }).strict();
/** Inputs of a RateLimitRule (phase http_ratelimit), before the grammar's checks. */
export const RateLimitRuleShape = z.object({ ...ruleInputs, action: actionOf(RATELIMIT_ACTIONS), ratelimit: RatelimitInputSchema }).strict();

/** A declared rule of either phase, checked: a custom rule's inputs and a rate limiting rule's counting, with the action of either. */
export type DeclaredRule = Omit<z.output<typeof CustomRuleShape>, 'action'> &
  Partial<Pick<z.output<typeof RateLimitRuleShape>, 'ratelimit'>> & { action: string };

/**
 * The declared rule as a diff compares it with the live one: a parameter of its action it leaves out (`response`,
 * `skip`) as null, not as an input it does not manage, since every write sends `action_parameters` whole and so
 * removes it; one added by hand is then drift that refresh shows and up puts back. Pure.
 */
export function comparedRule<R extends Record<string, unknown>>(news: R): R {
  return { ...news, response: news.response ?? null, skip: news.skip ?? null };
}

/**
 * The members of a rule's nested objects (a block's response, a counting) that the declared rule names otherwise than
 * the wire, wire → declared: the grammar's paths and both conversions (toDeclaredNames, toWireNames) read it.
 */
const DECLARED_NAMES: Readonly<Record<string, string>> = {
  status_code: 'statusCode',
  content_type: 'contentType',
  requests_per_period: 'requestsPerPeriod',
  mitigation_timeout: 'mitigationTimeout',
  counting_expression: 'countingExpression',
  requests_to_origin: 'requestsToOrigin',
};
const WIRE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(DECLARED_NAMES).map(([wire, declared]) => [declared, wire]));

/** `object` with its members renamed by `names` (the others as they are), lists copied, absent ones left out. Pure. */
const renamed = (object: object, names: Readonly<Record<string, string>>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(object).flatMap(([key, value]) => (value === undefined ? [] : [[names[key] ?? key, Array.isArray(value) ? [...value] : value]])),
  );

/** A nested object of a wire rule (`response`, `ratelimit`) in the declared names. Pure. */
export const toDeclaredNames = (object: object): Record<string, unknown> => renamed(object, DECLARED_NAMES);

/** A nested object of a declared rule (`response`, `ratelimit`) in the wire names. Pure. */
export const toWireNames = (object: object): Record<string, unknown> => renamed(object, WIRE_NAMES);

/** A wire path of the grammar (`action_parameters.response.status_code`) in the declared names (`response.statusCode`). Pure. */
export function declaredRulePath(path: ProblemPath): (string | number)[] {
  const named = path.map((segment) => (typeof segment === 'string' ? (DECLARED_NAMES[segment] ?? segment) : segment));
  if (named[0] !== 'action_parameters') return named;
  if (named[1] === 'response') return named.slice(1);
  return ['skip', ...named.slice(1)];
}

/** A problem of the grammar in the words of a declared rule (the field is named by the path). Pure. */
export function declaredRuleProblemText(problem: RuleProblem): string {
  switch (problem.kind) {
    case 'expression':
      return problem.problem;
    case 'parameterRequired':
      return 'must set at least one of ruleset: "current", phases, products, rules';
    case 'skipRuleset':
      return 'must be "current" (the rest of this phase\'s rules)';
    case 'emptyList':
      return 'must not be empty; leave it out instead';
    case 'notOneOf':
      return `${JSON.stringify(problem.value)} is not one of ${problem.allowed.join(', ')}`;
    case 'duplicate':
      return `${JSON.stringify(problem.value)} appears again (already at ${declaredRulePath(problem.first).join('.')}); remove one`;
    case 'required':
      return `required: ${problem.what}`;
    case 'between':
      return `must be a whole number from ${problem.min} to ${problem.max}`;
    case 'atLeast':
      return `must be a whole number, at least ${problem.min}`;
    case 'mustInclude':
      return `must include ${JSON.stringify(problem.value)} (every rate limiting rule counts per data centre)`;
    case 'timeoutWithChallenge':
      return `must be 0 with action ${problem.action}: a challenge lasts until the visitor passes it`;
    case 'unknownManagedRuleset':
      return `names no managed ruleset the zone can run (${problem.id})`;
    case 'managedRuleId':
      return problem.reason;
    case 'action':
      return `must be one of ${problem.allowed.join(', ')}`;
    default:
      return `not allowed here (${problem.kind})`;
  }
}

/**
 * The response fields of an origin's answer (docs/service.md#ruleset-actions): refused in a request phase's
 * expression, allowed in a rate limiting rule's counting expression.
 */
const RESPONSE_FIELD = /^(raw\.)?http\.response\./;

/**
 * The first response field `fields` read in `text`, as a problem at its line and column, or undefined. `counting`
 * names where a rate limiting rule may read responses, in the reader's names: the wire's `counting_expression` for
 * the service's answer, `ratelimit.countingExpression` for a program's. Pure.
 */
export function responseFieldProblem(text: string, fields: readonly string[], counting = 'counting_expression'): string | undefined {
  const field = fields.find((name) => RESPONSE_FIELD.test(name));
  if (field === undefined) return undefined;
  const before = text.slice(0, Math.max(0, text.indexOf(field))).split('\n');
  return `line ${before.length}, column ${(before.at(-1) ?? '').length + 1}: ${field} is a response field; a request phase's expression uses request fields (a rate limiting rule may count responses in its ${counting})`;
}

/** Fields only a zone with Bot Management may use in a rule: an add-on of the enterprise plan (docs/service.md#ruleset-entitlements). */
const BOT_MANAGEMENT_FIELD = /^cf\.bot_management\./;

/**
 * The first field of `fields` (those a rule's expressions read) that a zone on `plan` is not entitled to, as the
 * service's refusal words it, or undefined. The providers' check does not know the zone's plan: a preview's dry run
 * finds it (kit/phase-rule.ts). Pure.
 */
export function entitlementProblem(fields: readonly string[], plan: string): string | undefined {
  if (plan === 'enterprise') return undefined;
  const field = fields.find((name) => BOT_MANAGEMENT_FIELD.test(name));
  return field === undefined ? undefined : `${field} needs Bot Management, an add-on of the enterprise plan; this zone is on the ${plan} plan`;
}

/**
 * The providers' expression check for these phases: the rules-language checker, host names compared with http.host
 * in ASCII (src/expression/hosts.ts), and request fields only where the phase runs before the answer. Pure.
 */
export function declaredExpressionProblem(text: string, { responseFields }: { responseFields: boolean }): string | undefined {
  const result = checkExpression(text);
  if (!result.ok) return result.errors.map(formatExpressionError)[0];
  const parsed = parseExpression(text);
  const host = parsed.ok ? hostStringProblems(parsed.ast)[0] : undefined;
  if (host !== undefined) return host;
  return responseFields ? undefined : responseFieldProblem(text, result.fields, `ratelimit.${DECLARED_NAMES.counting_expression}`);
}

/** One failure of a declared rule: the input path and what is wrong. */
export interface DeclaredRuleProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Everything wrong with a declared rule of `phase` that its shape does not say: which parameters go with which
 * action, the grammar of the phase (src/rulesets/grammar.ts) on its wire form `wire` (src/kinds/phase-rule-wire.ts
 * phaseRuleToWire, from the kinds' field tables), and a skip of the rest of the phase placed last or not placed (a
 * create lands last), where it would skip nothing and skip every rule added later; an adoption leaves the rule where
 * it runs. Pure.
 */
export function declaredRuleProblems(rule: DeclaredRule, phase: RulePhase, wire: Omit<RulesetRule, 'id'>): DeclaredRuleProblem[] {
  const problems: DeclaredRuleProblem[] = [];
  if (rule.response !== undefined && rule.action !== 'block') {
    problems.push({ path: ['response'], message: `allowed only with action block (action is ${rule.action}); remove response` });
  }
  if (rule.skip !== undefined && rule.action !== 'skip') {
    problems.push({ path: ['skip'], message: `allowed only with action skip (action is ${rule.action}); remove skip` });
  }
  if (rule.skip === undefined && rule.action === 'skip') {
    problems.push({ path: ['skip'], message: 'required with action skip: what the rule skips, for example { ruleset: "current" } or { products: ["waf"] }' });
  }
  if (problems.length > 0) return problems;
  for (const problem of ruleProblems({ ...wire, id: '' }, phase, declaredExpressionProblem)) {
    const path = declaredRulePath(problem.kind === 'parameterRequired' && rule.action === 'skip' ? ['action_parameters'] : problem.path);
    problems.push({ path, message: declaredRuleProblemText(problem) });
  }
  if (rule.skip?.ruleset === 'current' && rule.position === undefined && rule.adoptRuleId === undefined) {
    problems.push({
      path: ['position'],
      message:
        'required when the rule skips the rest of this phase\'s rules (skip.ruleset "current"): without it the rule is added last, where it skips nothing, ' +
        'and every rule added later runs after it and is skipped; place it before the rules it is an exception to (first: true, or before: a rule)',
    });
  }
  if (rule.skip?.ruleset === 'current' && rule.position !== undefined && 'last' in rule.position) {
    problems.push({
      path: ['position'],
      message:
        "the rule skips the rest of this phase's rules, but runs last, so it would skip nothing; place it before the rules it is an exception to (first: true, or before: a rule)",
    });
  }
  return problems;
}

/** The rule a `before` or `after` place names (its id or ref). Pure. */
const placeName = (place: { before: string } | { after: string }): string => ('before' in place ? place.before : place.after);

/**
 * The rules a place's name names: the rule of that id; else every rule whose ref is the name, whole or as its owner's
 * own part before the owner marker (docs/ownership.md), as the other resource declared it. A rule of this stack, of
 * another owner, or made by hand alike: more than one means the name cannot say which. Pure.
 */
export function rulesNamed(rules: readonly RulesetRule[], name: string): RulesetRule[] {
  const byId = rules.find((rule) => rule.id === name);
  if (byId !== undefined) return [byId];
  return rules.filter((rule) => rule.ref !== undefined && (rule.ref === name || splitMarked(rule.ref).own === name));
}

/** The one rule a place's name names (rulesNamed); undefined when none, or several. Pure. */
export function namedRule(rules: readonly RulesetRule[], name: string): RulesetRule | undefined {
  const named = rulesNamed(rules, name);
  return named.length === 1 ? named[0] : undefined;
}

/**
 * The rules a place names by a ref that more than one rule of the phase carries (docs/custom-rules.md#position):
 * two owners' rules declared alike, or a rule made by hand with a ref another rule carries. Empty when the place
 * names one rule or none. Pure.
 */
export function rulesSharingName(rules: readonly RulesetRule[], place: RulePlace | undefined): RulesetRule[] {
  if (place === undefined || 'first' in place || 'last' in place) return [];
  const named = rulesNamed(rules, placeName(place));
  return named.length > 1 ? named : [];
}

/** Whether rule `id` runs where `place` says among `rules` (a rule it names that is gone: it does not). Pure. */
export function placeHolds(rules: readonly RulesetRule[], id: string, place: RulePlace): boolean {
  const index = rules.findIndex((rule) => rule.id === id);
  if (index < 0) return false;
  if ('first' in place) return index === 0;
  if ('last' in place) return index === rules.length - 1;
  const other = namedRule(rules, placeName(place));
  if (other === undefined || other.id === id) return false;
  const at = rules.indexOf(other);
  return 'before' in place ? index < at : index > at;
}

/**
 * Where rule `id` runs, as a read reports it: the declared place while it holds, else where the rule is now (first,
 * or after the rule before it, by its ref), so the next preview shows the move back. Undefined when none is declared
 * (the rule's place is then the service's business). Pure.
 */
export function observedPlace(rules: readonly RulesetRule[], id: string, declared: RulePlace | undefined): RulePlace | undefined {
  if (declared === undefined || placeHolds(rules, id, declared)) return declared;
  const index = rules.findIndex((rule) => rule.id === id);
  if (index <= 0) return { first: true };
  const previous = rules[index - 1]!;
  // By the ref its program declared, without an owner marker (docs/ownership.md), as a place names it; by its id when
  // another rule carries that ref too.
  const own = splitMarked(previous.ref).own;
  return { after: own !== '' && rulesNamed(rules, own).length === 1 ? own : (previous.id ?? '') };
}

/**
 * Where a rule placed at `place` lands among `others` (the zone's rules but itself, in the order they run): the index
 * it takes (0-based), or the name a place gives that no rule has. No place, or `last`: after every other. Pure.
 */
export function landingIndex(others: readonly RulesetRule[], place: RulePlace | undefined): number | { missing: string } {
  if (place === undefined || 'last' in place) return others.length;
  if ('first' in place) return 0;
  const name = placeName(place);
  const named = namedRule(others, name);
  if (named === undefined) return { missing: name };
  const at = others.indexOf(named);
  return 'before' in place ? at : at + 1;
}

/**
 * The rules whose order against a rule a write changes (docs/custom-rules.md#previews): for a create (`id`
 * undefined) the rules it lands ahead of; for a move of rule `id`, the rules it passes over. None when `place` names
 * no rule (the write fails on that). Pure.
 */
export function passedOver(rules: readonly RulesetRule[], id: string | undefined, place: RulePlace | undefined): RulesetRule[] {
  const others = id === undefined ? rules : rules.filter((rule) => rule.id !== id);
  const from = id === undefined ? others.length : rules.findIndex((rule) => rule.id === id);
  const to = landingIndex(others, place);
  if (typeof to !== 'number' || from < 0) return [];
  return to < from ? others.slice(to, from) : others.slice(from, to);
}

/**
 * The wire position that puts a rule where `place` says among `others` (the rules but itself), or a message when
 * the rule it names is not in the phase. `last` on a create is the service's default (no position). Pure.
 */
export function positionOf(others: readonly RulesetRule[], place: RulePlace | undefined, moving: boolean): RulePosition | undefined | { missing: string } {
  if (place === undefined) return undefined;
  if ('first' in place) return { index: 1 };
  if ('last' in place) return moving ? { index: others.length + 1 } : undefined;
  const name = placeName(place);
  const other = namedRule(others, name);
  if (other?.id === undefined) return { missing: name };
  return 'before' in place ? { before: other.id } : { after: other.id };
}
