// What CustomRule and RateLimitRule share: one rule of a zone's entry point of a phase per resource, written with the
// per-rule endpoints only (docs/service.md#ruleset-rules), the zone's first with the create-only write of the entry
// point (docs/service.md#ruleset-create); never a PUT of the entry point, which would replace other owners' rules.
// The zone's entry point is read at most once per run and kept from the answers of the writes (each answers the whole
// ruleset); a refresh reads each zone's entry point once for all its rules (kit/coalesce.ts).
import { isDeepStrictEqual } from 'node:util';
import { BadRequestError, NotFoundError } from '../../client/errors';
import { declarationOf, diffPlan, label, type ResourceKind } from '../../kinds';
import {
  RULE_FIELDS,
  comparedRule,
  declaredRuleProblems,
  landingIndex,
  observedPlace,
  passedOver,
  rulesSharingName,
  placeHolds,
  positionOf,
  phaseRuleFromWire,
  phaseRuleToWire,
  type DeclaredRule,
  type RulePhase,
  type RulePlace,
} from '../../rulesets';
import { CUSTOM_PHASE, ErrorCode, RATELIMIT_PHASE, type RulePosition, type RulesetRule, type SavedRuleset } from '../../schemas';
import { checkWithSchema, containsUnknown, isEngineKey, PREVIEW_UNKNOWN } from './check';
import { ReadCoalescer, STREAM_GAP_MS } from './coalesce';
import { Entrypoints } from './entrypoints';
import { assertConfigured, configure, getClient, inPreview } from './context';
import { diffFields } from './diff';
import { dryRunStep } from './dry-run';
import { ProviderError, step, unlessNotFound, type Implementation } from './implementation';
import { nameOf, ownerOf } from './ownership';
import { TAKE_OVER, markerFor, writtenMarker, type LiveObject } from './marker';
import { MARKER_KEY } from '../../kinds/marker';
import { markerIn, splitMarked, withMarker } from '../../schemas/owner-marker';

/** Outputs of a rule: its declared fields as the service holds them, where it runs, and the service's ids. */
export type PhaseRuleOutputs = DeclaredRule & { ruleId: string; rulesetId: string };

/** A rule as a read finds it: the rule, and the ruleset it is in (for its place among the others). */
export interface FoundRule {
  id: string;
  rule: RulesetRule;
  ruleset: SavedRuleset;
}

/** The rules of a saved ruleset as FoundRules. Pure. */
const foundIn = (ruleset: SavedRuleset): FoundRule[] => ruleset.rules.flatMap((rule) => (rule.id ? [{ id: rule.id, rule, ruleset }] : []));

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

/** What a kind of phase rule tells the shared implementation: which kind; its phase is its declaration's (src/kinds). */
export interface PhaseRuleSpec {
  kind: ResourceKind & ('CustomRule' | 'RateLimitRule');
}

/** The fields a check of the rule's grammar needs known; while one is unknown (preview), the grammar waits for up. */
const GRAMMAR_INPUTS = ['action', 'expression', 'response', 'skip', 'ratelimit', 'position'] as const;

/** The calls of one kind of phase rule: its writes, its coalesced reads, and the zones' entry points as last seen. */
class PhaseRules {
  readonly kind: PhaseRuleSpec['kind'];
  readonly phase: RulePhase;
  readonly noun: string;
  readonly #entrypoints: Entrypoints;
  readonly #reads: ReadCoalescer<FoundRule>;
  /** The owner markers of this run's resources seen so far (PhaseRules.noteOurs), for the words of a message. */
  readonly #ours = new Set<string>();

