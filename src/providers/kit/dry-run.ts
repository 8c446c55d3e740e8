import { ZoneGuardError } from '../../client/errors';
import { ProviderError } from './implementation';

/**
 * Sends a write with `dry_run=true` (docs/service.md#ruleset-dry-run) during a diff, so the service's refusal of the
 * change (its quota, an expression it refuses, a ref another rule holds) fails the preview on the resource's line,
 * `what` first, with the service's own words; nothing is changed.
 */
export async function dryRunStep(what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof ZoneGuardError) throw new ProviderError(`${what}: the service refuses this change (checked with dry_run, nothing was changed): ${error.message}`, { cause: error });
    throw error;
  }
}
