import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import * as zoneguard from '../src';

// Versions the README and docs state, compared with the files that decide them, so the text cannot drift.
const root = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  engines: { node: string };
};
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

  test("names @pulumi/pulumi's peer range of package.json and the locked version, which the development pin names", () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version: string }> };
    const locked = lock.packages['node_modules/@pulumi/pulumi']!.version;
    expect(pkg.dependencies['@pulumi/pulumi']).toBeUndefined(); // shared with the program, never a copy of its own
    expect(table[1]).toContain(`| \`@pulumi/pulumi\` | \`${pkg.peerDependencies['@pulumi/pulumi']}\`, your project's own (a peer dependency)`);
    expect(table[1]).toContain(`the lockfile and the tests use ${locked}`);
    expect(pkg.devDependencies['@pulumi/pulumi']).toBe(locked);
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

/** The fenced blocks of a Markdown file in one language, each with the line it starts on. */
function fencedBlocks(file: string, language: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  let open: { line: number; code: string } | undefined;
  for (const [index, line] of read(file).split('\n').entries()) {
    if (open && line === '```') {
      blocks.push(open);
      open = undefined;
    } else if (open) open.code += `${line}\n`;
    else if (line === '```' + language) open = { line: index + 1, code: '' };
  }
  return blocks;
}

describe("the README's TypeScript samples", () => {
  const samples = fencedBlocks('README.md', 'ts');

  test('import only what the package exports', () => {
    const exported = new Set(Object.keys(zoneguard));
    const imported = samples.flatMap(({ code }) =>
      [...code.matchAll(/import \{([^}]+)\} from 'pulumi-zoneguard';/g)].flatMap((match) => match[1]!.split(',').map((name) => name.trim())),
    );
    expect(imported.length).toBeGreaterThan(10);
    expect(imported.filter((name) => !exported.has(name))).toEqual([]);
  });

  test('type-check against the sources, each as a module of its own', () => {
    // A sample leaves out what its section set up before it: the zone id, the token.
    expect(samples.length).toBeGreaterThanOrEqual(6);
    expect(typeCheckSamples('readme', samples, { zoneId: 'string', apiToken: 'string' })).toEqual([]);
  });
});

test("the docs' TypeScript samples that start with an import type-check against the sources, each as a module of its own", () => {
  // The other blocks are fragments (a signature list, a program's excerpt, one line changed from the block before).
  const samples = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .flatMap((file) => fencedBlocks(`docs/${file}`, 'ts').map((block) => ({ ...block, line: `${file.replace('.md', '')}-${block.line}` })))
    .filter(({ code }) => code.startsWith('import '));
  // What a page's section set up before a sample: the zone id, the token, the migration its rules depend on.
  const given = { zoneId: 'string', apiToken: 'string', migration: "import('pulumi-zoneguard').WafMigration" };
  expect(samples.length).toBeGreaterThanOrEqual(8);
  expect(typeCheckSamples('docs', samples, given)).toEqual([]);
});

/** Type-checks each sample as an ES module of its own (a top-level `for await` needs one), with `given` declared where it does not declare it. */
function typeCheckSamples(name: string, samples: Array<{ line: number | string; code: string }>, given: Record<string, string>): string[] {
  const dir = path.join(root, '.zoneguard', `${name}-samples`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const files = samples.map(({ line, code }) => {
    const header = Object.entries(given)
      .filter(([declared]) => !new RegExp(`const ${declared}\\b`).test(code))
      .map(([declared, type]) => `declare const ${declared}: ${type};\n`);
    const file = path.join(dir, `${name}-line-${line}.mts`);
    fs.writeFileSync(file, `${header.join('')}export {};\n${code}`);
    return file;
  });
  const config = ts.parseJsonConfigFileContent(JSON.parse(read('tsconfig.json')), ts.sys, root);
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.includes(path.resolve(d.file.fileName)))
    .map((d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

describe('links between the documents', () => {
  const documents = ['README.md', 'BENCHMARKS.md', 'CHANGELOG.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith('.md'),
  );
  /** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -. */
  const anchor = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
  /** The headings' anchors, and those set by hand (`<a id="...">`). */
  const anchors = (file: string) =>
    new Set([
      ...read(file).split('\n').filter((l) => /^#+ /.test(l)).map((l) => anchor(l.replace(/^#+ /, ''))),
      ...[...read(file).matchAll(/<a (?:id|name)="([^"]+)"/g)].map((match) => match[1]!),
    ]);

  /** Files of a folder of the repository, node_modules and build output left out. */
  const filesUnder = (dir: string) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .map((f) => `${dir}/${f}`)
      .filter((f) => !/(^|\/)(node_modules|dist)\//.test(f) && /\.(ts|mts|mjs|js|sh|md|ya?ml)$/.test(f));

  test('every document a comment or a document cites as text exists, with the heading it names (the API reference links them)', () => {
    // Any mention counts, a `//` comment or a plain-text document path and heading as much as a doc comment or a link: a reader
    // follows each the same way.
    const files = [...documents, ...['src', 'bench', 'scripts', 'examples', 'test', '.ci'].flatMap(filesUnder)];
    const cited = files.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, index) =>
          [...line.matchAll(/(?<![\w/.-])((?:docs\/[\w-]+|README|BENCHMARKS|CHANGELOG)\.md)(?:#([\w-]+))?/g)].map((m) => ({
            where: `${file}:${index + 1}`,
            name: m[1]!,
            hash: m[2],
          })),
        ),
    );
    expect(cited.filter(({ where }) => where.startsWith('src/')).length).toBeGreaterThan(100);
    const broken = cited.filter(({ name, hash }) => !fs.existsSync(path.join(root, name)) || (hash !== undefined && !anchors(name).has(hash)));
    expect(broken.map(({ where, name, hash }) => `${where}: ${name}${hash === undefined ? '' : `#${hash}`}`)).toEqual([]);
  });

  test.each(documents)('%s: every relative link names a file that exists, and a heading of it', (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => {
        const [name, hash] = target.split('#');
        const linked = name ? path.normalize(path.join(path.dirname(file), name)) : file;
        if (!fs.existsSync(path.join(root, linked))) return true;
        return hash !== undefined && linked.endsWith('.md') && !anchors(linked).has(hash);
      });
    expect(broken).toEqual([]);
  });
});

test('the README is at most 2,500 words (as `wc -w` counts them): a user\'s path; design notes live in docs/', () => {
  expect(read('README.md').split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(2500);
});

test("the README's two commands name the Go version tools/pulumi-cli/go.mod needs, which scripts/preflight.sh checks", () => {
  const go = /^go (\S+)$/m.exec(read('tools/pulumi-cli/go.mod'))?.[1];
  const section = read('README.md').split('\n## Try it\n')[1]?.split('\n## ')[0] ?? '';
  expect(go).toBeDefined();
  expect(section).toContain(`Go ${go} or later the first time`);
});
