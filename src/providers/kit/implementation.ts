import type * as pulumi from '@pulumi/pulumi';
import { AuthenticationError, NotFoundError, RouteNotFoundError, ZoneGuardError } from '../../client/errors';
import { SETTING_SOURCES } from '../../client/settings';

/** What a resource kind implements: every method of a dynamic provider, with plain records for inputs. */
export type Implementation = Required<
  Pick<pulumi.dynamic.ResourceProvider, 'configure' | 'check' | 'diff' | 'create' | 'read' | 'update' | 'delete'>
>;

/** What a kind whose objects carry an owner marker adds to its implementation, for kit/marker.ts. */
export interface LiveObject {
  /** The object's outputs (the marked field as the service holds it), or undefined when the service says it is gone. */
  live(id: string, props: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  /**
   * The ids of the zone's objects of the kind whose marker is `marker`, from one list read per zone and run: where a
   * create finds the object its own interrupted run made (docs/ownership.md#leftovers).
   */
  carrying?(props: Record<string, unknown>, marker: string): Promise<string[]>;
}

/**
 * Runs `call`, and answers `fallback` instead when the service says the object or its zone does not exist (its own
 * 404, code 10013: NotFoundError). Any other 404 (no route: a wrong base URL; a proxy's page) is a RouteNotFoundError
 * and fails like every other error: only the service's "not found" may make a provider forget an object.
 */
export async function unlessNotFound<T, F>(call: () => Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof NotFoundError) return fallback;
    throw error;
  }
}

/** The error a provider method throws: which resource and what it was doing, then the service's own words. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Why an update cannot proceed when the object is gone (deleted outside of Pulumi since the state last saw it), and
 * what to do: a refresh takes the resource out of the state, and the next up creates it again.
 */
export function goneMessage(what: string): string {
  return `${what}: it is gone (deleted outside of Pulumi since the last refresh), so there is nothing to update; run pulumi refresh, which takes it out of the state, then pulumi up, which creates it again`;
}

/** The setting to check when a call failed because of where or as whom it was sent, not because of the resource. */
export function settingHint(error: ZoneGuardError): string {
  const { baseUrl, apiToken, apiEmail, apiKey } = SETTING_SOURCES;
  if (error instanceof RouteNotFoundError) {
    return `; check ${baseUrl.config} (or ${baseUrl.env}): it must be the service's base URL, ending in /client/v4. Nothing was read as deleted`;
  }
  if (error instanceof AuthenticationError) {
    // The engine's refresh and destroy, and the refresh step of preview --refresh, configure the providers with the
    // config stored by the last up (README, "Rotate credentials"): a changed token reaches them only through an up
    // (without --refresh, whose refresh comes first) or --run-program.
    return (
      `; check ${apiToken.config} (or ${apiToken.env}), or ${apiEmail.config} and ${apiKey.config}: the credentials were refused. ` +
      'pulumi refresh, destroy and preview --refresh use the credentials of the last pulumi up: after changing them, ' +
      'run pulumi up without --refresh, or add --run-program to refresh and destroy'
    );
  }
  return '';
}

/** Prefixes a failure of `call` with the resource and the step, keeping the client's message (method, path, codes). */
export async function step<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ZoneGuardError) throw new ProviderError(`${what}: ${error.message}${settingHint(error)}`, { cause: error });
    throw error;
  }
}
