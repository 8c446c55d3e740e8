// The handlers of CustomRule and RateLimitRule: the flow of every kind of many objects per zone (kit/flow.ts) over the
// calls of a phase rule (kit/phase-rule-calls.ts), and the check and diff that send a preview's write as a dry run.
import { isDeepStrictEqual } from 'node:util';
import { declarationOf, diffPlan, phaseRuleToWire, type ResourceKind } from '../../kinds';
import { MARKER_KEY } from '../../kinds/marker';
import { comparedRule, declaredRuleProblems, type DeclaredRule } from '../../rulesets';
import { CUSTOM_PHASE, RATELIMIT_PHASE } from '../../schemas';
import { withMarker } from '../../schemas/owner-marker';
import { checkWithSchema, containsUnknown, isEngineKey, PREVIEW_UNKNOWN } from './check';
import { diffFields } from './diff';
import { dryRunStep } from './dry-run';
import { objectKind } from './flow';
import { checkedInputs, recordedOutputs, type Props, type Context } from './context';
import { ProviderError, step, type Implementation, type LiveObject } from './implementation';
import { markerFor, writtenMarker } from './marker';
import { ownerOf } from './ownership';
import { PhaseRuleCalls, foundIn, normalizeRuleField, outputsOfRule, type FoundRule, type PhaseRuleOutputs } from './phase-rule-calls';

export { createdRule, landingLine, normalizeRuleField, outputsOfRule, type FoundRule, type Landing, type PhaseRuleOutputs } from './phase-rule-calls';

/** What a kind of phase rule tells the shared implementation: which kind; its phase is its declaration's (src/kinds). */
export interface PhaseRuleSpec {
  kind: ResourceKind;
}

/** The fields a check of the rule's grammar needs known; while one is unknown (preview), the grammar waits for up. */
const GRAMMAR_INPUTS = ['action', 'expression', 'response', 'skip', 'ratelimit', 'position'] as const;

/** Whether an update moves the rule: its place is declared, and differs from the one the state holds. Pure. */
export function moves(olds: { position?: unknown }, news: { position?: unknown }): boolean {
  return news.position !== undefined && !isDeepStrictEqual(normalizeRuleField('position', olds.position), normalizeRuleField('position', news.position));
}

/**
 * Whether no declared input is still unknown (preview), so the exact write can be sent as a dry run. The owner may be
 * (a new stack's owner id is drawn by its first up): the dry run then sends a marker of the same form. Pure.
 */
const allKnown = (news: Record<string, unknown>) =>
  Object.entries(news).every(([key, value]) => isEngineKey(key) || (value !== PREVIEW_UNKNOWN && !containsUnknown(value)));

/**
 * The declared rule as a write sends it: its ref with the owner marker (kit/marker.ts marks the inputs of create and
 * update, not those of check and diff), so a preview's dry run is the exact write. `marker`: for an update the one
 * the state records, else the program's. Pure.
 */
export function asWritten(news: Record<string, unknown>, marker: unknown): DeclaredRule {
  const ref = typeof marker === 'string' && marker !== '' ? { ref: withMarker(typeof news.ref === 'string' ? news.ref : '', marker) } : {};
  return checkedInputs<DeclaredRule>({ ...news, ...ref });
}

/** Whether a live read is an adoption's of rule `id` with takeOver (PhaseRuleCalls.live). Pure. */
const takingOver = (props: { adoptRuleId?: string | undefined; takeOver?: unknown }, id: string) => props.adoptRuleId === id && props.takeOver === true;

