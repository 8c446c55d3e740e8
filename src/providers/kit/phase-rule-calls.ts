// The calls of CustomRule and RateLimitRule: one rule of a zone's entry point of a phase per resource, written with the
// per-rule endpoints only (docs/service.md#ruleset-rules), the zone's first with the create-only write of the entry
// point (docs/service.md#ruleset-create); never a PUT of the entry point, which would replace other owners' rules.
// The zone's entry point is read at most once per run and kept from the answers of the writes (each answers the whole
// ruleset: kit/entrypoints.ts); a refresh reads each zone's entry point once for all its rules (kit/coalesce.ts).
// The handlers over these calls are kit/phase-rule.ts.
import { isDeepStrictEqual } from 'node:util';
import type { ZoneGuardClient } from '../../client';
import { BadRequestError, NotFoundError } from '../../client/errors';
import {
  landingIndex,
  observedPlace,
  passedOver,
  rulesSharingName,
  placeHolds,
  positionOf,
  type DeclaredRule,
  type RulePhase,
  type RulePlace,
} from '../../rulesets';
import { PHASE_RULE_WIRE_FIELDS, phaseRuleFromWire, phaseRuleToWire } from '../../kinds';
import { ErrorCode, type RulePosition, type RulesetRule, type SavedRuleset } from '../../schemas';
import { splitMarked } from '../../schemas/owner-marker';
import { ReadCoalescer, STREAM_GAP_MS } from './coalesce';
import type { Context } from './context';
import { Entrypoints } from './entrypoints';
import { ADOPTION_SETTLE_MS } from './marker';
import { ProviderError, unlessNotFound } from './implementation';
import { sealLanding } from './seal';

/** Outputs of a rule: its declared fields as the service holds them, where it runs, and the service's ids. */
export type PhaseRuleOutputs = DeclaredRule & { ruleId: string; rulesetId: string };

/** A rule as a read finds it: the rule, and the ruleset it is in (for its place among the others). */
export interface FoundRule {
  id: string;
  rule: RulesetRule;
  ruleset: SavedRuleset;
}

/** The rules of a saved ruleset as FoundRules. Pure. */
export const foundIn = (ruleset: SavedRuleset): FoundRule[] => ruleset.rules.flatMap((rule) => (rule.id ? [{ id: rule.id, rule, ruleset }] : []));

/**
 * The outputs of a rule found in its ruleset: its fields in the declared names, and its place as observedPlace says
 * (the declared one while it holds). Pure.
 */
export function outputsOfRule(zoneId: string, found: FoundRule, declared: Pick<DeclaredRule, 'position' | 'adoptRuleId'>): PhaseRuleOutputs {
  const position = observedPlace(found.ruleset.rules, found.id, declared.position);
  return {
    zoneId,
    ...phaseRuleFromWire(found.rule),
    ...(position !== undefined ? { position } : {}),
    ...(declared.adoptRuleId !== undefined ? { adoptRuleId: declared.adoptRuleId } : {}),
    ruleId: found.id,
    rulesetId: found.ruleset.id,
  };
}

/** How a field compares in a diff: an absent optional value as nothing, objects by their JSON (undefined keys dropped). */
export function normalizeRuleField(_field: string, value: unknown): unknown {
  return value === undefined || value === null ? undefined : JSON.parse(JSON.stringify(value));
}

/** The rule created among `after`'s rules: one that `before` did not hold, of the declared ref when it has one. Pure. */
export function createdRule(before: SavedRuleset | undefined, after: SavedRuleset, ref: string): RulesetRule | undefined {
  const known = new Set((before?.rules ?? []).map((rule) => rule.id));
  const fresh = after.rules.filter((rule) => !known.has(rule.id));
  return (ref === '' ? undefined : fresh.find((rule) => rule.ref === ref)) ?? fresh.at(-1);
}

/** What a preview says of where a rule lands (PhaseRuleCalls.previewCreate, previewMove). */
export interface Landing {
  change: 'create' | 'move';
  phase: string;
  /** The index the rule takes, 0-based. */
  at: number;
  /** How many rules the phase then holds. */
  total: number;
  place: RulePlace | undefined;
}

/** How many of the rules a preview's line names one by one. */
const NAMED_AT_MOST = 10;

/**
 * The line a preview says when a create or a move changes the order of other owners' rules against this one
 * (docs/custom-rules.md#previews): where it lands, and each such rule by its own ref (or id) and what its marker
 * says. Pure.
 */
