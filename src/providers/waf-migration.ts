import type * as pulumi from '@pulumi/pulumi';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { ZoneGuardClient } from '../client';
import {
  ConflictError,
  ConnectionError,
  NotFoundError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  ZoneGuardError,
} from '../client/errors';
import { DEFAULT_WAIT, WafMigrationKind, type WaitSchema } from '../kinds/waf-migration';
import { ErrorCode, type EntrypointRuleset, type WafMigrationMode, type WafStatus } from '../schemas';
import { checkWithSchema, containsUnknown } from './kit/check';
import { diffFields } from './kit/diff';
import { implementationOf, type Context } from './kit/context';
import { ProviderError, step } from './kit/implementation';
import { diffPlan, label as kindLabel } from '../kinds';
import {
  NO_ADJUSTMENTS,
  SETTLED_STATE,
  adoptedConversion,
  assessProgress,
  entrypointBody,
  modeOfState,
  nextStep,
  progressLine,
  readMigrationPlan,
  type Adjustments,
  type MigrationMode,
  type WafConversion,
  type WafMigrationPlan,
} from '../migration';

/** Inputs of a WafMigration, as `check` validates them (src/kinds/waf-migration.ts). */
export const WafMigrationArgsSchema = WafMigrationKind.args;
export { DEFAULT_WAIT };
export type WaitSettings = z.output<typeof WaitSchema>;
export type WafMigrationInputs = z.output<typeof WafMigrationArgsSchema>;

/** Outputs: the inputs, where the zone stands, what was submitted and what the conversion changed or dropped. */
export type WafMigrationOutputs = WafMigrationInputs & {
  /** validation, pending or complete. */
  migrationState: string;
  /** old_waf_status of the status read. */
  previousWafStatus: 'enabled' | 'disabled';
  /** new_waf_status of the status read. */
  newWafStatus: 'enabled' | 'disabled';
  /** The body of the last entry point update this resource sent; null when it sent none. */
  submittedRuleset: EntrypointRuleset | null;
  conversion: WafConversion;
};

const RESOURCE = WafMigrationKind.kind;
/** A migration is its zone's, once: its messages name the zone alone, whatever the resource is called. */
const label = (zoneId: string) => kindLabel(RESOURCE, { zoneId }, undefined);

/** How to take the resource out of a stack without touching the zone; part of every refusal. */
export const HOW_TO_DROP =
  'to drop this resource from the stack without touching the zone, set the resource options protect: false and ' +
  'retainOnDelete: true and run pulumi up, or run pulumi state delete <urn> (the urn is shown by pulumi stack --show-urns)';

/**
 * The moves `check` refuses, comparing the old inputs with the new: another zone, going back to validation after a
 * direct migration, and adjustments after the migration completed. Each failure says the migration cannot be
 * undone and how to proceed. Empty at create (no old inputs).
 */
export function transitionFailures(olds: Record<string, unknown>, news: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  const oldZone = olds.zoneId;
  if (typeof oldZone !== 'string') return [];
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const known = (value: unknown) => value !== undefined && !containsUnknown(value);
  if (known(news.zoneId) && news.zoneId !== oldZone) {
    failures.push({
      property: 'zoneId',
      reason:
        `${RESOURCE}.zoneId: this resource migrated zone ${oldZone} and cannot move to zone ${String(news.zoneId)}: ` +
        `a WAF migration cannot be undone, so the resource stays bound to its zone. Declare a new WafMigration resource ` +
        `for zone ${String(news.zoneId)}, and keep zoneId ${oldZone} here; ${HOW_TO_DROP}`,
    });
  }
  if (olds.mode === 'direct' && news.mode === 'validation') {
    failures.push({
      property: 'mode',
      reason:
        `${RESOURCE}.mode: zone ${oldZone} migrated directly to the new WAF managed rules and cannot go back to validation: ` +
        `the migration cannot be undone. Keep mode: 'direct'; ${HOW_TO_DROP}`,
    });
  } else if (olds.mode === 'direct' && known(news.adjustments) && !isDeepStrictEqual(olds.adjustments ?? NO_ADJUSTMENTS, news.adjustments)) {
    failures.push({
      property: 'adjustments',
      reason:
        `${RESOURCE}.adjustments: zone ${oldZone} migrated directly, so adjustments can no longer be submitted: the migration ` +
        `cannot be undone or repeated. Put back the adjustments it was migrated with, and manage the new WAF's ` +
        `http_request_firewall_managed entry point with a WafManagedRules resource (dependsOn this migration; ` +
        `zoneguard export --zone ${oldZone} writes it with the rules the zone holds, docs/firewall-and-migration.md); ${HOW_TO_DROP}`,
    });
  }
  return failures;
}

