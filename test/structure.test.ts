import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { MANAGED_RULESET_ID, OWASP_RULESET_ID } from '../src/schemas/service';
import { RESOURCE_KINDS } from '../src/kinds';

// The layering docs/CONTRACTS.md describes, held by a test: the resource classes, the CLI and the package entry
// reach the providers only through their public entry (src/providers/index.ts), the insights not at all, and a fact of the service such as
// a managed ruleset id is written once under src/, no source file under src/ is longer than 500 lines, no function
// under src/ longer than 80, and src/providers casts only at its engine boundary (kit/context.ts) and where listed.

const src = path.join(__dirname, '..', 'src');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/from\s+'([^']+)'/g)].map((match) => match[1] ?? '');
}

/**
 * The casts of src/providers outside the engine boundary (kit/context.ts, where the engine's records become a kind's
 * inputs and outputs): none is of a provider input. Each entry allows one cast, its text as written (spaces folded).
 */
const ALLOWED_CASTS: ReadonlyArray<{ file: string; cast: string; why: string }> = [
  {
    file: 'index.ts',
    cast: 'require(file) as Record<string, Implementation | undefined>',
    why: "require's answer (any) as the handlers module it loads, not a record of the engine",
  },
  { file: 'kit/check.ts', cast: 'mask as never', why: "zod's omit over a generic schema: the mask's keys are the shape's, checked just above" },
  { file: 'kit/check.ts', cast: 'schema.omit(mask as never) as z.ZodObject', why: "zod's omit over a generic schema answers no ZodObject type of its own" },
  { file: 'kit/diff.ts', cast: '{} as Pick<T, K>', why: "pickFields' empty result, each listed field of a typed record set into it below" },
];

/** Every `x as T` and `<T>x` under `dir` but `as const`: `file:line` (relative to `dir`) and the cast's text. */
function castsUnder(dir: string): Array<{ file: string; line: number; cast: string }> {
  const casts: Array<{ file: string; line: number; cast: string }> = [];
  for (const full of filesUnder(dir)) {
    const file = path.relative(dir, full).split(path.sep).join('/');
    const source = ts.createSourceFile(full, fs.readFileSync(full, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !ts.isConstTypeReference(node.type)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        casts.push({ file, line, cast: node.getText(source).replace(/\s+/g, ' ') });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return casts;
}

const outsideProviders = [...filesUnder(path.join(src, 'resources')), ...filesUnder(path.join(src, 'cli')), path.join(src, 'index.ts')];

describe('structure', () => {
  test.each(outsideProviders.map((file) => [path.relative(src, file), file]))(
    '%s imports the providers only through their public entry',
    (_name, file) => {
      const internal = importsOf(file).filter((specifier) => /(^|\/)providers\/.+/.test(specifier));
      expect(internal).toEqual([]);
    },
  );

  test.each(filesUnder(path.join(src, 'insights')).map((file) => [path.relative(src, file), file]))(
    '%s imports nothing of the providers (insights read over the client and the rulesets model: docs/CONTRACTS.md)',
    (_name, file) => {
      expect(importsOf(file).filter((specifier) => /(^|\/)providers(\/|$)/.test(specifier))).toEqual([]);
    },
  );

  // The last file of a kind docs/CONTRACTS.md lists (the files a new kind touches): its provider's own tests, named as
  // its provider's file is (`FirewallRule`: test/providers/firewall-rule.test.ts).
  test.each(RESOURCE_KINDS.map((kind) => [kind]))('%s has its provider tests in test/providers/<kind-file>.test.ts', (kind) => {
    const file = `${kind.replace(/(?<=.)[A-Z]/g, (letter) => `-${letter}`).toLowerCase()}.test.ts`;
    expect(fs.readdirSync(path.join(__dirname, 'providers'))).toContain(file);
  });

  test.each([
    ['MANAGED_RULESET_ID', MANAGED_RULESET_ID],
    ['OWASP_RULESET_ID', OWASP_RULESET_ID],
  ])('%s is written in one file under src/', (_name, id) => {
    const holders = filesUnder(src)
      .filter((file) => fs.readFileSync(file, 'utf8').includes(id))
      .map((file) => path.relative(src, file));
    expect(holders).toEqual([path.join('schemas', 'service.ts')]);
  });

  test('no source file under src/ is longer than 500 lines', () => {
    const lines = (file: string) => fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length;
    const long = filesUnder(src)
      .filter((file) => lines(file) > 500)
      .map((file) => `${path.relative(src, file)} (${lines(file)} lines)`);
    expect(long).toEqual([]);
  });

  test('no cast under src/providers but at the engine boundary (kit/context.ts) and the listed casts, none of a provider input', () => {
    const allowed = [...ALLOWED_CASTS];
    const unlisted = castsUnder(path.join(src, 'providers'))
      .filter(({ file }) => file !== 'kit/context.ts')
      .filter(({ file, cast }) => {
        const entry = allowed.findIndex((allow) => allow.file === file && allow.cast === cast);
        if (entry >= 0) allowed.splice(entry, 1);
        return entry < 0;
      })
      .map(({ file, line, cast }) => `src/providers/${file}:${line} ${cast}`);
    expect(unlisted).toEqual([]);
    // A listed cast no longer there leaves the list: it holds what the code has.
    expect(allowed.map(({ file, cast }) => `src/providers/${file} ${cast}`)).toEqual([]);
  });

  test('no function under src/ is longer than 80 lines (every function-like node with a body, by the TypeScript AST)', () => {
    const long: string[] = [];
    for (const file of filesUnder(src)) {
      const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          if (last - first + 1 > 80) long.push(`${path.relative(src, file)}:${first + 1} (${last - first + 1} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });
});