/** The check of a phase rule: its schema, then its phase's grammar, then in a preview of a create the write as a dry run. */
async function check(kind: PhaseRuleSpec['kind'], rules: PhaseRuleCalls, ctx: Context, olds: Props, news: Props) {
  const result = checkWithSchema(declarationOf(kind).args, news, kind, { multiline: ['expression', 'ratelimit'] });
  if (result.failures.length > 0 || GRAMMAR_INPUTS.some((key) => news[key] === PREVIEW_UNKNOWN || containsUnknown(news[key]))) return result;
  const declared = checkedInputs<DeclaredRule>(result.inputs ?? {});
  const problems = declaredRuleProblems(declared, rules.phase, phaseRuleToWire(declared));
  if (problems.length > 0) {
    return { inputs: news, failures: problems.map(({ path, message }) => ({ property: path.join('.'), reason: `${kind}.${path.join('.')}: ${message}` })) };
  }
  rules.noteOurs(ownerOf(news));
  if (!ctx.preview) return result;
  // A preview of a create (no old inputs) sends the write the up would make, with dry_run=true (PhaseRuleCalls.previewCreate).
  const inputs = result.inputs ?? {};
  if (Object.keys(olds).length === 0 && inputs.adoptRuleId === undefined && allKnown(inputs)) {
    await dryRunStep(ctx.label(), () => rules.previewCreate(ctx, asWritten(inputs, markerFor(kind, news))), 'create');
  }
  return result;
}

/** The diff of a phase rule; in a preview of a change, the exact write sent as a dry run. */
async function diff(kind: PhaseRuleSpec['kind'], rules: PhaseRuleCalls, ctx: Context, id: string, olds: Props, news: Props) {
  const result = diffFields(olds, comparedRule(news), diffPlan(declarationOf(kind)), normalizeRuleField);
  rules.noteOurs(olds[MARKER_KEY]);
  // A preview of a change sends the exact write with dry_run=true, so the service's refusal (its quota, an
  // expression it refuses) shows on this resource's line; an unchanged resource, and an up, cost no call.
  if (!ctx.preview || !result.changes || !allKnown(news)) return result;
  if ((result.replaces ?? []).length > 0) {
    await dryRunStep(ctx.label(), () => rules.previewCreate(ctx, asWritten(news, markerFor(kind, news))), 'create');
    return result;
  }
  const previous = { ...recordedOutputs<PhaseRuleOutputs>(olds), ruleId: id };
  const move = moves(olds, news);
  await dryRunStep(ctx.label(id), () => rules.patch(ctx, asWritten(news, writtenMarker(kind, olds, news)), previous, move, true));
  if (move) await rules.previewMove(ctx, checkedInputs<DeclaredRule>(news), id);
  return result;
}

/** Every method of a kind of phase rule, and the live read its owner marker needs (kit/marker.ts). */
export function phaseRule({ kind }: PhaseRuleSpec): Implementation & Partial<LiveObject> {
  const { identity } = declarationOf(kind);
  if (identity.phase !== CUSTOM_PHASE && identity.phase !== RATELIMIT_PHASE) throw new Error(`zoneguard: ${kind} declares no phase of a ruleset rule`);
  const rules = new PhaseRuleCalls(identity.phase, identity.noun);
  return objectKind<FoundRule, DeclaredRule, PhaseRuleOutputs>({
    kind,
    check: (ctx, olds, news) => check(kind, rules, ctx, olds, news),
    diff: (ctx, id, olds, news) => diff(kind, rules, ctx, id, olds, news),
    object: `the ${identity.noun}`,
    step,
    writing: (zoneId, call) => rules.writing(zoneId, call),
    read: (ctx, zoneId, id) => rules.read(ctx, zoneId, id),
    // From the entry point as last read or written: a destroy of a zone's rules reads it about once.
    live: (ctx, id, props) => rules.live(ctx, props.zoneId, id, takingOver(props, id)),
    // From the entry point as this run read it first, the read a create makes anyway.
    listing: (ctx, zoneId) => rules.listing(ctx, zoneId),
    adopting: (inputs) => inputs.adoptRuleId,
    adopt: (ctx, inputs, id) => rules.adopt(ctx, inputs, id),
    create: (ctx, inputs) => rules.create(ctx, inputs),
    update: async (ctx, inputs, id, olds) => {
      const saved = await rules.patch(ctx, inputs, { ...olds, ruleId: id }, moves(olds, inputs));
      const found = saved && foundIn(saved).find((rule) => rule.id === id);
      if (!found) throw new ProviderError(`${ctx.label(id)}: the service answered the update without the rule`);
      return found;
    },
    remove: (ctx, id, { zoneId, rulesetId }) => ({ call: () => rules.remove(ctx, zoneId, rulesetId, id) }),
    outputs: (found, declared) => outputsOfRule(declared.zoneId, found, declared),
  });
}
