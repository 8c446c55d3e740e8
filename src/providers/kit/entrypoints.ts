// The zones' entry points of one phase as a run of CustomRule or RateLimitRule last saw them, and the queue of each
// zone's writes (kit/phase-rule-calls.ts): per client, the one of the handler's context.
import type { ZoneGuardClient } from '../../client';
import type { RulePhase } from '../../rulesets';
import type { RulesetRule, SavedRuleset } from '../../schemas';
import { unlessNotFound } from './implementation';

/** A zone's rules of a phase as a preview's creates would leave them (a dry run saves nothing). */
export interface Previewed {
  rules: readonly RulesetRule[];
}

/**
 * The zones' entry points of one phase as this run last saw them, per client: read once, then kept from the answer
 * of every write (which answers the whole ruleset), so a run's creates cost one call each. Writes of one zone run one
 * at a time, so a run's second create POSTs to the entry point its first made, and the rule a write made is the one
 * its answer holds that the entry point did not.
 */
export class Entrypoints {
  readonly #phase: RulePhase;
  readonly #known = new WeakMap<ZoneGuardClient, Map<string, { ruleset: Promise<SavedRuleset | undefined>; at: number }>>();
  readonly #previewed = new WeakMap<ZoneGuardClient, Map<string, Previewed>>();
  /** The read each zone's confirmations share, and when it is issued (answeredSince). */
  readonly #pending = new WeakMap<ZoneGuardClient, Map<string, { at: number; ruleset: Promise<SavedRuleset | undefined> }>>();
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(phase: RulePhase) {
    this.#phase = phase;
  }

  #zones(client: ZoneGuardClient): Map<string, { ruleset: Promise<SavedRuleset | undefined>; at: number }> {
    let zones = this.#known.get(client);
    if (!zones) this.#known.set(client, (zones = new Map()));
    return zones;
  }

  /** The zone's rules as this preview's creates would leave them, and `next` as what they now are, when given. */
  previewed(client: ZoneGuardClient, zoneId: string, next?: Previewed): Previewed | undefined {
    let zones = this.#previewed.get(client);
    if (!zones) this.#previewed.set(client, (zones = new Map()));
    if (next) zones.set(zoneId, next);
    return zones.get(zoneId);
  }

  /** The zone's entry point as last seen, read once per run (undefined while the zone has none). */
  current(client: ZoneGuardClient, zoneId: string): Promise<SavedRuleset | undefined> {
    const zones = this.#zones(client);
    const known = zones.get(zoneId);
    if (known) return known.ruleset;
    const ruleset = unlessNotFound(() => client.rulesets.getEntrypoint({ zoneId, phase: this.#phase }), undefined);
    // A failed read is not remembered: the next call asks again.
    ruleset.catch(() => zones.delete(zoneId));
    zones.set(zoneId, { ruleset, at: Date.now() });
    return ruleset;
  }

  /** The zone's entry point as read or written at most `maxAgeMs` ago, else read again. */
  recent(client: ZoneGuardClient, zoneId: string, maxAgeMs: number): Promise<SavedRuleset | undefined> {
    const known = this.#zones(client).get(zoneId);
    return known && Date.now() - known.at < maxAgeMs ? known.ruleset : this.reread(client, zoneId);
  }

  /** Reads the zone's entry point again (a rule named by a place may have been added by hand since). */
  reread(client: ZoneGuardClient, zoneId: string): Promise<SavedRuleset | undefined> {
    this.#zones(client).delete(zoneId);
    return this.current(client, zoneId);
  }

  /** What a write answered: the zone's entry point now. */
  saw(client: ZoneGuardClient, zoneId: string, saved: SavedRuleset): void {
    this.#zones(client).set(zoneId, { ruleset: Promise.resolve(saved), at: Date.now() });
  }

  /**
   * The zone's entry point as the service answered it at or after `since`: what another writer wrote before then is in
   * it. The entry point as last seen when it was read or written since; else a read issued `windowMs` from the first
   * such call, which the calls arriving meanwhile share (the confirmations of adoptions the engine sends together).
   */
  answeredSince(client: ZoneGuardClient, zoneId: string, since: number, windowMs: number): Promise<SavedRuleset | undefined> {
    const known = this.#zones(client).get(zoneId);
    if (known && known.at >= since) return known.ruleset;
    let pending = this.#pending.get(client);
    if (!pending) this.#pending.set(client, (pending = new Map()));
    const due = pending.get(zoneId);
    if (due && due.at >= since) return due.ruleset;
    const at = Math.max(since, Date.now() + windowMs);
    const ruleset = new Promise((resolve) => setTimeout(resolve, at - Date.now())).then(() => {
      if (pending.get(zoneId)?.ruleset === ruleset) pending.delete(zoneId);
      return this.reread(client, zoneId);
    });
    pending.set(zoneId, { at, ruleset });
    return ruleset;
  }

  /** Runs the zone's writes one at a time, in the order they come. */
  serial<T>(zoneId: string, call: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(zoneId) ?? Promise.resolve();
    const next = previous.then(call, call);
    const settled = next.catch(() => undefined);
    this.#queues.set(zoneId, settled);
    void settled.then(() => {
      if (this.#queues.get(zoneId) === settled) this.#queues.delete(zoneId);
    });
    return next;
  }
}
