// The firewall rules upgrade plan of a zone: for each legacy firewall rule, the custom rule it is or will be, who
// holds it, and every difference in behaviour, read without changing anything (docs/firewall-and-migration.md#upgrade-plan).
// `planFromReads` decides (pure); `readFirewallUpgradePlan` reads through the client.
import type { ZoneGuardClient } from '../client';
import { AuthenticationError, NotFoundError, RetiredApiError, ZoneGuardError } from '../client/errors';
import { convertFirewallRules, declaredExpressionProblem, declaredRuleProblemText, legacyOrder, ruleProblems, sameOutcome } from '../rulesets';
import { CUSTOM_PHASE, type FirewallRuleWire, type RulesetRule, type SavedRuleset } from '../schemas';
import { checkEquivalence, describeRequest, describeVerdict, equivalenceLine, requestsOf, zoneEvaluator, type KeyedCustomRule } from './equivalence';
import { holderOf, holderText, markerOf, matchConversions, ruleNotes, type Holder, type Holders } from './match';
import { moveOf, moveProblems, type Move, type MoveEntry } from './move';

/** One legacy rule in the plan. */
export interface PlannedRule {
  legacyRuleId: string;
  action: string;
  expression: string;
  priority: number | null;
  /** 1-based place of its custom rule in the custom phase (after the conversion, for one still to come). */
  position: number;
  /** The custom rule's id when the zone holds the conversion already; null while it is still to be made. */
  customRuleId: string | null;
  /** The custom rule it is or will be: action, parameters, expression, description, ref, enabled. */
  customRule: RulesetRule;
  /** Who holds it: this stack's resource, another owner's marker, or nobody. */
  holder: string;
  /** Each difference in behaviour the conversion makes for this rule (empty: none found). */
  differences: string[];
}

/** The plan of a zone. */
export interface FirewallRulesUpgradePlan {
  zoneId: string;
  /** `readable` while the legacy API answers reads (available or maintenance), `retired` once it answers 410. */
  legacyApi: 'readable' | 'retired';
  /** Whether the zone's custom phase holds the conversion of every legacy rule already. */
  converted: boolean;
  rules: PlannedRule[];
  /** Custom rules of the phase that are no legacy rule's conversion, with who holds them: left alone. */
  otherCustomRules: { id: string; description: string; holder: string }[];
  /** The equivalence verdict of the zone in one line, and the requests that differ with both outcomes. */
  equivalence: { verdict: string; tried: number; differences: { request: string; before: string; after: string }[]; unreached: string[] } | null;
  /** Bad input, one line each, naming the rule and what to do; empty when the move can go ahead. */
  problems: string[];
  /** The move of the rules the given stacks hold to CustomRules (docs/firewall-and-migration.md#move); null without stack exports. */
  move: Move | null;
}

/** What the plan is made of: the reads, the zone's dry run of the converted phase, and the stack exports' holders. */
export interface PlanReads {
  zoneId: string;
  legacy: FirewallRuleWire[] | 'retired';
  phase: SavedRuleset | undefined;
  holders?: Holders;
  /** The service's refusals of a dry run of the phase after the conversion (a quota, a grammar problem). */
  dryRunRefusals?: string[];
}

/** The custom phase's rules after the conversion: the zone's own, then the converted ones still to come. */
function phaseAfter(reads: PlanReads, ordered: FirewallRuleWire[], matched: (number | undefined)[]): { rules: RulesetRule[]; positions: number[] } {
  const rules = [...(reads.phase?.rules ?? [])];
  const positions = ordered.map((legacy, i) => {
    const at = matched[i];
    if (at !== undefined) return at + 1;
    rules.push(convertFirewallRules([legacy])[0] as RulesetRule);
    return rules.length;
  });
  return { rules, positions };
}

/** The plan of a zone whose legacy firewall API is retired: its rules are custom rules already. Pure. */
function retiredPlan(reads: PlanReads): FirewallRulesUpgradePlan {
  const { zoneId } = reads;
  const phaseRules = reads.phase?.rules ?? [];
  const move = reads.holders
    ? moveOf(
        phaseRules.flatMap((rule) => held(reads.holders, null, rule, holderOf([rule.id], markerOf(rule.ref), reads.holders))),
        null,
      )
    : null;
  return {
    zoneId,
    legacyApi: 'retired',
    converted: true,
    rules: [],
    otherCustomRules: phaseRules.map((rule) => ({
      id: rule.id ?? '',
      description: rule.description ?? '',
      holder: holderText(holderOf([rule.id], markerOf(rule.ref), reads.holders)),
    })),
    equivalence: null,
    problems: move ? moveProblems(zoneId, move) : [],
    move,
  };
}