/** True when the recorded state is not the one its mode settles in (a wait that timed out): the next up waits again. */
export function isUnsettled(outputs: Record<string, unknown>): boolean {
  const mode = outputs.mode;
  if (mode !== 'direct' && mode !== 'validation') return false;
  return typeof outputs.migrationState === 'string' && outputs.migrationState !== SETTLED_STATE[mode];
}

// The zone (refused by check), the mode and the adjustments (src/kinds/waf-migration.ts): no field replaces.
const DIFF = diffPlan(WafMigrationKind);

/**
 * Never a replacement: a migration cannot be undone, so another zone or going back is refused by `check` instead.
 * `wait` is how the provider waits, not a property of the zone: never a change. An unsettled migration (a wait that
 * timed out) is a change, so the next up waits for it.
 */
export function diffWafMigration(olds: Record<string, unknown>, news: Record<string, unknown>) {
  const fields = diffFields(olds, news, DIFF);
  const unsettled = isUnsettled(olds);
  const changed: string[] = unsettled ? [...fields.changed, 'migrationState'] : [...fields.changed];
  const replaces: string[] = [];
  return { changes: changed.length > 0, changed, replaces, deleteBeforeReplace: undefined };
}

/** The outputs for the zone's status and what this step submitted. */
export function migrationOutputs(
  inputs: WafMigrationInputs,
  status: Pick<WafStatus, 'migration_state' | 'old_waf_status' | 'new_waf_status'>,
  submittedRuleset: EntrypointRuleset | null,
  conversion: WafConversion,
): WafMigrationOutputs {
  return {
    zoneId: inputs.zoneId,
    mode: inputs.mode,
    adjustments: inputs.adjustments,
    wait: inputs.wait,
    migrationState: String(status.migration_state),
    previousWafStatus: status.old_waf_status,
    newWafStatus: status.new_waf_status,
    submittedRuleset,
    conversion,
  };
}

/**
 * Thrown when the zone changed (the entry point update went through) but did not settle: carrying `id` and
 * `properties`, it makes the engine record the resource as it is (a partial create or update), so the next run
 * waits for it instead of submitting again.
 */
