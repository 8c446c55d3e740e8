import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { MANAGED_RULESET_NAMES, repeats, type EntrypointRuleset, type SavedRuleset } from '../schemas';
import {
  ManagedRuleSchema,
  declaredOf,
  managedEntrypointBlocker,
  managedRuleToWire,
  normalizeRule,
  skippedRulesets,
  SkipSchema,
  type Skip,
} from '../rulesets';
import { checkWithSchema, containsUnknown, PREVIEW_UNKNOWN } from './kit/check';
import { checkedInputs, implementationOf, recordedOutputs, type Props, type Context } from './kit/context';
import { ProviderError, step, unlessNotFound } from './kit/implementation';
import { nameOf } from './kit/ownership';
import { MARKER_KEY } from '../kinds/marker';
import { heldMarker, markerOutdated, otherOwner, recordedMarker, writtenMarker } from './kit/marker';
import { markerIn, splitMarked, withMarker } from '../schemas/owner-marker';
import { dryRunStep } from './kit/dry-run';
import { WafManagedRulesKind, label as kindLabel } from '../kinds';

const RESOURCE = WafManagedRulesKind.kind;
/** Where the entry point carries its owner marker: the end of its description (src/kinds/waf-managed-rules.ts). */
const MARKED_FIELD = WafManagedRulesKind.identity.marker;

/** Inputs of a WafManagedRules as the provider sees them (src/kinds/waf-managed-rules.ts). */
export const WafManagedRulesArgsSchema = WafManagedRulesKind.args;
export type WafManagedRulesInputs = z.output<typeof WafManagedRulesArgsSchema>;

/**
 * Failures the schema cannot see, one per field, each naming the rule's ref: a ref repeated in the order, a ref
 * without its rule or a rule without its place, and a skip placed after every execute it would skip (it would skip
 * nothing: rules run in order, docs/service.md). Unknown values (preview) are let through. Pure.
 */
export function orderFailures(inputs: { order?: unknown; rules?: unknown }): pulumi.dynamic.CheckFailure[] {
  const { order, rules } = inputs;
  if (!Array.isArray(order) || containsUnknown(order) || rules === null || typeof rules !== 'object' || containsUnknown(rules)) return [];
  // A Map of the own entries: a ref named like a member of Object.prototype (toString) must find no rule of its own.
  const byRef = new Map<string, unknown>(Object.entries(rules));
  // Check gives the raw inputs when the schema refused them: a ref that is no string is left to the schema's failure.
  const refs = order.map((ref: unknown) => (typeof ref === 'string' ? ref : undefined));
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const { index, value, first } of repeats(refs)) {
    failures.push({
      property: `order.${index}`,
      reason: `${RESOURCE}.order.${index}: ref "${value}" is declared twice (rules ${first} and ${index}); refs must be unique`,
    });
  }
  const seen = new Map<string, number>();
  refs.forEach((ref, index) => {
    if (ref !== undefined && !seen.has(ref)) seen.set(ref, index);
  });
  for (const ref of byRef.keys()) {
    if (!seen.has(ref)) failures.push({ property: `rules.${ref}`, reason: `${RESOURCE}.rules.${ref}: the rule has no place in order; add "${ref}" to order` });
  }
  const places: pulumi.dynamic.CheckFailure[] = [];
  // From the last rule back, with the rulesets executed after the current one gathered on the way: linear, where a
  // look at every later rule from each skip was quadratic (20,000 rules took 13 s).
  const executedAfter = new Set<unknown>();
  for (let index = refs.length - 1; index >= 0; index -= 1) {
    const ref = refs[index];
    if (ref === undefined) continue;
    const rule = byRef.get(ref);
    if (seen.get(ref) === index) {
      if (rule === undefined) places.push({ property: `order.${index}`, reason: `${RESOURCE}.order.${index}: ref "${ref}" names no rule` });
      const skip = skipOf(rule);
      const failure = skip && skipFailure(ref, skip, executedAfter);
      if (failure) places.push(failure);
    }
    const id = executedRulesetOf(rule);
    if (id !== undefined) executedAfter.add(id);
  }
  return [...failures, ...places.reverse()];
}

/** A skip's fields as the rule schema reads them, other keys let through: the schema names those (ManagedRuleSchema). */
const SkipFieldsSchema = z.object(SkipSchema.shape);

/** A declared rule's skip when its fields are well formed, else undefined (the schema's failures name them). */
function skipOf(rule: unknown): Skip | undefined {
  if (rule === null || typeof rule !== 'object' || !('skip' in rule)) return undefined;
  const parsed = SkipFieldsSchema.safeParse(rule.skip);
  return parsed.success ? parsed.data : undefined;
}

