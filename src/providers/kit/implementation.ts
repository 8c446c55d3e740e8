import type * as pulumi from '@pulumi/pulumi';
import { NotFoundError, ZoneGuardError } from '../../client/errors';

/** What a resource kind implements: every method of a dynamic provider, with plain records for inputs. */
export type Implementation = Required<
  Pick<pulumi.dynamic.ResourceProvider, 'configure' | 'check' | 'diff' | 'create' | 'read' | 'update' | 'delete'>
>;

/** Runs `call`, and answers `fallback` instead when the object it addresses no longer exists (404). */
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

/** Prefixes a failure of `call` with the resource and the step, keeping the client's message (method, path, codes). */
export async function step<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ZoneGuardError) throw new ProviderError(`${what}: ${error.message}`, { cause: error });
    throw error;
  }
}
