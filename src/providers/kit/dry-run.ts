import { NotFoundError, ZoneGuardError } from '../../client/errors';
import { ProviderError, goneMessage } from './implementation';

/**
 * Sends a write with `dry_run=true` (docs/service.md#ruleset-dry-run) during a diff, so the service's refusal of the
 * change (its quota, an expression it refuses, a ref another rule holds) fails the preview on the resource's line,
 * `what` first, with the service's own words; nothing is changed. An object an update would write that the service says is
 * gone is said so, with what to do.
 */
export async function dryRunStep(what: string, call: () => Promise<unknown>, change: 'create' | 'update' = 'update'): Promise<void> {
  try {
    await call();
  } catch (error) {
    // The rule (or its whole entry point) is gone: the change has nothing to apply to until a refresh.
    if (change === 'update' && error instanceof NotFoundError) throw new ProviderError(goneMessage(what), { cause: error });
    if (error instanceof ZoneGuardError) {
      throw new ProviderError(`${what}: the service refuses this change (checked with dry_run, nothing was changed): ${error.message}`, { cause: error });
    }
    throw error;
  }
}