export class WafMigrationUnsettledError extends ProviderError {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** The clear message for validation mode refused by the service; undefined for any other failure. */
export function validationRefusal(zoneId: string, error: unknown): string | undefined {
  if (!(error instanceof ZoneGuardError)) return undefined;
  const aboutPlan = error.codes.includes(ErrorCode.migrationPlan);
  if (!aboutPlan || (error.status !== undefined && error.status >= 500)) return undefined;
  return (
    `${label(zoneId)}: validation mode is available to Enterprise zones only, and the service refused it for this zone ` +
    `(${error.message}). Nothing was changed. Pro and Business zones migrate directly: declare mode: 'direct' ` +
    `(the previous WAF is disabled once the new one is on, which cannot be undone); review what would be submitted ` +
    `with planWafMigration first`
  );
}

/** Blocking problems of a plan as one error message. */
export function notSubmittedMessage(zoneId: string, plan: Pick<WafMigrationPlan, 'problems'>): string {
  return `${label(zoneId)}: the migration was not submitted and the zone is unchanged:\n${plan.problems.map((p) => `  - ${p}`).join('\n')}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether a failed entry point PUT may have changed the zone: no answer, or not the service's (5xx, a reset, a
 * timeout, a cut-off or unreadable success), or 409 "already migrated" (10027), which right after our own submit
 * means an earlier attempt of it went through. A refusal (400, 403, 404, 429) changed nothing. Pure.
 */
export function submitMayHaveActed(error: unknown): boolean {
  if (error instanceof ConflictError) return error.codes.includes(ErrorCode.conflict);
  return (
    error instanceof ServerError ||
    error instanceof ConnectionError ||
    error instanceof TimeoutError ||
    error instanceof ResponseValidationError ||
    error instanceof ResponseTooLargeError
  );
}

/**
 * Submits the configuration, mapping a plan refusal of validation mode to its clear message. When the answer was
 * lost (the client does not repeat this PUT once it may have been received), the status says whether it went
 * through: a zone no longer in `from` (or a status that cannot be read) is taken as submitted, so the caller records
 * the resource with what it sent; a zone still in `from` fails the create with nothing changed.
 */
async function submit(client: ZoneGuardClient, zoneId: string, mode: WafMigrationMode, ruleset: EntrypointRuleset, from: string): Promise<void> {
  try {
    await client.wafMigration.updateEntrypoint({ zoneId, mode, ruleset });
  } catch (error) {
    const refusal = mode === 'validation' ? validationRefusal(zoneId, error) : undefined;
    if (refusal) throw new ProviderError(refusal, { cause: error });
    if (!(error instanceof ZoneGuardError)) throw error;
    const what = `${label(zoneId)}: submitting the configuration (waf_migration=${mode}): ${error.message}`;
    if (!submitMayHaveActed(error)) throw new ProviderError(what, { cause: error });
    const now = await client.wafMigration.status({ zoneId }).then(
      (status) => String(status.migration_state),
      () => undefined,
    );
    if (now === from) throw new ProviderError(`${what}; the zone is unchanged (still ${from}): run pulumi up again`, { cause: error });
    console.error(
      `zoneguard: ${what}; the answer was lost, but ${now === undefined ? 'the status could not be read' : `the zone moved from ${from} to ${now}`}: ` +
        'taken as submitted, and recorded with the configuration sent',
    );
  }
}

/**
 * Polls the status until the zone is in the state `mode` settles in, one progress line per poll on stderr (the
 * engine shows a dynamic provider's stderr; pulumi.log is not reliable in the provider process). On timeout or an
 * unexpected state it throws the partial-state error with the last status.
 */
async function waitForSettled(
  client: ZoneGuardClient,
  inputs: WafMigrationInputs,
  record: (status: WafStatus) => Record<string, unknown>,
  id: string,
): Promise<WafStatus> {
  const { zoneId, mode } = inputs;
  const timeoutMs = inputs.wait.timeoutSeconds * 1000;
  const intervalMs = inputs.wait.pollIntervalSeconds * 1000;
  const started = Date.now();
  for (;;) {
    const status = await step(`${label(zoneId)}: reading the migration status`, () => client.wafMigration.status({ zoneId }));
    const elapsed = Date.now() - started;
    console.error(progressLine(zoneId, status, mode, elapsed, timeoutMs));
    const progress = assessProgress(status, mode);
    if (progress.kind === 'settled') return status;
    if (progress.kind === 'off') {
      throw new WafMigrationUnsettledError(`${label(zoneId)}: ${progress.reason}; the resource records the zone as it is`, id, record(status), [
        progress.reason,
      ]);
    }
    if (elapsed + intervalMs > timeoutMs) {
      const reason =
        `the configuration was submitted, but the zone is still ${status.migration_state} after ${inputs.wait.timeoutSeconds}s ` +
        `(the service can take up to an hour). The migration goes on by itself; the resource is recorded as ` +
        `${status.migration_state}: run pulumi up again later to wait for ${SETTLED_STATE[mode]}, or raise wait.timeoutSeconds`;
      throw new WafMigrationUnsettledError(`${label(zoneId)}: ${reason}`, id, record(status), [reason]);
    }
    await sleep(intervalMs);
  }
}

/**
 * Brings the zone from where it is to the declared mode: reads the plan, decides with docs/service.md#migration-modes,
 * refuses what cannot be done before any write, submits, and waits. `previous` is the state of an update.
 */
async function converge(
  ctx: Context,
  inputs: WafMigrationInputs,
  previous: WafMigrationOutputs | undefined,
  resubmit: boolean,
  id: string,
): Promise<WafMigrationOutputs> {
  const { zoneId, mode, adjustments } = inputs;
  const { client } = ctx;
  const plan = await step(`${label(zoneId)}: reading the zone's migration`, () => readMigrationPlan(client, zoneId, adjustments));
  const next = nextStep(plan.migrationState, mode, resubmit);
  const kept = {
    submitted: previous?.submittedRuleset ?? null,
    conversion: previous?.conversion ?? adoptedConversion(plan.migrationState),
  };
  const planStatus = { migration_state: plan.migrationState, old_waf_status: plan.previousWafStatus, new_waf_status: plan.newWafStatus };
  const recordWith = (submitted: EntrypointRuleset | null, conversion: WafConversion) => (status: WafStatus) => ({
    ...migrationOutputs(inputs, status, submitted, conversion),
    // The engine keeps a partial state's properties as the outputs: without the provider the next run cannot load it.
    __provider: ctx.provider,
  });

  switch (next.kind) {
    case 'refuse':
      throw new ProviderError(`${label(zoneId)}: ${next.reason}; ${HOW_TO_DROP}`);
    case 'nothing':
      return migrationOutputs(inputs, planStatus, kept.submitted, kept.conversion);
    case 'wait': {
      const status = await waitForSettled(client, inputs, recordWith(kept.submitted, kept.conversion), id);
      return migrationOutputs(inputs, status, kept.submitted, kept.conversion);
    }
    case 'submit': {
      if (plan.problems.length > 0 || !plan.ruleset) throw new ProviderError(notSubmittedMessage(zoneId, plan));
      const body = entrypointBody(plan.ruleset, next.mode);
      await submit(client, zoneId, next.mode, body, plan.migrationState);
      // From here the zone has changed: any failure must leave the resource in the state.
      const record = recordWith(body, plan.conversion);
      let status: WafStatus;
      try {
        status = await waitForSettled(client, inputs, record, id);
      } catch (error) {
        if (error instanceof WafMigrationUnsettledError) throw error;
        const reason = `the configuration was submitted, but reading the status failed: ${error instanceof Error ? error.message : String(error)}; run pulumi refresh, then pulumi up`;
        throw new WafMigrationUnsettledError(`${label(zoneId)}: ${reason}`, id, record({ ...planStatus, migration_state: next.mode }), [reason]);
      }
      return migrationOutputs(inputs, status, body, plan.conversion);
    }
  }
}

export const wafMigration = implementationOf<WafMigrationInputs, WafMigrationOutputs>(RESOURCE, {
  async check(_ctx, olds, news) {
    const result = checkWithSchema(WafMigrationArgsSchema, news, RESOURCE);
    if (result.failures.length > 0) return result;
    const failures = transitionFailures(olds, result.inputs ?? {});
    return failures.length > 0 ? { inputs: news, failures } : result;
  },

  async diff(_ctx, _id, olds, news) {
    return diffWafMigration(olds, news);
  },

  async create(ctx, inputs) {
    // The id is the zone's: a zone migrates once.
    const outs = await converge(ctx, inputs, undefined, true, inputs.zoneId);
    return { id: inputs.zoneId, outs };
  },

  async read(ctx, id, recorded) {
    // No 404 takes it out of the state, not even the service's "zone not found": the migration cannot be undone,
    // and a resource forgotten on a lookup that went wrong would take the record of what was submitted with it.
    const status = await step(`${label(recorded.zoneId)}: reading the migration status`, async () => {
      try {
        return await ctx.client.wafMigration.status({ zoneId: recorded.zoneId });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        throw new ProviderError(
          `${label(recorded.zoneId)}: the service does not know the zone (${error.message}); the resource stays in the state. ` +
            `Check the zone id and the credentials' account; if the zone was deleted for good, ${HOW_TO_DROP}`,
          { cause: error },
        );
      }
    });
    // Back at start (no migration to speak of: the service says so in a successful answer) leaves the state.
    if (status.migration_state === 'start') return { id: '' };
    const mode: MigrationMode = modeOfState(String(status.migration_state), recorded.mode);
    const outs: WafMigrationOutputs = {
      ...recorded,
      mode,
      migrationState: String(status.migration_state),
      previousWafStatus: status.old_waf_status,
      newWafStatus: status.new_waf_status,
    };
    const inputs = { zoneId: recorded.zoneId, mode, adjustments: recorded.adjustments ?? NO_ADJUSTMENTS, wait: recorded.wait ?? { ...DEFAULT_WAIT } };
    return { id, props: outs, inputs };
  },

  async update(ctx, id, previous, desired) {
    // check refuses these already; a program that skipped it must not reach the zone either.
    const refused = transitionFailures(previous, desired);
    if (refused.length > 0) throw new ProviderError(refused.map((f) => f.reason).join('\n'));
    const resubmit = previous.mode !== desired.mode || !isDeepStrictEqual(previous.adjustments ?? NO_ADJUSTMENTS, desired.adjustments);
    const outs = await converge(ctx, desired, previous, resubmit, id);
    return { outs };
  },

  async delete(_ctx, _id, { zoneId }) {
    throw new ProviderError(
      `${label(zoneId)} cannot be deleted: the migration to the new WAF managed rules cannot be undone, and deleting ` +
        `this resource would not give the zone its previous WAF back. To drop it from the stack without touching the ` +
        `zone: set the resource options protect: false and retainOnDelete: true and run pulumi up, or run ` +
        `pulumi state delete <urn> (pulumi state unprotect <urn> first if it is protected)`,
    );
  },
});

export type { Adjustments };