export function landingLine(what: string, landing: Landing, others: readonly RulesetRule[]): string {
  const { change, phase, at, total, place } = landing;
  const named = others.slice(0, NAMED_AT_MOST).map((rule) => {
    const { own, marker } = splitMarked(rule.ref ?? '');
    return `${JSON.stringify(own || rule.id || '')} (${marker === undefined ? 'unmarked' : `marker ${marker}`})`;
  });
  const more = others.length > NAMED_AT_MOST ? ` and ${others.length - NAMED_AT_MOST} more` : '';
  const where = place === undefined ? 'last' : JSON.stringify(place);
  const count = `${others.length} rule${others.length === 1 ? '' : 's'} of other owners`;
  const relation = change === 'create' ? `ahead of ${count}, which then run after it` : `past ${count}, whose order against it changes`;
  const verb = change === 'create' ? 'creates it at' : 'moves it to';
  return `zoneguard: ${what}: the up ${verb} ${at + 1} of ${total} in the zone's ${phase} phase (position ${where}), ${relation}: ${named.join(', ')}${more}`;
}

/** The zone's entry point of `phase` as one page of rules (none while the zone has no entry point). */
async function* entrypointPages(client: ZoneGuardClient, zoneId: string, phase: RulePhase): AsyncGenerator<{ items: readonly FoundRule[] }> {
  const ruleset = await unlessNotFound(() => client.rulesets.getEntrypoint({ zoneId, phase }), undefined);
  yield { items: ruleset ? foundIn(ruleset) : [] };
}

/**
 * The calls of one kind of phase rule: its writes, its coalesced reads, and the zones' entry points as last seen
 * (kit/entrypoints.ts). One per provider instance: two instances (two provider processes) see the zone each their own way.
 */
export class PhaseRuleCalls {
  readonly phase: RulePhase;
  readonly noun: string;
  readonly #entrypoints: Entrypoints;
  readonly #reads: ReadCoalescer<FoundRule>;
  /** The owner markers of this run's resources seen so far (noteOurs), for the words of a message. */
  readonly #ours = new Set<string>();
  /** The rules this run adopted with a write, and when: the adoption's confirmation (kit/marker.ts) is their next live read. */
  readonly #adopted = new Map<string, number>();