/** What a declared rule gives as the ruleset it executes (`execute.rulesetId`), read from a record the schema may have refused. */
function executedRulesetOf(rule: unknown): unknown {
  if (rule === null || typeof rule !== 'object' || !('execute' in rule)) return undefined;
  const { execute } = rule;
  return execute !== null && typeof execute === 'object' && 'rulesetId' in execute ? execute.rulesetId : undefined;
}

/** The failure of a skip rule that no later rule gives anything to skip, or undefined. */
function skipFailure(ref: string, skip: Skip, executedAfter: ReadonlySet<unknown>): pulumi.dynamic.CheckFailure | undefined {
  const skipped = skippedRulesets(skip);
  const reaches = skipped === 'all' ? executedAfter.size > 0 : skipped.some((id) => executedAfter.has(id));
  if (reaches) return undefined;
  const what = skipped === 'all' ? 'the rest of the entry point' : skipped.map((id) => `${id} (${MANAGED_RULESET_NAMES[id] ?? 'unknown'})`).join(', ');
  return {
    property: `rules.${ref}.skip`,
    reason: `${RESOURCE}.rules.${ref}.skip: the rule skips ${what}, but no rule after it executes ${skipped === 'all' ? 'a managed ruleset' : 'it'}, so it would skip nothing; place it before the execute rule it is an exception to`,
  };
}

/** Declared rules by ref and their order: a check's inputs, a state's outputs (kit/context.ts gives both typed) or a saved entry point's (`declaredOf`). */
type DeclaredRules = { order?: readonly string[]; rules?: Readonly<Record<string, z.input<typeof ManagedRuleSchema>>> };
/** Declared rules a preview does not know yet (src/unknown.ts). */
type UnknownRules = { order?: unknown; rules: typeof PREVIEW_UNKNOWN };

/**
 * What changed between two declared states, by ref: `rules.<ref>` for each rule added, removed or changed (ids,
 * versions and times are not part of a declared rule, so they never count), and `order` when the refs run in
 * another order. An unknown value (preview) is a change. Pure.
 */
export function changedRules(olds: DeclaredRules, news: DeclaredRules | UnknownRules): string[] {
  if (containsUnknown(news.rules) || news.rules === PREVIEW_UNKNOWN) return ['rules'];
  // Maps of the own entries, so a ref named like a member of Object.prototype is looked up as any other.
  const before = new Map(Object.entries(olds.rules ?? {}));
  const after = new Map(Object.entries(news.rules ?? {}));
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((ref) => {
      const a = before.get(ref);
      const b = after.get(ref);
      return a === undefined || b === undefined || !isDeepStrictEqual(normalizeRule(a), normalizeRule(b));
    })
    .map((ref) => `rules.${ref}`);
  const sameOrder = !containsUnknown(news.order) && isDeepStrictEqual(olds.order ?? [], news.order ?? []);
  return sameOrder ? changed : [...changed, 'order'];
}

/** Whether a saved entry point holds exactly the declared rules (content, ref and order; ids aside). Pure. */
export function holdsDeclared(saved: Pick<EntrypointRuleset, 'rules'>, declared: Pick<WafManagedRulesInputs, 'order' | 'rules'>): boolean {
  return changedRules(declaredOf(saved), declared).length === 0;
}

/**
 * The body of the entry point PUT that brings `current` to the declared rules: each rule sent with the id the
 * service gave the rule of the same ref, so unchanged rules keep their id, version and time; a rule of a new ref is
 * sent without id. The ruleset's name and description stay the service's. Pure.
 */
export function entrypointUpdate(
  current: Pick<EntrypointRuleset, 'name' | 'description' | 'rules'> | undefined,
  declared: Pick<WafManagedRulesInputs, 'order' | 'rules'>,
  marker?: string,
): EntrypointRuleset {
  const ids = new Map((current?.rules ?? []).map((rule) => [rule.ref || rule.id || '', rule.id ?? '']));
  // The owner marker goes at the end of the description, after what the description held (docs/ownership.md).
  const description = marker === undefined ? current?.description : withMarker(splitMarked(current?.description).own, marker);
  return {
    name: current?.name ?? 'default',
    ...(description !== undefined ? { description } : {}),
    rules: rulesInOrder(declared).map(([ref, rule]) => managedRuleToWire(ref, normalizeRule(rule), ids.get(ref) ?? '')),
  };
}

