/**
 * Lines the client says of itself on stderr, each kind once per process: an odd answer of the service (a reset past its
 * window, two rate limit policies), odd contents of the shared budget's store. On stderr with console.error, not as a
 * process warning: `--no-warnings` in NODE_OPTIONS silences every process warning (scripts/env.sh set it as
 * `--no-warnings=ExperimentalWarning`, which takes no value, and hid the store's warning), and a provider's stderr
 * reaches the stack's diagnostics (test/e2e/custom-rules.test.ts reads such lines in a preview's output).
 */

// Kept on globalThis under a registered symbol, as the rate budgets are (rate-budget.ts): two copies of this package in
// one process say a line once between them.
const REGISTRY = Symbol.for('pulumi-zoneguard.notices.v1');

function said(): Set<string> {
  const holder = globalThis as { [REGISTRY]?: Set<string> };
  holder[REGISTRY] ??= new Set();
  return holder[REGISTRY];
}

/** Says `line` on stderr unless a line of this `kind` was said already in this process; answers whether it was said. */
export function sayOnce(kind: string, line: string): boolean {
  const kinds = said();
  if (kinds.has(kind)) return false;
  kinds.add(kind);
  console.error(line);
  return true;
}

/** Forgets what was said, so that the next line of each kind is said again: for tests. */
export function forgetNotices(): void {
  said().clear();
}
