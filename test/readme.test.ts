import * as fs from 'node:fs';
import * as path from 'node:path';

// Versions the README and docs state, compared with the files that decide them, so the text cannot drift.
const root = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; engines: { node: string } };
const cli = /github\.com\/pulumi\/pulumi\/pkg\/v3 v(\d+\.\d+\.\d+)/.exec(read('tools/pulumi-cli/go.mod'))?.[1];

describe("the README's install table", () => {
  const section = read('README.md').split('\n## Install\n')[1]?.split('\n## ')[0] ?? '';
  const table = section.split('\n').filter((line) => /^\| (Node\.js|`@pulumi\/pulumi`|Pulumi CLI) \|/.test(line));

  test('has the three rows', () => {
    expect(table).toHaveLength(3);
  });

  test('names the Node version of engines.node', () => {
    expect(table[0]).toContain(`| Node.js | ${pkg.engines.node.replace('>=', '')} or later`);
  });

  test("names @pulumi/pulumi's range of package.json and the locked version", () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version: string }> };
    expect(table[1]).toContain(`\`${pkg.dependencies['@pulumi/pulumi']}\``);
    expect(table[1]).toContain(`the lockfile and the tests use ${lock.packages['node_modules/@pulumi/pulumi']!.version}`);
  });

  test('names the CLI version tools/pulumi-cli/go.mod builds', () => {
    expect(cli).toBeDefined();
    expect(table[2]).toContain(`| Pulumi CLI | ${cli} or later`);
  });
});

test('docs/expressions.md names the chevrotain major of package.json', () => {
  const major = /\d+/.exec(pkg.dependencies['chevrotain']!)?.[0];
  expect(read('docs/expressions.md')).toContain(`The dependency is chevrotain ${major} (\`${pkg.dependencies['chevrotain']}\``);
});
