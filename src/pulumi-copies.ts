// Imported by the package's root entry point (the resource classes), after the Node check: a program must share one
// @pulumi/pulumi with the package. With two copies loaded (the package's own nested under it, an older npm's answer
// to a program pinned outside the package's range, or two installs linked together), every resource fails to
// register with "13 INTERNAL: Request message serialization failure", which names nothing of ours. Here it stops at
// load with one line naming both copies and what to do.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** A loaded copy of @pulumi/pulumi: its folder and version. */
export interface PulumiCopy {
  dir: string;
  version: string;
}

/**
 * What is wrong when copies of @pulumi/pulumi other than the package's own are loaded, or undefined when only the
 * package's own (or none) is. `range` is the package's peer dependency range. Pure.
 */
export function pulumiCopiesProblem(own: PulumiCopy, loaded: PulumiCopy[], range: string): string | undefined {
  const others = loaded.filter((copy) => copy.dir !== own.dir);
  if (others.length === 0) return undefined;
  const named = others.map((copy) => `${copy.version} (${copy.dir})`).join(', ');
  return (
    `pulumi-zoneguard: two copies of @pulumi/pulumi are loaded, the program's ${named} and the package's ${own.version} ` +
    `(${own.dir}), and resources registered through two copies fail. Install one @pulumi/pulumi in the range ${range} ` +
    'in your project (npm install @pulumi/pulumi@<version in that range>) and remove the nested one, so the package ' +
    'shares the program\'s copy: `npm ls @pulumi/pulumi` lists them.'
  );
}

/** The @pulumi/pulumi folders of the modules Node has loaded so far (their real paths, as Node keys them). */
export function loadedPulumiDirs(modulePaths: Iterable<string>): string[] {
  const dirs = new Set<string>();
  for (const file of modulePaths) {
    const match = /^(.*[\\/]node_modules[\\/]@pulumi[\\/]pulumi)[\\/]/.exec(file);
    if (match) dirs.add(match[1]!);
  }
  return [...dirs];
}

function copyAt(dir: string): PulumiCopy {
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  return { dir, version };
}

/** The check, run once at load: throws the one line when another copy is loaded beside the package's own. */
export function assertOnePulumiCopy(): void {
  // Jest and other loaders keep their own module registry: `require.cache` is Node's, and only Node's is read here.
  const own = copyAt(path.dirname(require.resolve('@pulumi/pulumi/package.json')));
  const { peerDependencies } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };
  const loaded = loadedPulumiDirs(Object.keys(require.cache ?? {})).map(copyAt);
  const problem = pulumiCopiesProblem(own, loaded, peerDependencies['@pulumi/pulumi']!);
  if (problem) throw new Error(problem);
}

assertOnePulumiCopy();
