import { z } from 'zod';
import {
  MANAGED_PHASE,
  RulesetVersionSchema,
  SavedRulesetSchema,
  type EntrypointCreate,
  type EntrypointRuleset,
  type RuleCreate,
  type RulePatch,
  type RulePosition,
  type RulesetPhase,
  type RulesetVersion,
  type SavedRuleset,
} from '../../schemas';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';

const entrypointPath = (zoneId: string, phase: string) => zonePath(zoneId, 'rulesets', 'phases', phase, 'entrypoint');
const rulesetPath = (zoneId: string, rulesetId: string, ...rest: string[]) => zonePath(zoneId, 'rulesets', rulesetId, ...rest);

/** A write's answer: the saved ruleset, or null for a dry run (the service validates and saves nothing). */
export type RulesetWrite<D extends boolean | undefined> = D extends true ? null : SavedRuleset;

/** Options of every ruleset write. */
export interface DryRunArgs<D extends boolean | undefined> {
  /** Send `?dry_run=true`: the service runs every check of the write and saves nothing (docs/service.md#ruleset-dry-run). */
  dryRun?: D;
}

/** The phase of an entry point; default the managed phase (the migration's). */
export interface PhaseArgs {
  phase?: RulesetPhase;
}

/** What both writes of a whole entry point take: the zone, the phase, the ruleset. */
export interface EntrypointWriteArgs<D extends boolean | undefined> extends ZoneArgs, PhaseArgs, DryRunArgs<D> {
  ruleset: EntrypointRuleset;
}

/** A ruleset of the zone, by the id its entry point answers. */
export interface RulesetArgs extends ZoneArgs {
  rulesetId: string;
}

const writeSchema = (dryRun: boolean | undefined) => (dryRun === true ? z.null() : SavedRulesetSchema);
const dryRunQuery = (dryRun: boolean | undefined) => (dryRun === true ? { dry_run: 'true' } : undefined);
/** A rule's body with its position, when one is given (the service reads a rule's place from its body). */
const withPosition = <R extends object>(rule: R, position: RulePosition | undefined) => (position === undefined ? rule : { ...rule, position });

/**
 * The rulesets API of a zone (docs/service.md#rulesets): the entry point of a phase (the WAF managed rules, custom
 * rules, rate limiting rules), one rule at a time, and versions. The migration's own PUT is
 * wafMigration.updateEntrypoint.
 */
export class RulesetsGroup {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Every write of a ruleset: with `dryRun`, `?dry_run=true` and a null answer; else the saved ruleset. */
  #write<D extends boolean | undefined>(method: 'PUT' | 'POST' | 'PATCH' | 'DELETE', path: string, dryRun: D | undefined, json?: unknown) {
    return this.#transport.call({ method, path, query: dryRunQuery(dryRun), json, schema: writeSchema(dryRun) }) as Promise<RulesetWrite<D>>;
  }

  /** GET the entry point's current version (NotFoundError while the zone has none). */
  getEntrypoint({ zoneId, phase = MANAGED_PHASE }: ZoneArgs & PhaseArgs): Promise<SavedRuleset> {
    return this.#transport.call({ method: 'GET', path: entrypointPath(zoneId, phase), schema: SavedRulesetSchema });
  }

  /**
   * PUT the whole entry point as its next version (the ordinary ruleset update: no waf_migration); the first PUT of a
   * phase creates it. Rules keep the ids sent; a rule without an id is new. The body replaces the ruleset, so a repeat
   * after a lost answer saves the same rules again: retried like any PUT. The last writer wins.
   */
  updateEntrypoint<D extends boolean | undefined = undefined>(args: EntrypointWriteArgs<D>): Promise<RulesetWrite<D>> {
    const { zoneId, phase = MANAGED_PHASE, ruleset, dryRun } = args;
    return this.#write('PUT', entrypointPath(zoneId, phase), dryRun, ruleset);
  }

  /**
   * POST the zone's entry point of `phase` (a ruleset of kind zone): the create-only write, refused with
   * BadRequestError code 20217 (ErrorCode.entrypointExists) when the zone already has one, so of two first writers
   * one makes it and the other learns it (docs/service.md#ruleset-create). Not repeated once sent, as any POST.
   */
  createEntrypoint<D extends boolean | undefined = undefined>(args: EntrypointWriteArgs<D>): Promise<RulesetWrite<D>> {
    const { zoneId, phase = MANAGED_PHASE, ruleset, dryRun } = args;
    const json: EntrypointCreate = { ...ruleset, kind: 'zone', phase };
    return this.#write('POST', zonePath(zoneId, 'rulesets'), dryRun, json);
  }

  /** GET a ruleset by id, its current version. */
  get({ zoneId, rulesetId }: RulesetArgs): Promise<SavedRuleset> {
    return this.#transport.call({ method: 'GET', path: rulesetPath(zoneId, rulesetId), schema: SavedRulesetSchema });
  }

  /**
   * POST one rule to a ruleset, last or where `position` says (before or after a rule id, or a 1-based index); answers
   * the whole ruleset. Not repeated once sent: a repeat would add the rule twice.
   */
  createRule<D extends boolean | undefined = undefined>({
    zoneId,
    rulesetId,
    rule,
    position,
    dryRun,
  }: RulesetArgs & DryRunArgs<D> & { rule: Omit<RuleCreate, 'position'>; position?: RulePosition }): Promise<RulesetWrite<D>> {
    return this.#write('POST', rulesetPath(zoneId, rulesetId, 'rules'), dryRun, withPosition(rule, position));
  }

  /** PATCH the fields of one rule given, and move it when `position` is given; answers the whole ruleset. */
  updateRule<D extends boolean | undefined = undefined>({
    zoneId,
    rulesetId,
    ruleId,
    rule,
    position,
    dryRun,
  }: RulesetArgs & DryRunArgs<D> & { ruleId: string; rule: Omit<RulePatch, 'position'>; position?: RulePosition }): Promise<RulesetWrite<D>> {
    return this.#write('PATCH', rulesetPath(zoneId, rulesetId, 'rules', ruleId), dryRun, withPosition(rule, position));
  }

  /**
   * DELETE one rule; answers the whole ruleset without it (NotFoundError for a rule it does not hold). Retried like
   * any DELETE: a repeat after a lost answer finds the rule gone, a NotFoundError the caller reads as deleted.
   */
  deleteRule<D extends boolean | undefined = undefined>(args: RulesetArgs & DryRunArgs<D> & { ruleId: string }): Promise<RulesetWrite<D>> {
    const { zoneId, rulesetId, ruleId, dryRun } = args;
    return this.#write('DELETE', rulesetPath(zoneId, rulesetId, 'rules', ruleId), dryRun);
  }

  /** GET every version of a ruleset, oldest first, without rules. */
  listVersions({ zoneId, rulesetId }: RulesetArgs): Promise<RulesetVersion[]> {
    return this.#transport.call({ method: 'GET', path: rulesetPath(zoneId, rulesetId, 'versions'), schema: z.array(RulesetVersionSchema) });
  }

  /** GET one version of a ruleset, with its rules. */
  getVersion({ zoneId, rulesetId, version }: RulesetArgs & { version: string }): Promise<SavedRuleset> {
    return this.#transport.call({ method: 'GET', path: rulesetPath(zoneId, rulesetId, 'versions', version), schema: SavedRulesetSchema });
  }
}
