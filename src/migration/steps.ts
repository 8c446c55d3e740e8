// Where a zone stands in the migration against the declared mode, and which call brings it there: the table of
// docs/service.md#migration-modes as pure decisions, so every move has a table test.
import { z } from 'zod';
import type { EntrypointRuleset, MigrationState, WafMigrationMode, WafStatus } from '../schemas';

/** The mode a user declares: migrate at once, or first run both WAFs side by side (Enterprise only). */
export const MigrationModeSchema = z.enum(['direct', 'validation'], { error: 'must be direct or validation' });
export type MigrationMode = z.infer<typeof MigrationModeSchema>;

/** The migration state each declared mode settles in. */
export const SETTLED_STATE: Readonly<Record<MigrationMode, MigrationState>> = { direct: 'complete', validation: 'validation' };

/** The value of `waf_migration` on the entry point update for each declared mode. */
export const SUBMIT_MODE: Readonly<Record<MigrationMode, WafMigrationMode>> = { direct: 'pending', validation: 'validation' };

/** The declared mode a zone's migration state corresponds to (pending and complete are both direct). */
export function modeOfState(state: string, fallback: MigrationMode): MigrationMode {
  if (state === 'pending' || state === 'complete') return 'direct';
  if (state === 'validation') return 'validation';
  return fallback;
}

/** What the provider does next for a zone in `state` when `mode` is declared. */
export type NextStep =
  | { kind: 'submit'; mode: WafMigrationMode }
  | { kind: 'wait' }
  | { kind: 'nothing' }
  | { kind: 'refuse'; reason: string };

/**
 * The table of docs/service.md#migration-modes as a decision. `resubmit` says the declared configuration may differ from the one the
 * zone runs (a create, or changed adjustments): in validation mode it is submitted again.
 */
export function nextStep(state: MigrationState | string, mode: MigrationMode, resubmit: boolean): NextStep {
  switch (state) {
    case 'start':
      return { kind: 'submit', mode: SUBMIT_MODE[mode] };
    case 'validation':
      if (mode === 'direct') return { kind: 'submit', mode: 'pending' };
      return resubmit ? { kind: 'submit', mode: 'validation' } : { kind: 'nothing' };
    case 'pending':
    case 'complete':
      if (mode === 'validation') {
        return {
          kind: 'refuse',
          reason: `the zone's migration is ${state === 'pending' ? 'finishing (pending)' : 'complete'}, and a migration cannot be undone: validation mode is no longer possible; declare mode: 'direct'`,
        };
      }
      return state === 'pending' ? { kind: 'wait' } : { kind: 'nothing' };
    default:
      return {
        kind: 'refuse',
        reason: `the service reports migration_state ${state}, which this version of pulumi-zoneguard does not know; nothing was changed`,
      };
  }
}

/** Where a zone stands against the declared mode after a submission: settled, still moving, or off the path. */
export type Progress = { kind: 'settled' } | { kind: 'moving' } | { kind: 'off'; reason: string };

/** Whether `status` is the state `mode` settles in. */
export function assessProgress(status: Pick<WafStatus, 'migration_state' | 'old_waf_status' | 'new_waf_status'>, mode: MigrationMode): Progress {
  const state = status.migration_state;
  if (mode === 'direct') {
    if (state === 'complete') return { kind: 'settled' };
    return { kind: 'moving' };
  }
  if (state === 'validation') return { kind: 'settled' };
  if (state === 'pending' || state === 'complete') {
    return { kind: 'off', reason: `validation mode was submitted, but the zone's migration is ${state}` };
  }
  return { kind: 'moving' };
}

/** One progress line per poll, for the engine's log (the provider writes it to stderr). */
export function progressLine(
  zoneId: string,
  status: Pick<WafStatus, 'migration_state' | 'old_waf_status' | 'new_waf_status'>,
  mode: MigrationMode,
  elapsedMs: number,
  timeoutMs: number,
): string {
  return (
    `zoneguard: WafMigration zone ${zoneId}: migration_state ${status.migration_state} ` +
    `(previous WAF ${status.old_waf_status}, new WAF ${status.new_waf_status}), ` +
    (status.migration_state === SETTLED_STATE[mode]
      ? `settled after ${Math.round(elapsedMs / 1000)}s`
      : `waiting for ${SETTLED_STATE[mode]} (${Math.round(elapsedMs / 1000)}s of ${Math.round(timeoutMs / 1000)}s)`)
  );
}

/**
 * The body of the entry point update: the validation-mode request omits each rule's id, version and ref
 * (docs/service.md#validation-request); the pending request sends them as the configuration read gave them.
 */
export function entrypointBody(ruleset: EntrypointRuleset, mode: WafMigrationMode): EntrypointRuleset {
  if (mode === 'pending') return ruleset;
  return { ...ruleset, rules: ruleset.rules.map(({ id: _id, version: _version, ref: _ref, ...rule }) => rule) };
}