/**
 * The declared rules in their order, each with its ref. Each ref of the order has its rule: check refuses a ref that
 * names none (orderFailures), and `declaredOf` keeps a rule for each ref it lists. Pure.
 */
function rulesInOrder<R>(declared: { order: readonly string[]; rules: Readonly<Record<string, R>> }): Array<[string, R]> {
  return declared.order.map((ref) => {
    const rule = Object.hasOwn(declared.rules, ref) ? declared.rules[ref] : undefined;
    if (rule === undefined) throw new ProviderError(`${RESOURCE}.order: ref "${ref}" names no rule; give it a rule or take it out of order`);
    return [ref, rule];
  });
}

/** The rules create found, as delete puts them back: a ruleset without the service's ids, versions and times. */
export function recordOf(saved: SavedRuleset): EntrypointRuleset {
  return {
    name: saved.name,
    ...(saved.description !== undefined ? { description: saved.description } : {}),
    rules: rulesInOrder(declaredOf(saved)).map(([ref, rule]) => managedRuleToWire(ref, rule)),
  };
}

/** Outputs: the inputs as the service holds them, the service's ids by ref, its version, and what create found. */
export type WafManagedRulesOutputs = WafManagedRulesInputs & {
  /** The service's id of each rule, by ref. */
  ruleIds: Record<string, string>;
  /** The entry point's version after the last create, update or refresh. */
  version: string;
  /** What the entry point held before this resource took it over; delete puts it back unless restoreOnDelete is false. */
  recorded: EntrypointRuleset | null;
};

function outputsOf(inputs: WafManagedRulesInputs, saved: SavedRuleset, recorded: EntrypointRuleset | null, marker?: string): WafManagedRulesOutputs {
  const declared = declaredOf(saved);
  return {
    ...(marker ? { [MARKER_KEY]: marker } : {}),
    zoneId: inputs.zoneId,
    order: declared.order,
    rules: declared.rules,
    restoreOnDelete: inputs.restoreOnDelete,
    ruleIds: Object.fromEntries(saved.rules.map((rule) => [rule.ref || rule.id || '', rule.id ?? ''])),
    version: saved.version ?? '',
    recorded,
  };
}

/**
 * Why create must not take the entry point over yet, or undefined when it may: before the migration there is no new
 * WAF to manage, and in validation the WafMigration resource owns the configuration (docs/service.md#migration-modes).
 */
export function migrationRefusal(zoneId: string, migrationState: string): string | undefined {
  const blocker = managedEntrypointBlocker(migrationState);
  if (blocker === undefined) return undefined;
  const why =
    blocker === 'validation'
      ? 'is in validation mode, where its WafMigration resource owns the new WAF configuration'
      : `has not migrated to the new WAF managed rules (migration_state ${migrationState})`;
  return (
    `${kindLabel(RESOURCE, { zoneId }, undefined)}: refused before any change: zone ${zoneId} ${why}. Declare a WafMigration with mode: 'direct' for ` +
    `the zone (or finish its validation) and give this resource the option dependsOn: [thatMigration], so it is ` +
    `created once the migration is done`
  );
}

/**
 * Why a write must not happen because another writer changed the entry point since this resource last wrote or read
 * it, or undefined when it may. The service has no version check on entry point writes (last writer wins), but
 * every write raises the ruleset's `version` (docs/service.md#ruleset-versions): a version other than the one the
 * state holds, with rules other than the state's, is someone else's change that a write would undo. A new version
 * with the same rules loses nothing. Pure.
 */
export function interveningWriter(
  zoneId: string,
  name: string | undefined,
  last: Pick<WafManagedRulesOutputs, 'version' | 'order' | 'rules'>,
  live: SavedRuleset,
  doing: string,
): string | undefined {
  if ((live.version ?? '') === last.version) return undefined;
  const changed = changedRules(last, declaredOf(live));
  if (changed.length === 0) return undefined;
  return (
    `${kindLabel(RESOURCE, { zoneId }, name)}: refused before any change: the entry point changed since this stack last wrote or ` +
    `refreshed it (version ${last.version || 'none'}, now ${live.version ?? 'none'}; changed: ${changed.join(', ')}), and ${doing} would undo ` +
    `that change. Run pulumi refresh to take the live rules into the state and see them in the next preview, then pulumi up`
  );
}

async function currentEntrypoint(ctx: Context, zoneId: string, what: string): Promise<SavedRuleset | undefined> {
  return step(`${ctx.label()}: ${what}`, () => unlessNotFound(() => ctx.client.rulesets.getEntrypoint({ zoneId }), undefined));
}