/** What keeps the conversion from passing: each converted rule the rulesets grammar refuses, and the dry run's refusals. Pure. */
function conversionProblems(reads: PlanReads, ordered: readonly FirewallRuleWire[], converted: readonly RulesetRule[]): string[] {
  const problems = ordered.flatMap((legacy, i) =>
    ruleProblems(converted[i] as RulesetRule, CUSTOM_PHASE, declaredExpressionProblem).map(
      (problem) =>
        `firewall rule ${legacy.id}: the rulesets grammar refuses its conversion (${problem.path.join('.') || 'rule'}: ${declaredRuleProblemText(problem)}); change the rule while the legacy API is available, or declare it as a CustomRule of your own`,
    ),
  );
  const refusals = (reads.dryRunRefusals ?? []).map(
    (refusal) =>
      `zone ${reads.zoneId}: the service refuses the custom phase after the conversion (dry run): ${refusal}; the conversion fails while it does: remove or change rules until the dry run passes`,
  );
  return [...problems, ...refusals];
}

/** The plan from what was read. Pure. */
export function planFromReads(reads: PlanReads): FirewallRulesUpgradePlan {
  if (reads.legacy === 'retired') return retiredPlan(reads);
  const { zoneId } = reads;
  const phaseRules = reads.phase?.rules ?? [];
  const ordered = legacyOrder(reads.legacy);
  const matched = matchConversions(ordered, phaseRules);
  const { rules: after, positions } = phaseAfter(reads, ordered, matched);
  const keys = new Map<number, string>(positions.map((position, i) => [position - 1, ordered[i]?.id ?? '']));
  // The whole phase after, each conversion keyed by its legacy rule; the phase's other rules ran after the legacy ones before.
  const keyed: KeyedCustomRule[] = after.map((rule, i) => ({ key: keys.get(i) ?? rule.id ?? `custom rule ${i + 1}`, rule }));
  const equivalence = checkEquivalence(reads.legacy, keyed, keyed.filter((_, i) => i < phaseRules.length && !keys.has(i)));
  const differing = (id: string) =>
    equivalence.differences.filter((d) => d.before.by === id || d.after.by === id || d.before.logged.includes(id) !== d.after.logged.includes(id));
  const problems = conversionProblems(reads, ordered, ordered.map((_legacy, i) => after[(positions[i] ?? 1) - 1] as RulesetRule));
  const planned = ordered.map((legacy, i): PlannedRule => {
    const at = matched[i];
    const examples = differing(legacy.id);
    return {
      legacyRuleId: legacy.id,
      action: legacy.action,
      expression: legacy.filter.expression,
      priority: legacy.priority ?? null,
      position: positions[i] ?? 0,
      customRuleId: at === undefined ? null : (phaseRules[at]?.id ?? null),
      customRule: after[(positions[i] ?? 1) - 1] as RulesetRule,
      holder: holderText(
        holderOf(
          [legacy.id, legacy.filter.id, at === undefined ? undefined : phaseRules[at]?.id],
          markerOf(legacy.ref, legacy.filter.ref, at === undefined ? undefined : phaseRules[at]?.ref),
          reads.holders,
        ),
      ),
      differences: [
        ...ruleNotes(legacy, reads.legacy as FirewallRuleWire[]),
        ...(examples.length > 0
          ? [
              `${examples.length} request(s) of those tried meet it differently, e.g. ${describeRequest(examples[0]!.request)}: before ${describeVerdict(examples[0]!.before)}, after ${describeVerdict(examples[0]!.after)}`,
            ]
          : []),
      ],
    };
  });
  const mine = new Set(matched.filter((i): i is number => i !== undefined));
  const entries = ordered.flatMap((legacy, i) => {
    const at = matched[i];
    const custom = at === undefined ? undefined : phaseRules[at];
    const holder = holderOf([legacy.id, legacy.filter.id, custom?.id], markerOf(legacy.ref, legacy.filter.ref, custom?.ref), reads.holders);
    return held(reads.holders, legacy.id, custom ?? (after[(positions[i] ?? 1) - 1] as RulesetRule), holder);
  });
  const move = reads.holders
    ? moveOf(entries, phaseRules.at(-1)?.id ?? null, equivalence.unevaluated.length > 0 ? [] : moveEndDifferences(reads.legacy, phaseRules, entries))
    : null;
  return {
    zoneId,
    legacyApi: 'readable',
    converted: matched.every((i) => i !== undefined),
    rules: planned,
    otherCustomRules: phaseRules.flatMap((rule, i) =>
      mine.has(i)
        ? []
        : [{ id: rule.id ?? '', description: rule.description ?? '', holder: holderText(holderOf([rule.id], markerOf(rule.ref), reads.holders)) }],
    ),
    equivalence: {
      verdict: equivalenceLine(equivalence),
      tried: equivalence.tried,
      differences: equivalence.differences.map((d) => ({
        request: describeRequest(d.request),
        before: describeVerdict(d.before),
        after: describeVerdict(d.after),
      })),
      unreached: [...equivalence.unreached],
    },
    problems: move ? [...problems, ...moveProblems(zoneId, move)] : problems,
    move,
  };
}

