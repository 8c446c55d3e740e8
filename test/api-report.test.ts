import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

// The public API, held by a reviewed list: every entry point of package.json `exports`, its sorted export names
// (values, and `type` before the names that exist only as types), compared with test/api-report/<entry>.txt. A name
// added, removed or turned from a value into a type is a diff in that file, reviewed with the change; and no name
// has two paths (issue 25: one home per name). To accept a change: UPDATE_API_REPORT=1 jest test/api-report.test.ts

const root = path.resolve(__dirname, '..');
const reportDir = path.join(__dirname, 'api-report');
const update = process.env['UPDATE_API_REPORT'] === '1';
const updateHint = 'if the change is intended, run `UPDATE_API_REPORT=1 jest test/api-report.test.ts` and commit test/api-report/, with a CHANGELOG entry for a removal';

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, string> };

/** Each entry point of the package: its subpath, the report file's name, and the source it is built from. */
const entries = Object.entries(pkg.exports)
  .filter(([subpath]) => subpath !== './package.json')
  .map(([subpath, target]) => ({
    subpath,
    report: subpath === '.' ? 'index' : subpath.slice(2),
    source: path.join(root, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
  }));

/** The names each entry point exports at run time (loading its source). */
function runtimeValues(source: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return Object.keys(require(source) as object).filter((name) => name !== '__esModule');
}

/**
 * Every exported name of each entry point as the compiler sees it (types included), marked `type X` when the entry
 * point has no value of that name at run time: a class exported with `export type` is a type only.
 */
function exportedNames(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  const program = ts.createProgram(
    entries.map((entry) => entry.source),
    { ...config!.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry.source)!)!;
      const values = new Set(runtimeValues(entry.source));
      const names = checker.getExportsOfModule(module).map(({ name }) => (values.has(name) ? name : `type ${name}`));
      return [entry.report, names.sort((a, b) => bare(a).localeCompare(bare(b)))];
    }),
  );
}

const bare = (line: string) => line.replace(/^type /, '');

/** A readable diff of two sorted lists: the lines only one has, each marked. */
function diff(expected: string[], actual: string[]): string {
  const was = new Set(expected);
  const now = new Set(actual);
  return [...expected.filter((line) => !now.has(line)).map((line) => `- ${line}`), ...actual.filter((line) => !was.has(line)).map((line) => `+ ${line}`)].join('\n');
}

const names = exportedNames();

describe('the public API', () => {
  test.each(entries.map((entry) => [entry.subpath, entry.report]))('%s exports the names of test/api-report/%s.txt', (_subpath, report) => {
    const actual = names.get(report)!;
    const file = path.join(reportDir, `${report}.txt`);
    if (update) {
      fs.mkdirSync(reportDir, { recursive: true });
      fs.writeFileSync(file, `${actual.join('\n')}\n`);
    }
    const expected = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
    const changes = diff(expected, actual);
    if (changes !== '') throw new Error(`${report}.txt differs from the entry point's exports (- listed only, + exported only):\n${changes}\n${updateHint}`);
  });

  test.each(entries.map((entry) => [entry.subpath, entry.source, entry.report]))('%s: every value it exports at run time is in its report', (_subpath, source, report) => {
    const reported = new Set(names.get(report));
    expect(runtimeValues(source).filter((name) => !reported.has(name))).toEqual([]);
  });

  test('no name has two paths', () => {
    const paths = new Map<string, string[]>();
    for (const entry of entries) for (const line of names.get(entry.report)!) paths.set(bare(line), [...(paths.get(bare(line)) ?? []), entry.subpath]);
    const twice = [...paths].filter(([, at]) => at.length > 1).map(([name, at]) => `${name}: ${at.join(', ')}`);
    expect(twice).toEqual([]);
  });

  test('has at most 250 names', () => {
    const total = [...names.values()].reduce((sum, list) => sum + list.length, 0);
    expect(total).toBeLessThanOrEqual(250);
  });
});