async function save(ctx: Context, inputs: WafManagedRulesInputs, current: SavedRuleset | undefined, marker: string): Promise<SavedRuleset> {
  const { zoneId } = inputs;
  return step(`${ctx.label()}: updating the entry point ruleset`, () =>
    ctx.client.rulesets.updateEntrypoint({ zoneId, ruleset: entrypointUpdate(current, inputs, marker) }),
  );
}

/**
 * Why this resource must not take the zone's entry point over, update it or put back what create found, as the
 * owner-marker rule says (kit/marker.ts `otherOwner`: `other` is the marker of the other owner), or undefined when it
 * may. One per zone; the service lets the last writer win, so two stacks would undo each other's rules on every up.
 * Pure.
 */
export function ownerRefusal(what: string, other: string | undefined, doing: 'create' | 'update' | 'delete'): string | undefined {
  if (other === undefined) return undefined;
  const way =
    doing === 'create'
      ? `If that stack no longer manages it, remove its WafManagedRules (with restoreOnDelete: false) or add takeOver: true here`
      : `The marker moved since this stack wrote it (another stack took it over): remove this resource from the program with restoreOnDelete: false (pulumi up), or take the entry point back by declaring it anew with takeOver: true`;
  return `${what}: refused before any change: the entry point is marked as held by another owner (marker ${other} in its description). ${way}`;
}

/** The check: the schema, then the order's own failures; the canonical form of the rules goes to the state. */
async function check(news: Props): Promise<pulumi.dynamic.CheckResult> {
  const result = checkWithSchema(WafManagedRulesArgsSchema, news, RESOURCE);
  const order = orderFailures(result.failures.length > 0 ? news : (result.inputs ?? {}));
  if (order.length > 0 || result.failures.length > 0) return { inputs: news, failures: [...result.failures, ...order] };
  // The canonical form goes to the state, so the engine's display of a change shows only what changed.
  const inputs = result.inputs ?? {};
  if (containsUnknown(inputs.rules)) return result;
  const rules = Object.fromEntries(Object.entries(checkedInputs<WafManagedRulesInputs>(inputs).rules).map(([ref, rule]) => [ref, normalizeRule(rule)]));
  return { inputs: { ...inputs, rules }, failures: [] };
}

/**
 * The diff by ref (changedRules); one entry point per zone: another zone is another resource, and restoreOnDelete
 * changes the state only. A write of the rules is coming: the preview refuses it as the up would when another writer
 * came in between, and sends it with dry_run=true. An unchanged resource costs no call.
 */
async function diff(ctx: Context, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
  const last = recordedOutputs<WafManagedRulesOutputs>(olds);
  const declared = checkedInputs<WafManagedRulesInputs>(news);
  const changed = changedRules(last, declared);
  const zone = news.zoneId !== undefined && news.zoneId !== olds.zoneId ? ['zoneId'] : [];
  const restore = news.restoreOnDelete !== undefined && news.restoreOnDelete !== olds.restoreOnDelete ? ['restoreOnDelete'] : [];
  const all = [...zone, ...changed, ...restore];
  if (changed.length > 0 && zone.length === 0) {
    const live = await currentEntrypoint(ctx, last.zoneId, 'reading the entry point ruleset');
    const refusal = live && interveningWriter(last.zoneId, ctx.name ?? nameOf(olds), last, live, 'this update');
    if (refusal) throw new ProviderError(refusal);
    // The write the up would make, sent with dry_run=true in a preview (not in the up, whose write is the check):
    // the service's refusal fails this resource's preview.
    if (ctx.preview && !containsUnknown(declared.order) && !containsUnknown(declared.rules) && !(live && holdsDeclared(live, declared))) {
      const ruleset = entrypointUpdate(live, declared, writtenMarker(RESOURCE, olds, news));
      await dryRunStep(kindLabel(RESOURCE, { zoneId: last.zoneId }, ctx.name ?? nameOf(olds)), () =>
        ctx.client.rulesets.updateEntrypoint({ zoneId: last.zoneId, ruleset, dryRun: true }),
      );
    }
  }
  // Made before markers or owner ids: the next up writes the marker into the description (the program's inputs
  // carry the owner; a refresh's diff of the old inputs counts nothing).
  return { changes: all.length > 0 || markerOutdated(olds, news), replaces: zone, deleteBeforeReplace: zone.length > 0 ? true : undefined };
}