/**
 * The requests a move still to come (the rules created, then the moved legacy rules deleted) leaves decided otherwise:
 * the zone before, and the zone after with the legacy rules the move leaves, which still run first
 * (docs/service.md#zone-evaluation), then the phase's rules and the created ones. None when the zone is converted.
 * Only where every rule can be evaluated offline (else the verdict says `not decided`). Pure.
 */
function moveEndDifferences(legacy: readonly FirewallRuleWire[], phase: readonly RulesetRule[], entries: readonly MoveEntry[]): Move['differences'] {
  const moved = entries.filter((entry) => entry.customRuleId === null && entry.legacyRuleId !== null);
  if (moved.length === 0) return [];
  const keyed = (rules: readonly RulesetRule[]) => rules.map((rule, i): KeyedCustomRule => ({ key: rule.id ?? `custom rule ${i + 1}`, rule }));
  const gone = new Set(moved.map((entry) => entry.legacyRuleId));
  const requests = requestsOf([...legacy.map((rule) => rule.filter.expression), ...phase.map((rule) => rule.expression)]);
  const before = zoneEvaluator({ legacyRuns: true, legacy, custom: keyed(phase) });
  const after = zoneEvaluator({
    legacyRuns: true,
    legacy: legacy.filter((rule) => !gone.has(rule.id)),
    custom: [...keyed(phase), ...moved.map((entry): KeyedCustomRule => ({ key: entry.legacyRuleId!, rule: entry.rule }))],
  });
  return requests.flatMap((request) => {
    const [was, now] = [before(request), after(request)];
    return sameOutcome(was, now) ? [] : [{ request: describeRequest(request), before: describeVerdict(was), after: describeVerdict(now) }];
  });
}

/** A rule of the plan as an entry of the move, when the given stacks hold it. */
function held(holders: Holders | undefined, legacyRuleId: string | null, rule: RulesetRule, holder: Holder): MoveEntry[] {
  if (holders === undefined || holder.by !== 'this stack') return [];
  return [{ holder, legacyRuleId, customRuleId: rule.id ?? null, rule }];
}

/** A read the token may not make: one clear line naming the API and what to do. */
function unreadable(zoneId: string, what: string, error: unknown): never {
  if (error instanceof AuthenticationError) {
    throw new Error(
      `zone ${zoneId}: the token cannot read ${what} (${error.message}); give it read access to that API for this zone, or run with a token that has it`,
    );
  }
  throw error;
}

/** Reads the zone and makes the plan; nothing is changed (the one write is a dry run, which saves nothing). */
export async function readFirewallUpgradePlan(client: ZoneGuardClient, zoneId: string, holders?: Holders): Promise<FirewallRulesUpgradePlan> {
  let legacy: FirewallRuleWire[] | 'retired';
  try {
    legacy = await client.firewallRules.list({ zoneId }).toArray();
  } catch (error) {
    if (error instanceof RetiredApiError && error.status === 410) legacy = 'retired';
    else unreadable(zoneId, 'its firewall rules (the legacy firewall rules API)', error);
  }
  let phase: SavedRuleset | undefined;
  try {
    phase = await client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE });
  } catch (error) {
    if (!(error instanceof NotFoundError)) unreadable(zoneId, `its custom rules (the rulesets API, phase ${CUSTOM_PHASE})`, error);
  }
  const reads: PlanReads = { zoneId, legacy, phase, ...(holders ? { holders } : {}) };
  const draft = planFromReads(reads);
  if (draft.converted || legacy === 'retired') return draft;
  // The rules still to convert, but those the grammar refuses (already one line each): the dry run then speaks of the phase.
  const toCome = convertFirewallRules(legacy).filter(
    (rule, i) => draft.rules[i]?.customRuleId === null && ruleProblems(rule, CUSTOM_PHASE, declaredExpressionProblem).length === 0,
  );
  const rules = [...(phase?.rules ?? []), ...toCome];
  try {
    await client.rulesets.updateEntrypoint({ zoneId, phase: CUSTOM_PHASE, ruleset: { name: phase?.name ?? 'default', rules }, dryRun: true });
    return draft;
  } catch (error) {
    if (error instanceof AuthenticationError) {
      // A read-only token reads everything the plan needs but this check: say so rather than fail the plan.
      return {
        ...draft,
        problems: [
          ...draft.problems,
          `zone ${zoneId}: the token cannot dry-run the custom phase after the conversion (${error.message}), so its quota is not checked; run the plan with a token that may edit rulesets to check it`,
        ],
      };
    }
    if (!(error instanceof ZoneGuardError) || error.status !== 400) throw error;
    return planFromReads({ ...reads, dryRunRefusals: error.errors.map((item) => item.message) });
  }
}