  constructor(phase: RulePhase, noun: string) {
    this.phase = phase;
    this.noun = noun;
    this.#entrypoints = new Entrypoints(phase);
    this.#reads = new ReadCoalescer<FoundRule>({
      read: async (client, zoneId, id) => {
        const ruleset = await unlessNotFound(() => client.rulesets.getEntrypoint({ zoneId, phase }), undefined);
        return ruleset && foundIn(ruleset).find((found) => found.id === id);
      },
      // The entry point answers every rule of the phase in one GET: a walk is one page.
      pages: (client, zoneId) => entrypointPages(client, zoneId, phase),
    });
  }

  /** A write of the zone: after the zone's earlier writes, and ending what its refresh walk answers. */
  writing<T>(zoneId: string, call: () => Promise<T>): Promise<T> {
    return this.#reads.writing(zoneId, () => this.#entrypoints.serial(zoneId, call));
  }

  /** A refresh's read, coalesced per zone: undefined when the rule (or the whole entry point) is gone. */
  read(ctx: Context, zoneId: string, id: string): Promise<FoundRule | undefined> {
    return this.#reads.read(ctx.client, zoneId, id);
  }

  /**
   * The rule as the service holds it before a write (the owner marker's read, kit/marker.ts): from the zone's entry
   * point as last read or written, when that was at most STREAM_GAP_MS ago (the staleness a refresh's coalesced reads
   * allow, kit/coalesce.ts), else read again. Every write answers the whole entry point, so a destroy of a zone's
   * rules, one write after the other, reads it about once, where a read of each rule ended the walk the next shares.
   */
  async live(ctx: Context, zoneId: string, id: string, takingOver = false): Promise<FoundRule | undefined> {
    const wrote = this.#adopted.get(id);
    this.#adopted.delete(id);
    // An adoption's confirmation: the entry point as the service answered it after the write and the settle, never as this
    // run last saw it, or another adopter whose write came last would go unseen (docs/ownership.md#take-over).
    const ruleset =
      wrote === undefined
        ? await this.#seen(ctx, zoneId, takingOver)
        : await this.#entrypoints.answeredSince(ctx.client, zoneId, wrote + ADOPTION_SETTLE_MS, ADOPTION_SETTLE_MS);
    return ruleset && foundIn(ruleset).find((found) => found.id === id);
  }

  /**
   * The entry point for a marker's read, at most STREAM_GAP_MS old; for an adoption with takeOver (it takes the rule whatever
   * marker it carries) as this run last read or wrote it: a move's adoptions read it once per zone (docs/firewall-and-migration.md#move).
   */
  #seen = (ctx: Context, zoneId: string, takingOver: boolean) =>
    takingOver ? this.#entrypoints.current(ctx.client, zoneId) : this.#entrypoints.recent(ctx.client, zoneId, STREAM_GAP_MS);

  /** The phase's rules from the entry point as this run first read it, the read a create makes anyway (create). */
  async listing(ctx: Context, zoneId: string): Promise<readonly RulesetRule[]> {
    return (await this.#entrypoints.current(ctx.client, zoneId))?.rules ?? [];
  }

  /**
   * The wire position for the declared place, against the zone's rules as last seen, read again once when it names a
   * rule not among them. A place naming by ref several rules is refused before any write (#assertOneNamed).
   */
  async wirePosition(ctx: Context, inputs: DeclaredRule, current: SavedRuleset | undefined, moving: string | undefined): Promise<RulePosition | undefined> {
    const others = (ruleset: SavedRuleset | undefined) => (ruleset?.rules ?? []).filter((rule) => rule.id !== moving);
    let rules = others(current);
    this.#assertOneNamed(ctx, inputs, rules);
    let position = positionOf(rules, inputs.position, moving !== undefined);
    if (position !== undefined && 'missing' in position) {
      rules = others(await this.#entrypoints.reread(ctx.client, inputs.zoneId));
      this.#assertOneNamed(ctx, inputs, rules);
      position = positionOf(rules, inputs.position, moving !== undefined);
    }
    if (position !== undefined && 'missing' in position) throw this.#missingPlace(ctx, position.missing);
    sealLanding(ctx, inputs, this.phase, rules);
    return position;
  }

  /**
   * Refuses a place that names, by ref, several rules of the phase (docs/custom-rules.md#position): two owners' rules
   * declared alike, or a rule made by hand (or by another tool) carrying a ref a rule of this stack carries. A place
   * binds to one rule or to none, never to the first found. Each rule is named with what its owner marker says.
   */
  #assertOneNamed(ctx: Context, inputs: DeclaredRule, rules: readonly RulesetRule[]): void {
    const sharing = rulesSharingName(rules, inputs.position);
    if (sharing.length === 0) return;
    const which = sharing.map((rule) => `${rule.id} (ref ${JSON.stringify(rule.ref)}, ${this.#ownerWords(rule)})`).join(', ');
    throw new ProviderError(
      `${ctx.label()}: position names ${JSON.stringify(Object.values(inputs.position ?? {})[0])}, the ref of ${sharing.length} rules of the zone's ${this.phase} phase, ` +
        `so it cannot say which: ${which}; name the one meant by its id (its resource's ruleId output), or give the rule that is not meant another ref`,
    );
  }

  /** What a rule's owner marker says, for a message: a resource of this run, another owner, or none. */
  #ownerWords(rule: RulesetRule): string {
    const { marker } = splitMarked(rule.ref ?? '');
    if (marker === undefined) return 'unmarked: made by hand or by another tool';
    return this.#ours.has(marker) ? `marker ${marker}: a resource of this stack` : `marker ${marker}: another owner's`;
  }

  #missingPlace(ctx: Context, name: string): ProviderError {
    return new ProviderError(
      `${ctx.label()}: position names ${JSON.stringify(name)}, which is neither the id nor the ref of a rule of the zone's ${this.phase} phase; ` +
        `name an existing rule (another resource's ruleId, or a ref) or remove position`,
    );
  }

  /** Notes a marker of one of this run's resources: a preview's line names other owners' rules only, a refusal says which rule is this stack's. */
  noteOurs(...markers: unknown[]): void {
    for (const marker of markers) if (typeof marker === 'string' && marker !== '') this.#ours.add(marker);
  }

  /**
   * A preview of a create: the write the up would make, sent with dry_run=true (docs/service.md#ruleset-dry-run), so
   * the service's refusal (its quota, an entitlement, a ref another rule holds) fails this resource's preview. In a
   * zone with an entry point, the exact POST of the rule: a dry run saves nothing, so each is checked against the
   * rules the zone holds, without the preview's creates before it. In a zone without one, the create-only write of
   * the entry point as the preview's creates would leave it, so the quota counts them together
   * (docs/custom-rules.md#previews). Never a PUT of the entry point.
   */
  async previewCreate(ctx: Context, inputs: DeclaredRule): Promise<void> {
    const { zoneId } = inputs;
    const { client } = ctx;
    const current = await this.#entrypoints.current(client, zoneId);
    const previewed = this.#entrypoints.previewed(client, zoneId) ?? { rules: current?.rules ?? [] };
    this.#assertOneNamed(ctx, inputs, previewed.rules);
    sealLanding(ctx, inputs, this.phase, previewed.rules);
    const at = landingIndex(previewed.rules, inputs.position);
    if (typeof at !== 'number') throw this.#missingPlace(ctx, at.missing);
    const rule = phaseRuleToWire(inputs);
    const after = [...previewed.rules.slice(0, at), rule, ...previewed.rules.slice(at)];
    if (current !== undefined) {
      const position = positionOf(current.rules, inputs.position, false);
      await client.rulesets.createRule({ zoneId, rulesetId: current.id, rule, ...(position && !('missing' in position) ? { position } : {}), dryRun: true });
    } else {
      await client.rulesets.createEntrypoint({ zoneId, phase: this.phase, ruleset: { name: 'default', rules: after }, dryRun: true });
    }
    this.#entrypoints.previewed(client, zoneId, { rules: after });
    this.#sayLanding(ctx, inputs, 'create', at, after.length, passedOver(previewed.rules, undefined, inputs.position));
  }

  /** A preview of a move of rule `id`: names the other owners' rules it passes over (after the diff's dry run read the zone's rules). */
  async previewMove(ctx: Context, inputs: DeclaredRule, id: string): Promise<void> {
    const rules = (await this.#entrypoints.current(ctx.client, inputs.zoneId))?.rules ?? [];
    const at = landingIndex(
      rules.filter((rule) => rule.id !== id),
      inputs.position,
    );
    if (typeof at === 'number') this.#sayLanding(ctx, inputs, 'move', at, rules.length, passedOver(rules, id, inputs.position), id);
  }

  /** Says on standard error where the rule lands and which rules of other owners change order against it, when any does. */
  #sayLanding(ctx: Context, inputs: DeclaredRule, change: Landing['change'], at: number, total: number, passed: readonly RulesetRule[], id?: string): void {
    const others = passed.filter((rule) => {
      const { marker } = splitMarked(rule.ref ?? '');
      return marker === undefined || !this.#ours.has(marker);
    });
    if (others.length > 0) console.error(landingLine(ctx.label(id), { change, phase: this.phase, at, total, place: inputs.position }, others));
  }

  /**
   * Adds the rule to the zone's entry point with the per-rule POST, or, while the zone has none, makes the entry
   * point holding it with the create-only write (docs/service.md#ruleset-create). That write is refused when another
   * writer (another stack's first rule, the dashboard) made the entry point since this run found none: the entry
   * point is then read, and the rule POSTed to it. An entry point is never PUT: another writer's rules stay.
   * Answers the entry point before the write (undefined for the one this write made) and after.
   */
  async #post(ctx: Context, inputs: DeclaredRule): Promise<{ before: SavedRuleset | undefined; saved: SavedRuleset }> {
    const { zoneId } = inputs;
    const { client } = ctx;
    const rule = phaseRuleToWire(inputs);
    let position = await this.wirePosition(ctx, inputs, await this.#entrypoints.current(client, zoneId), undefined);
    // wirePosition may have read the entry point again (a place naming a rule not among those last seen).
    let current = await this.#entrypoints.current(client, zoneId);
    if (current === undefined) {
      const made = await this.#createEntrypoint(client, zoneId, rule);
      if (made !== undefined) return { before: undefined, saved: made };
      current = await this.#entrypoints.reread(client, zoneId);
      if (current === undefined) {
        throw new ProviderError(
          `${ctx.label()}: the service refused to create the zone's ${this.phase} entry point as existing, and then read none; run pulumi up again`,
        );
      }
      position = await this.wirePosition(ctx, inputs, current, undefined);
    }
    const saved = await client.rulesets.createRule({ zoneId, rulesetId: current.id, rule, ...(position ? { position } : {}) });
    return { before: current, saved };
  }

  /** The create-only write of the zone's entry point holding `rule`; undefined when refused because the zone has one. */
  async #createEntrypoint(client: ZoneGuardClient, zoneId: string, rule: ReturnType<typeof phaseRuleToWire>): Promise<SavedRuleset | undefined> {
    try {
      return await client.rulesets.createEntrypoint({ zoneId, phase: this.phase, ruleset: { name: 'default', rules: [rule] } });
    } catch (error) {
      if (error instanceof BadRequestError && error.codes.includes(ErrorCode.entrypointExists)) return undefined;
      throw error;
    }
  }

  /** Creates the rule: one call, after at most one read of the zone's entry point per run (two more when another writer made it first). */
  async create(ctx: Context, inputs: DeclaredRule): Promise<FoundRule> {
    const { zoneId } = inputs;
    let written: { before: SavedRuleset | undefined; saved: SavedRuleset };
    try {
      written = await this.#post(ctx, inputs);
    } catch (error) {
      // The entry point this run saw was deleted since (by hand, or a reset): read again, and write once more.
      if (!(error instanceof NotFoundError) || (await this.#entrypoints.current(ctx.client, zoneId)) === undefined) throw error;
      await this.#entrypoints.reread(ctx.client, zoneId);
      written = await this.#post(ctx, inputs);
    }
    const { before, saved } = written;
    this.#entrypoints.saw(ctx.client, zoneId, saved);
    const made = createdRule(before, saved, inputs.ref);
    if (!made?.id) throw new ProviderError(`${ctx.label()}: the service answered the create without the new rule`);
    return { id: made.id, rule: made, ruleset: saved };
  }

  /** The PATCH that brings rule `olds.ruleId` to the declared fields, and to its place when `move`. */
  async patch(ctx: Context, inputs: DeclaredRule, olds: PhaseRuleOutputs, move: boolean, dryRun = false): Promise<SavedRuleset | null> {
    const { zoneId } = inputs;
    const current = move ? await this.#entrypoints.current(ctx.client, zoneId) : undefined;
    const position = move ? await this.wirePosition(ctx, inputs, current, olds.ruleId) : undefined;
    const rulesetId = current?.id ?? olds.rulesetId;
    const answer = await ctx.client.rulesets.updateRule({
      zoneId,
      rulesetId,
      ruleId: olds.ruleId,
      rule: phaseRuleToWire(inputs),
      ...(position ? { position } : {}),
      dryRun,
    });
    if (answer) this.#entrypoints.saw(ctx.client, zoneId, answer);
    return answer;
  }

  /** Deletes rule `id`; already gone (the rule, or the whole entry point) is what delete wants. */
  async remove(ctx: Context, zoneId: string, rulesetId: string, id: string): Promise<void> {
    const answer = await unlessNotFound(() => ctx.client.rulesets.deleteRule({ zoneId, rulesetId, ruleId: id }), undefined);
    if (answer) this.#entrypoints.saw(ctx.client, zoneId, answer);
  }

  /**
   * Takes over rule `id` of the zone's entry point, writing only what differs from the declared rule. The entry point
   * as the marker's read just saw it (`live`), else read again: a run adopting a zone's converted rules one after the
   * other reads it once (each write answers it whole), not once a rule.
   */
  async adopt(ctx: Context, inputs: DeclaredRule & { takeOver?: boolean }, id: string): Promise<FoundRule> {
    const seen = await this.#seen(ctx, inputs.zoneId, inputs.takeOver === true);
    const current = seen && foundIn(seen).some((rule) => rule.id === id) ? seen : await this.#entrypoints.reread(ctx.client, inputs.zoneId);
    const found = current && foundIn(current).find((rule) => rule.id === id);
    if (!current || !found) {
      throw new ProviderError(
        `${ctx.label()}: adoptRuleId ${id} names no ${this.noun} of this zone's ${this.phase} phase; check the id, or remove adoptRuleId to create a new rule`,
      );
    }
    const outs = outputsOfRule(inputs.zoneId, found, inputs);
    const same = PHASE_RULE_WIRE_FIELDS.every((field) => isDeepStrictEqual(normalizeRuleField(field, outs[field]), normalizeRuleField(field, inputs[field])));
    const placed = inputs.position === undefined || placeHolds(current.rules, id, inputs.position);
    if (same && placed) {
      // Nothing to write (it carries this resource's marker already): the confirmation still reads it from the service.
      this.#adopted.set(id, Date.now());
      return found;
    }
    const saved = (await this.patch(ctx, inputs, { ...outs, position: undefined }, !placed))!;
    this.#adopted.set(id, Date.now());
    return foundIn(saved).find((rule) => rule.id === id) ?? found;
  }
}
