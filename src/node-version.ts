// Imported first by every entry point of the package (the library, each subpath export, the providers the engine
// loads, the CLI), so an unsupported Node fails at once with what to install, instead of loading and then failing
// on the first Object.groupBy (Node 21+) or on got, which is ESM-only and needs require(esm) (Node 22.12+).

import { join } from 'node:path';

/** The oldest Node.js the package runs on; package.json's `engines.node` says the same (a test compares them). */
export const MIN_NODE_VERSION = '22.12.0';

/** What is wrong with running on Node `version` (`process.versions.node`), or undefined when it is supported. Pure. */
export function nodeVersionProblem(version: string, min: string = MIN_NODE_VERSION): string | undefined {
  const parts = (text: string) => text.replace(/^v/, '').split(/[.-]/).slice(0, 3).map(Number);
  const have = parts(version);
  const need = parts(min);
  for (let i = 0; i < 3; i += 1) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (Number.isNaN(a) || a < b) {
      return (
        `pulumi-zoneguard needs Node.js ${min} or later, and this is Node.js ${version}. ` +
        'Install Node.js 24 LTS (or 22 LTS, 22.12 or later) and put it first on PATH: the Pulumi engine starts the providers with the node it finds there.'
      );
    }
    if (a > b) return undefined;
  }
  return undefined;
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  // The zoneguard bin says it in one line and exits 1; a library load throws, so the program or provider fails.
  if (require.main?.filename === join(__dirname, 'cli', 'index.js')) {
    process.stderr.write(`zoneguard: ${problem}\n`);
    process.exit(1);
  }
  throw new Error(problem);
}