  constructor({ kind }: PhaseRuleSpec) {
    const { identity } = declarationOf(kind);
    if (identity.phase !== CUSTOM_PHASE && identity.phase !== RATELIMIT_PHASE) throw new Error(`zoneguard: ${kind} declares no phase of a ruleset rule`);
    const phase: RulePhase = identity.phase;
    this.kind = kind;
    this.phase = phase;
    this.noun = identity.noun;
    this.#entrypoints = new Entrypoints(phase);
    this.#reads = new ReadCoalescer<FoundRule>({
      read: async (zoneId, id) => {
        const ruleset = await unlessNotFound(() => getClient().rulesets.getEntrypoint({ zoneId, phase }), undefined);
        return ruleset && foundIn(ruleset).find((found) => found.id === id);
      },
      // The entry point answers every rule of the phase in one GET: a walk is one page.
      pages: (zoneId) => entrypointPages(zoneId, phase),
      scope: getClient,
    });
  }

  labelOf(props: object, id?: string): string {
    return label(this.kind, props as Record<string, unknown>, nameOf(props as Record<string, unknown>), id);
  }

  /** A write of the zone: after the zone's earlier writes, and ending what its refresh walk answers. */
  writing<T>(zoneId: string, call: () => Promise<T>): Promise<T> {
    return this.#reads.writing(zoneId, () => this.#entrypoints.serial(zoneId, call));
  }

  /** A refresh's read, coalesced per zone: undefined when the rule (or the whole entry point) is gone. */
  read(zoneId: string, id: string): Promise<FoundRule | undefined> {
    return this.#reads.read(zoneId, id);
  }

  /**
   * The rule as the service holds it before a write (the owner marker's read, kit/marker.ts): from the zone's entry
   * point as last read or written, when that was at most STREAM_GAP_MS ago (the staleness a refresh's coalesced reads
   * allow, kit/coalesce.ts), else read again. Every write answers the whole entry point, so a destroy of a zone's
   * rules, one write after the other, reads it about once, where a read of each rule ended the walk the next shares.
   */
  async live(zoneId: string, id: string, takingOver = false): Promise<FoundRule | undefined> {
    const ruleset = await this.#seen(zoneId, takingOver);
    return ruleset && foundIn(ruleset).find((found) => found.id === id);
  }

  /**
   * The entry point for a marker's read, at most STREAM_GAP_MS old; for an adoption with takeOver (it takes the rule whatever
   * marker it carries) as this run last read or wrote it: a move's adoptions read it once per zone (docs/firewall-and-migration.md#move).
   */
  #seen = (zoneId: string, takingOver: boolean) => (takingOver ? this.#entrypoints.current(zoneId) : this.#entrypoints.recent(zoneId, STREAM_GAP_MS));

  /**
   * The wire position for the declared place, against the zone's rules as last seen, read again once when it names a
   * rule not among them. A place naming by ref several rules is refused before any write (#assertOneNamed).
   */
  async wirePosition(inputs: DeclaredRule, current: SavedRuleset | undefined, moving: string | undefined): Promise<RulePosition | undefined> {
    const others = (ruleset: SavedRuleset | undefined) => (ruleset?.rules ?? []).filter((rule) => rule.id !== moving);
    let rules = others(current);
    this.#assertOneNamed(inputs, rules);
    let position = positionOf(rules, inputs.position, moving !== undefined);
    if (position !== undefined && 'missing' in position) {
      rules = others(await this.#entrypoints.reread(inputs.zoneId));
      this.#assertOneNamed(inputs, rules);
      position = positionOf(rules, inputs.position, moving !== undefined);
    }
    if (position !== undefined && 'missing' in position) throw this.#missingPlace(inputs, position.missing);
    return position;
  }

  /**
   * Refuses a place that names, by ref, several rules of the phase (docs/custom-rules.md#position): two owners' rules
   * declared alike, or a rule made by hand (or by another tool) carrying a ref a rule of this stack carries. A place
   * binds to one rule or to none, never to the first found. Each rule is named with what its owner marker says.
   */
  #assertOneNamed(inputs: DeclaredRule, rules: readonly RulesetRule[]): void {
    const sharing = rulesSharingName(rules, inputs.position);
    if (sharing.length === 0) return;
    const which = sharing.map((rule) => `${rule.id} (ref ${JSON.stringify(rule.ref)}, ${this.#ownerWords(rule)})`).join(', ');
    throw new ProviderError(
      `${this.labelOf(inputs)}: position names ${JSON.stringify(Object.values(inputs.position ?? {})[0])}, the ref of ${sharing.length} rules of the zone's ${this.phase} phase, ` +
        `so it cannot say which: ${which}; name the one meant by its id (its resource's ruleId output), or give the rule that is not meant another ref`,
    );
  }

  /** What a rule's owner marker says, for a message: a resource of this run, another owner, or none. */
  #ownerWords(rule: RulesetRule): string {
    const { marker } = splitMarked(rule.ref ?? '');
    if (marker === undefined) return 'unmarked: made by hand or by another tool';
    return this.#ours.has(marker) ? `marker ${marker}: a resource of this stack` : `marker ${marker}: another owner's`;
  }

  #missingPlace(inputs: DeclaredRule, name: string): ProviderError {
    return new ProviderError(
      `${this.labelOf(inputs)}: position names ${JSON.stringify(name)}, which is neither the id nor the ref of a rule of the zone's ${this.phase} phase; ` +
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
  async previewCreate(inputs: DeclaredRule): Promise<void> {
    const { zoneId } = inputs;
    const current = await this.#entrypoints.current(zoneId);
    const previewed = this.#entrypoints.previewed(zoneId) ?? { rules: current?.rules ?? [] };
    this.#assertOneNamed(inputs, previewed.rules);
    const at = landingIndex(previewed.rules, inputs.position);
    if (typeof at !== 'number') throw this.#missingPlace(inputs, at.missing);
    const rule = phaseRuleToWire(inputs);
    const after = [...previewed.rules.slice(0, at), rule, ...previewed.rules.slice(at)];
    const rulesets = getClient().rulesets;
    if (current !== undefined) {
      const position = positionOf(current.rules, inputs.position, false);
      await rulesets.createRule({ zoneId, rulesetId: current.id, rule, ...(position && !('missing' in position) ? { position } : {}), dryRun: true });
    } else {
      await rulesets.createEntrypoint({ zoneId, phase: this.phase, ruleset: { name: 'default', rules: after }, dryRun: true });
    }
    this.#entrypoints.previewed(zoneId, { rules: after });
    this.#sayLanding(inputs, 'create', at, after.length, passedOver(previewed.rules, undefined, inputs.position));
  }

  /** A preview of a move of rule `id`: names the other owners' rules it passes over (after the diff's dry run read the zone's rules). */
  async previewMove(inputs: DeclaredRule, id: string): Promise<void> {
    const rules = (await this.#entrypoints.current(inputs.zoneId))?.rules ?? [];
    const at = landingIndex(
      rules.filter((rule) => rule.id !== id),
      inputs.position,
    );
    if (typeof at === 'number') this.#sayLanding(inputs, 'move', at, rules.length, passedOver(rules, id, inputs.position), id);
  }

  /** Says on standard error where the rule lands and which rules of other owners change order against it, when any does. */
  #sayLanding(inputs: DeclaredRule, change: Landing['change'], at: number, total: number, passed: readonly RulesetRule[], id?: string): void {
    const others = passed.filter((rule) => {
      const { marker } = splitMarked(rule.ref ?? '');
      return marker === undefined || !this.#ours.has(marker);
    });
    if (others.length > 0) console.error(landingLine(this.labelOf(inputs, id), { change, phase: this.phase, at, total, place: inputs.position }, others));
  }

  /**
   * Adds the rule to the zone's entry point with the per-rule POST, or, while the zone has none, makes the entry
   * point holding it with the create-only write (docs/service.md#ruleset-create). That write is refused when another
   * writer (another stack's first rule, the dashboard) made the entry point since this run found none: the entry
   * point is then read, and the rule POSTed to it. An entry point is never PUT: another writer's rules stay.
   * Answers the entry point before the write (undefined for the one this write made) and after.
   */
  async post(inputs: DeclaredRule): Promise<{ before: SavedRuleset | undefined; saved: SavedRuleset }> {
    const { zoneId } = inputs;
    const rule = phaseRuleToWire(inputs);
    let position = await this.wirePosition(inputs, await this.#entrypoints.current(zoneId), undefined);
    // wirePosition may have read the entry point again (a place naming a rule not among those last seen).
    let current = await this.#entrypoints.current(zoneId);
    if (current === undefined) {
      const made = await this.#createEntrypoint(zoneId, rule);
      if (made !== undefined) return { before: undefined, saved: made };
      current = await this.#entrypoints.reread(zoneId);
      if (current === undefined) {
        throw new ProviderError(`${this.labelOf(inputs)}: the service refused to create the zone's ${this.phase} entry point as existing, and then read none; run pulumi up again`);
      }
      position = await this.wirePosition(inputs, current, undefined);
    }
    const saved = await getClient().rulesets.createRule({ zoneId, rulesetId: current.id, rule, ...(position ? { position } : {}) });
    return { before: current, saved };
  }

  /** The create-only write of the zone's entry point holding `rule`; undefined when refused because the zone has one. */
  async #createEntrypoint(zoneId: string, rule: ReturnType<typeof phaseRuleToWire>): Promise<SavedRuleset | undefined> {
    try {
      return await getClient().rulesets.createEntrypoint({ zoneId, phase: this.phase, ruleset: { name: 'default', rules: [rule] } });
    } catch (error) {
      if (error instanceof BadRequestError && error.codes.includes(ErrorCode.entrypointExists)) return undefined;
      throw error;
    }
  }

  /** The ids of the phase's rules whose ref carries `marker`, from the entry point as this run first read it. */
  async carrying(zoneId: string, marker: string): Promise<string[]> {
    const rules = (await this.#entrypoints.current(zoneId))?.rules ?? [];
    return rules.flatMap((rule) => (rule.id !== undefined && markerIn(rule, 'ref') === marker ? [rule.id] : []));
  }

  /** Creates the rule: one call, after at most one read of the zone's entry point per run (two more when another writer made it first). */
  async create(inputs: DeclaredRule): Promise<FoundRule> {
    const { zoneId } = inputs;
    let written: { before: SavedRuleset | undefined; saved: SavedRuleset };
    try {
      written = await this.post(inputs);
    } catch (error) {
      // The entry point this run saw was deleted since (by hand, or a reset): read again, and write once more.
      if (!(error instanceof NotFoundError) || (await this.#entrypoints.current(zoneId)) === undefined) throw error;
      await this.#entrypoints.reread(zoneId);
      written = await this.post(inputs);
    }
    const { before, saved } = written;
    this.#entrypoints.saw(zoneId, saved);
    const made = createdRule(before, saved, inputs.ref);
    if (!made?.id) throw new ProviderError(`${this.labelOf(inputs)}: the service answered the create without the new rule`);
    return { id: made.id, rule: made, ruleset: saved };
  }

  /** The PATCH that brings rule `olds.ruleId` to the declared fields, and to its place when `move`. */
  async patch(inputs: DeclaredRule, olds: PhaseRuleOutputs, move: boolean, dryRun = false): Promise<SavedRuleset | null> {
    const { zoneId } = inputs;
    const current = move ? await this.#entrypoints.current(zoneId) : undefined;
    const position = move ? await this.wirePosition(inputs, current, olds.ruleId) : undefined;
    const rulesetId = current?.id ?? olds.rulesetId;
    const answer = await getClient().rulesets.updateRule({ zoneId, rulesetId, ruleId: olds.ruleId, rule: phaseRuleToWire(inputs), ...(position ? { position } : {}), dryRun });
    if (answer) this.#entrypoints.saw(zoneId, answer);
    return answer;
  }

  /** Deletes rule `id`; already gone (the rule, or the whole entry point) is what delete wants. */
  async remove(zoneId: string, rulesetId: string, id: string): Promise<void> {
    const answer = await unlessNotFound(() => getClient().rulesets.deleteRule({ zoneId, rulesetId, ruleId: id }), undefined);
    if (answer) this.#entrypoints.saw(zoneId, answer);
  }

  /**
   * Takes over rule `id` of the zone's entry point, writing only what differs from the declared rule. The entry point
   * as the marker's read just saw it (`live`), else read again: a run adopting a zone's converted rules one after the
   * other reads it once (each write answers it whole), not once a rule.
   */
  async adopt(inputs: DeclaredRule & { takeOver?: boolean }, id: string): Promise<FoundRule> {
    const seen = await this.#seen(inputs.zoneId, inputs.takeOver === true);
    const current = seen && foundIn(seen).some((rule) => rule.id === id) ? seen : await this.#entrypoints.reread(inputs.zoneId);
    const found = current && foundIn(current).find((rule) => rule.id === id);
    if (!current || !found) {
      throw new ProviderError(
        `${this.labelOf(inputs)}: adoptRuleId ${id} names no ${this.noun} of this zone's ${this.phase} phase; check the id, or remove adoptRuleId to create a new rule`,
      );
    }
    const outs = outputsOfRule(inputs.zoneId, found, inputs);
    const same = RULE_FIELDS.every((field) => isDeepStrictEqual(normalizeRuleField(field, outs[field]), normalizeRuleField(field, inputs[field])));
    const placed = inputs.position === undefined || placeHolds(current.rules, id, inputs.position);
    if (same && placed) return found;
    const saved = (await this.patch(inputs, { ...outs, position: undefined }, !placed))!;
    return foundIn(saved).find((rule) => rule.id === id) ?? found;
  }
}

/** What a preview says of where a rule lands (PhaseRules.previewCreate, previewMove). */
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

/** Whether an update moves the rule: its place is declared, and differs from the one the state holds. Pure. */
export function moves(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
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
  return { ...news, ...ref } as unknown as DeclaredRule;
}

/** Every method of a kind of phase rule, and the live read its owner marker needs (kit/marker.ts). */
export function phaseRule(spec: PhaseRuleSpec): Implementation & LiveObject {
  const rules = new PhaseRules(spec);
  const { kind, phase, noun } = rules;
  const plan = diffPlan(declarationOf(kind));
  return {
    configure,

    // From the entry point as last read or written (PhaseRules.live): a destroy of a zone's rules reads it about once.
    async live(id, props) {
      const recorded = props as unknown as PhaseRuleOutputs;
      const takingOver = props.adoptRuleId === id && props[TAKE_OVER] === true;
      const found = await step(`${rules.labelOf(props, id)}: reading the ${noun}`, () => rules.live(recorded.zoneId, id, takingOver));
      return found && { ...outputsOfRule(recorded.zoneId, found, recorded) };
    },

    // From the entry point as this run read it first, the read a create makes anyway (PhaseRules.create).
    async carrying(props, marker) {
      const { zoneId } = props as unknown as DeclaredRule;
      return step(`${rules.labelOf(props)}: reading the zone's ${noun}s for one its interrupted run made`, () => rules.carrying(zoneId, marker));
    },

    async check(olds, news) {
      assertConfigured();
      const result = checkWithSchema(declarationOf(kind).args, news, kind, { multiline: ['expression', 'ratelimit'] });
      if (result.failures.length > 0 || GRAMMAR_INPUTS.some((key) => news[key] === PREVIEW_UNKNOWN || containsUnknown(news[key]))) return result;
      const problems = declaredRuleProblems(result.inputs as unknown as DeclaredRule, phase);
      if (problems.length > 0) {
        return { inputs: news, failures: problems.map(({ path, message }) => ({ property: path.join('.'), reason: `${kind}.${path.join('.')}: ${message}` })) };
      }
      rules.noteOurs(ownerOf(news));
      if (!inPreview()) return result;
      // A preview of a create (no old inputs) sends the write the up would make, with dry_run=true (PhaseRules.previewCreate).
      const inputs = result.inputs as Record<string, unknown>;
      if (Object.keys(olds).length === 0 && inputs.adoptRuleId === undefined && allKnown(inputs)) {
        await dryRunStep(rules.labelOf(news), () => rules.previewCreate(asWritten(inputs, markerFor(kind, news))), 'create');
      }
      return result;
    },

    async diff(id, olds, news) {
      const result = diffFields(olds, comparedRule(news), plan, normalizeRuleField);
      rules.noteOurs(olds[MARKER_KEY]);
      // A preview of a change sends the exact write with dry_run=true, so the service's refusal (its quota, an
      // expression it refuses) shows on this resource's line; an unchanged resource, and an up, cost no call.
      if (!inPreview() || !result.changes || !allKnown(news)) return result;
      if ((result.replaces ?? []).length > 0) {
        await dryRunStep(rules.labelOf(news), () => rules.previewCreate(asWritten(news, markerFor(kind, news))), 'create');
        return result;
      }
      const previous = { ...(olds as unknown as PhaseRuleOutputs), ruleId: id };
      const move = moves(olds, news);
      await dryRunStep(rules.labelOf(news, id), () => rules.patch(asWritten(news, writtenMarker(kind, olds, news)), previous, move, true));
      if (move) await rules.previewMove(news as unknown as DeclaredRule, id);
      return result;
    },

    async create(raw) {
      const inputs = raw as unknown as DeclaredRule;
      const adopted = inputs.adoptRuleId;
      const found = await rules.writing(inputs.zoneId, () =>
        adopted === undefined
          ? step(`${rules.labelOf(raw)}: creating the ${noun}`, () => rules.create(inputs))
          : step(`${rules.labelOf(raw, adopted)}: adopting the ${noun}`, () => rules.adopt(inputs, adopted)),
      );
      return { id: found.id, outs: outputsOfRule(inputs.zoneId, found, inputs) };
    },

    async read(id, props) {
      const recorded = props as unknown as PhaseRuleOutputs;
      const found = await step(`${rules.labelOf(props, id)}: reading the ${noun}`, () => rules.read(recorded.zoneId, id));
      // Deleted out of band: a blank id takes the resource out of the state, and the next up creates it again.
      if (!found) return { id: '' };
      const outs = outputsOfRule(recorded.zoneId, found, recorded);
      const { ruleId: _ruleId, rulesetId: _rulesetId, ...inputs } = outs;
      return { id, props: outs, inputs };
    },

    async update(id, olds, news) {
      const inputs = news as unknown as DeclaredRule;
      const previous = { ...(olds as unknown as PhaseRuleOutputs), ruleId: id };
      const saved = await rules.writing(inputs.zoneId, () => step(`${rules.labelOf(news, id)}: updating the ${noun}`, () => rules.patch(inputs, previous, moves(olds, news))));
      const found = saved && foundIn(saved).find((rule) => rule.id === id);
      if (!found) throw new ProviderError(`${rules.labelOf(news, id)}: the service answered the update without the rule`);
      return { outs: outputsOfRule(inputs.zoneId, found, inputs) };
    },

    async delete(id, props) {
      const { zoneId, rulesetId } = props as unknown as PhaseRuleOutputs;
      await rules.writing(zoneId, () => step(`${rules.labelOf(props, id)}: deleting the ${noun}`, () => rules.remove(zoneId, rulesetId, id)));
    },
  };
}

/** The zone's entry point of `phase` as one page of rules (none while the zone has no entry point). */
async function* entrypointPages(zoneId: string, phase: RulePhase): AsyncGenerator<{ items: readonly FoundRule[] }> {
  const ruleset = await unlessNotFound(() => getClient().rulesets.getEntrypoint({ zoneId, phase }), undefined);
  yield { items: ruleset ? foundIn(ruleset) : [] };
}