/** The delete: puts back what create found, unless restoreOnDelete is false, another stack took it, or nothing differs. */
async function restore(ctx: Context, props: WafManagedRulesOutputs): Promise<void> {
  const { zoneId, recorded } = props;
  if (props.restoreOnDelete === false || !recorded) return;
  const current = await currentEntrypoint(ctx, zoneId, 'reading the entry point ruleset before putting back what create found');
  if (!current) return;
  // Another stack took the entry point over: its rules are its own now, and stay.
  const other = otherOwner('delete', markerIn(current, MARKED_FIELD), heldMarker(RESOURCE, props));
  if (other !== undefined) {
    console.error(
      `zoneguard: ${ctx.label()}: not putting back the rules create found: the entry point is marked as held by another owner (marker ${other}); the resource leaves the state and the rules stay`,
    );
    return;
  }
  const declared = declaredOf(recorded);
  if (holdsDeclared(current, declared)) return;
  // Put back only over what this resource last wrote: anything else is someone's change since.
  const refusal = interveningWriter(zoneId, ctx.name, props, current, 'putting back the rules create found');
  if (refusal) throw new ProviderError(`${refusal}; or set restoreOnDelete: false (pulumi up) to leave the rules as they are`);
  await step(`${ctx.label()}: putting back the rules create found`, () =>
    unlessNotFound(
      () =>
        ctx.client.rulesets.updateEntrypoint({
          zoneId,
          ruleset: entrypointUpdate({ ...current, name: recorded.name, description: recorded.description }, declared),
        }),
      undefined,
    ),
  );
}

export const wafManagedRules = implementationOf<WafManagedRulesInputs, WafManagedRulesOutputs>(RESOURCE, {
  check: (_ctx, _olds, news) => check(news),
  diff: (ctx, _id, olds, news) => diff(ctx, olds, news),

  async create(ctx, inputs) {
    const { zoneId } = inputs;
    const status = await step(`${ctx.label()}: reading the migration status`, () => ctx.client.wafMigration.status({ zoneId }));
    const refusal = migrationRefusal(zoneId, String(status.migration_state));
    if (refusal) throw new ProviderError(refusal);
    // Take-over, not duplication: record what the zone holds, and write only when it differs from the declared rules
    // or does not carry this resource's marker yet.
    const current = await currentEntrypoint(ctx, zoneId, 'reading the entry point ruleset');
    const mine = heldMarker(RESOURCE, inputs);
    const carried = current && markerIn(current, MARKED_FIELD);
    const owned = ownerRefusal(ctx.label(), otherOwner('adopt', carried, mine, { takeOver: inputs.takeOver === true }), 'create');
    if (owned) throw new ProviderError(owned);
    const recorded = current ? recordOf(current) : null;
    const saved = current && holdsDeclared(current, inputs) && carried === mine ? current : await save(ctx, inputs, current, mine);
    return { id: zoneId, outs: outputsOf(inputs, saved, recorded, mine) };
  },

  async read(ctx, id, recorded) {
    const current = await currentEntrypoint(ctx, recorded.zoneId, 'reading the entry point ruleset');
    // The zone is gone, or holds no entry point: nothing is managed any more.
    if (!current) return { id: '' };
    const outs = outputsOf(recorded, current, recorded.recorded ?? null, recordedMarker(recorded));
    const inputs = { zoneId: outs.zoneId, order: outs.order, rules: outs.rules, restoreOnDelete: outs.restoreOnDelete };
    return { id, props: outs, inputs };
  },

  async update(ctx, _id, previous, desired) {
    // The ids come from the service, not the state: a rule changed elsewhere since keeps its id all the same.
    const current = await currentEntrypoint(ctx, desired.zoneId, 'reading the entry point ruleset');
    const marker = writtenMarker(RESOURCE, previous, desired);
    // The entry point must carry the marker the state holds (or none), or the one this write puts (kit/marker.ts
    // `otherOwner`); the write then puts `marker` on it.
    const carried = current && markerIn(current, MARKED_FIELD);
    const other = otherOwner('update', carried, recordedMarker(previous) ?? marker, { written: marker });
    const refusal = ownerRefusal(ctx.label(), other, 'update') ?? (current && interveningWriter(desired.zoneId, ctx.name, previous, current, 'this update'));
    if (refusal) throw new ProviderError(refusal);
    const saved = current && holdsDeclared(current, desired) && carried === marker ? current : await save(ctx, desired, current, marker);
    return { outs: outputsOf(desired, saved, previous.recorded ?? null, marker) };
  },

  delete: (ctx, _id, props) => restore(ctx, props),
});
