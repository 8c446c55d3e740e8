import { ZoneGuardError } from '../../client/errors';
import { ProviderError, type Implementation } from './implementation';
import { SettingsError } from '../../client/settings';

// Why a failure used to be printed twice: the dynamic provider host (@pulumi/pulumi's cmd/dynamic-provider) catches
// an error thrown by check, diff, read or delete, prints `${error}: ${error.stack}` on its stderr, and hands the
// error to the engine. The engine prints the message on the resource, and the host's stderr as well, under the
// stack: the message again, then a stack trace (into src/*.ts through the source maps). create and update only hand
// the error on. So the failures zoneguard reports on purpose are kept out of that stderr echo; the engine's own line
// on the resource stays. docs/failures.md shows what a user sees.

/** Set to 1 to see the host's echo, with the stack trace, of every failure again. */
export const DEBUG_VARIABLE = 'ZONEGUARD_DEBUG';

/**
 * The failures zoneguard reports on purpose, with a message that names the resource and what to do: the service's
 * refusals and network failures (the client's error tree), a provider's own refusals, missing or malformed settings.
 * Anything else (a TypeError, say) is a bug, and keeps its stack trace.
 */
export function isReportedFailure(error: unknown): boolean {
  return error instanceof ProviderError || error instanceof ZoneGuardError || error instanceof SettingsError;
}

/** What the host prints for an error it caught: exactly its format, so only that line is recognized. */
export function hostEcho(error: Error): string {
  return `${String(error)}: ${error.stack}`;
}

const expectedEchoes = new Set<string>();

/** The methods whose failures the host echoes (create and update only hand theirs on); configure runs inside them. */
const ECHOED = new Set(['configure', 'check', 'diff', 'read', 'delete']);

/**
 * The implementation with every method noting the echo of a reported failure before it reaches the host, so that
 * the filter installed by {@link quietHostEchoes} drops it. Nothing changes when ZONEGUARD_DEBUG is set.
 */
export function withQuietFailures(implementation: Implementation, env: Record<string, string | undefined> = process.env): Implementation {
  if (env[DEBUG_VARIABLE]) return implementation;
  const quiet = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(implementation) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    quiet[name] = async (...args: unknown[]) => {
      try {
        return await method.apply(implementation, args);
      } catch (error) {
        if (ECHOED.has(name) && error instanceof Error && isReportedFailure(error)) expectedEchoes.add(hostEcho(error));
        throw error;
      }
    };
  }
  return quiet as Implementation;
}

/**
 * Makes `target.error` (the host's console) drop the echo of a failure noted by {@link withQuietFailures}, once
 * each; everything else, our own notes and the echo of a bug included, is printed as before. Idempotent.
 */
export function quietHostEchoes(target: Pick<Console, 'error'> = console): void {
  const original = target.error as ((...args: unknown[]) => void) & { quiet?: true };
  if (original.quiet) return;
  const filtered = Object.assign(
    (...args: unknown[]) => {
      if (args.length === 1 && typeof args[0] === 'string' && expectedEchoes.delete(args[0])) return;
      original.apply(target, args);
    },
    { quiet: true as const },
  );
  target.error = filtered;
}

/** True in the dynamic provider host's process, the only one whose console gets {@link quietHostEchoes}. */
export function isDynamicProviderHost(argv: readonly string[] = process.argv): boolean {
  return /[\\/]cmd[\\/]dynamic-provider([\\/]index(\.js)?)?$/.test(argv[1] ?? '');
}
