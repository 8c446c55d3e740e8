// `npm pack` and a git install build the package first (the `prepare` script). In a clone where `npm ci` has not
// run, TypeScript is missing: say what to run instead of failing on `tsc: not found`. Runs on any Node that runs npm.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
if (!existsSync(tsc)) {
  console.error('pulumi-zoneguard: building the package needs its dev dependencies, which are not installed: run `npm ci` first, then this command again.');
  process.exit(1);
}
