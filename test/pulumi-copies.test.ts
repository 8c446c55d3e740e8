import { loadedPulumiDirs, pulumiCopiesProblem } from '../src/pulumi-copies';

// The pure parts of the load-time check; test/e2e/packed-package.test.ts loads a real second copy in a consumer.
const own = { dir: '/app/node_modules/pulumi-zoneguard/node_modules/@pulumi/pulumi', version: '3.276.0' };

describe('pulumiCopiesProblem', () => {
  test('none loaded, or only the package\'s own: no problem', () => {
    expect(pulumiCopiesProblem(own, [], '^3.259.0')).toBeUndefined();
    expect(pulumiCopiesProblem(own, [own], '^3.259.0')).toBeUndefined();
  });

  test('another copy loaded: one line naming both versions and folders, the range and what to do', () => {
    const program = { dir: '/app/node_modules/@pulumi/pulumi', version: '3.259.0' };
    const problem = pulumiCopiesProblem(own, [program, own], '^3.259.0');
    expect(problem).toBe(
      "pulumi-zoneguard: two copies of @pulumi/pulumi are loaded, the program's 3.259.0 (/app/node_modules/@pulumi/pulumi) and the package's " +
        '3.276.0 (/app/node_modules/pulumi-zoneguard/node_modules/@pulumi/pulumi), and resources registered through two copies fail. ' +
        'Install one @pulumi/pulumi in the range ^3.259.0 in your project (npm install @pulumi/pulumi@<version in that range>) and remove the ' +
        "nested one, so the package shares the program's copy: `npm ls @pulumi/pulumi` lists them.",
    );
    expect(problem).not.toContain('\n');
  });

  test('the same version in two folders is two copies too', () => {
    expect(pulumiCopiesProblem(own, [{ dir: '/app/node_modules/@pulumi/pulumi', version: own.version }], '^3.259.0')).toContain('two copies');
  });
});

describe('loadedPulumiDirs', () => {
  test('the @pulumi/pulumi folder of each loaded module, once each; other @pulumi packages and its own dependencies are not copies', () => {
    expect(
      loadedPulumiDirs([
        '/app/node_modules/@pulumi/pulumi/index.js',
        '/app/node_modules/@pulumi/pulumi/runtime/settings.js',
        '/app/node_modules/@pulumi/pulumi/node_modules/semver/index.js',
        '/app/node_modules/@pulumi/pulumi-random/index.js',
        '/app/node_modules/pulumi-zoneguard/node_modules/@pulumi/pulumi/index.js',
        '/app/node_modules/.pnpm/@pulumi+pulumi@3.270.0/node_modules/@pulumi/pulumi/index.js',
        '/app/index.js',
      ]),
    ).toEqual([
      '/app/node_modules/@pulumi/pulumi',
      '/app/node_modules/pulumi-zoneguard/node_modules/@pulumi/pulumi',
      '/app/node_modules/.pnpm/@pulumi+pulumi@3.270.0/node_modules/@pulumi/pulumi',
    ]);
  });
});
