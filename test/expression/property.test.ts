import fc from 'fast-check';
import { checkExpression, FIELDS, type ExpressionCheck } from '../../src/expression';
import valid from './corpus/valid.json';

// Whatever the input, the checker returns a result (never throws), and every error points inside the text.
// Runs are bounded so the suite stays within a few seconds; fast-check prints the seed of any failure to replay it.

const corpus = valid.groups.flatMap((group) => group.expressions);

/** Checks the result's shape and positions; throws (failing the property) if anything is off. */
function assertWellFormed(text: string, result: ExpressionCheck): void {
  if (result.ok) {
    for (const field of result.fields) expect(FIELDS.has(field)).toBe(true);
    return;
  }
  expect(result.errors.length).toBeGreaterThan(0);
  // The stack-overflow backstop must never be what answers: the nesting limit should have caught it first.
  expect(result.errors.map((e) => e.message)).not.toContain('expression nests too deeply');
  const lines = text.split(/\r\n|\r|\n/);
  for (const error of result.errors) {
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.line).toBeGreaterThanOrEqual(1);
    expect(error.line).toBeLessThanOrEqual(lines.length);
    expect(error.column).toBeGreaterThanOrEqual(1);
    expect(error.column).toBeLessThanOrEqual((lines[error.line - 1] as string).length + 1);
  }
}

function checked(text: string): void {
  assertWellFormed(text, checkExpression(text));
}

// Pieces of the language, so that random input often gets past the lexer and reaches the parser and checker.
const FRAGMENTS = [
  ' ', '\n', '(', ')', '{', '}', '[', ']', '[*]', ',', '..', '/', '*', '"', '\\', '#', 'r"', 'r#"', '"#', '$', '$list',
  'and', 'or', 'xor', 'not', '&&', '||', '^^', '!', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', '==', '!=', '<', '<=', '>', '>=',
  'contains', 'matches', '~', 'in', 'wildcard', 'strict', 'true', 'false', '0', '-1', '443', '99999999999999999999',
  '1.2.3.4', '10.0.0.0/8', '::1', '2001:db8::/32', '300.1.1.1', '"x"', '"\\x2e"', '"\\d"', 'r#"a"b"#', 'ssl', 'ip.src',
  'http.host', 'http.request.headers', 'http.request.headers.names', 'cf.threat_score', 'lower(', 'any(', 'len(',
  'concat(', 'regex_replace(', 'cidr(', 'has_value(', 'http.hots',
];

const fragment = fc.constantFrom(...FRAGMENTS);

/** One edit of a text: delete, insert, duplicate or replace a slice. */
const edit = fc.record({
  kind: fc.constantFrom('delete', 'insert', 'duplicate', 'replace'),
  at: fc.nat(),
  length: fc.integer({ min: 1, max: 12 }),
  piece: fc.oneof(fragment, fc.string({ maxLength: 4 })),
});

function applyEdits(text: string, edits: readonly { kind: string; at: number; length: number; piece: string }[]): string {
  let out = text;
  for (const { kind, at, length, piece } of edits) {
    const i = out.length === 0 ? 0 : at % (out.length + 1);
    const j = Math.min(out.length, i + length);
    if (kind === 'delete') out = out.slice(0, i) + out.slice(j);
    else if (kind === 'insert') out = out.slice(0, i) + piece + out.slice(i);
    else if (kind === 'duplicate') out = out.slice(0, j) + out.slice(i, j) + out.slice(j);
    else out = out.slice(0, i) + piece + out.slice(j);
  }
  return out;
}

const RUNS = { numRuns: 400 };

describe('never throws', () => {
  test('on random strings of any characters', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 120 }), checked), RUNS);
  });

  test('on random sequences of language fragments', () => {
    fc.assert(fc.property(fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')), checked), RUNS);
  });

  test('on documented expressions after random edits', () => {
    fc.assert(
      fc.property(fc.constantFrom(...corpus), fc.array(edit, { minLength: 1, maxLength: 5 }), (expression, edits) => {
        checked(applyEdits(expression, edits));
      }),
      { numRuns: 1500 },
    );
  });

  test('on deeply nested input', () => {
    const shapes = [
      (n: number) => '('.repeat(n) + 'ssl',
      (n: number) => 'not '.repeat(n) + 'ssl',
      (n: number) => '!('.repeat(n) + 'ssl' + ')'.repeat(n),
      (n: number) => '{'.repeat(n),
      (n: number) => `http.request.body.multipart.names${'[0]'.repeat(n)} eq "a"`,
      (n: number) => `any(${'lower('.repeat(n)}http.request.headers.names[*]${')'.repeat(n)}[*] eq "a")`,
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(...shapes), (depth, shape) => {
        checked(shape(depth).slice(0, 16384));
      }),
      { numRuns: 80 },
    );
  });
});

describe('metamorphic', () => {
  test('a documented expression stays valid when grouped or doubly negated', () => {
    fc.assert(
      fc.property(fc.constantFrom(...corpus), fc.constantFrom((e: string) => `(${e})`, (e: string) => `not not (${e})`, (e: string) => `ssl or (${e})`), (expression, wrap) => {
        expect(checkExpression(wrap(expression)).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
