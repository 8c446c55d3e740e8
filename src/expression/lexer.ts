import { createToken, Lexer, type CustomPatternMatcherReturn, type TokenType } from 'chevrotain';

// Token patterns of the rules language. Only the lexer uses regular expressions: the structure of an expression
// is recognised by the chevrotain parser in parser.ts, and literals are validated by the checker so that a
// malformed address or escape gets a message of its own instead of "unexpected character".

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n\f\v]+/, group: Lexer.SKIPPED, line_breaks: true });

export const Identifier = createToken({
  name: 'Identifier',
  label: 'a field or function name',
  // Dotted names; later segments may start with a digit (cf.response.1xxx_code).
  pattern: /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/,
});

/** What the raw-string matcher found: how many `#` delimit it and whether the closing delimiter is there. */
export interface RawStringPayload {
  readonly hashes: number;
  readonly terminated: boolean;
}

// r"..." or r#"..."# (up to 255 #): the closing delimiter must repeat the opening #s, which a regular
// expression can only say with a back-reference, so this is a small matcher function instead.
function matchRawString(text: string, offset: number): CustomPatternMatcherReturn | null {
  if (text.charCodeAt(offset) !== 114 /* r */) return null;
  let i = offset + 1;
  while (text.charCodeAt(i) === 35 /* # */) i++;
  const hashes = i - offset - 1;
  if (text.charCodeAt(i) !== 34 /* " */) return null;
  const closing = '"' + '#'.repeat(hashes);
  const end = text.indexOf(closing, i + 1);
  const terminated = end >= 0;
  const image = terminated ? text.slice(offset, end + closing.length) : text.slice(offset);
  const match = [image] as CustomPatternMatcherReturn;
  match.payload = { hashes, terminated } satisfies RawStringPayload;
  return match;
}

export const RawString = createToken({
  name: 'RawString',
  label: 'a raw string',
  pattern: { exec: matchRawString },
  line_breaks: true,
  start_chars_hint: ['r'],
});
export const QuotedString = createToken({
  name: 'QuotedString',
  label: 'a string',
  pattern: /"(?:[^"\\]|\\[\s\S])*"/,
  line_breaks: true,
});
/** A `"` with no closing quote: swallows the rest of the input so the checker can name the problem. */
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  label: 'a string',
  pattern: /"[\s\S]*/,
  line_breaks: true,
});

// IPv6 is tried first: at least one ':' tells it apart from an identifier or a number. Loose on purpose; the
// checker validates groups and lengths.
export const IPv6 = createToken({
  name: 'IPv6',
  label: 'an IP address',
  pattern: /(?:[0-9a-fA-F]*:)+(?:[0-9]+(?:\.[0-9]+){3}|[0-9a-fA-F]+)?/,
});
export const IPv4 = createToken({ name: 'IPv4', label: 'an IP address', pattern: /[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/ });
export const Int = createToken({ name: 'Int', label: 'an integer', pattern: /-?[0-9]+/ });
export const ListName = createToken({ name: 'ListName', label: 'a list', pattern: /\$[A-Za-z0-9_.]*/ });

function keyword(name: string, pattern: RegExp, label: string): TokenType {
  return createToken({ name, pattern, label, longer_alt: Identifier });
}

// English and C-like notations are one token each: they mean the same and the AST keeps the spelling.
export const And = keyword('And', /and|&&/, '"and"');
export const Or = keyword('Or', /or|\|\|/, '"or"');
export const Xor = keyword('Xor', /xor|\^\^/, '"xor"');
export const Ne = keyword('Ne', /ne|!=/, '"ne"');
export const Not = keyword('Not', /not|!/, '"not"');
export const Eq = keyword('Eq', /eq|==/, '"eq"');
export const Le = keyword('Le', /le|<=/, '"le"');
export const Lt = keyword('Lt', /lt|</, '"lt"');
export const Ge = keyword('Ge', /ge|>=/, '"ge"');
export const Gt = keyword('Gt', /gt|>/, '"gt"');
export const Contains = keyword('Contains', /contains/, '"contains"');
export const Matches = keyword('Matches', /matches|~/, '"matches"');
export const Wildcard = keyword('Wildcard', /wildcard/, '"wildcard"');
export const Strict = keyword('Strict', /strict/, '"strict"');
export const In = keyword('In', /in/, '"in"');
export const True = keyword('True', /true/, '"true"');
export const False = keyword('False', /false/, '"false"');

export const LParen = createToken({ name: 'LParen', pattern: /\(/, label: '"("' });
export const RParen = createToken({ name: 'RParen', pattern: /\)/, label: '")"' });
export const LBrace = createToken({ name: 'LBrace', pattern: /\{/, label: '"{"' });
export const RBrace = createToken({ name: 'RBrace', pattern: /\}/, label: '"}"' });
export const LBracket = createToken({ name: 'LBracket', pattern: /\[/, label: '"["' });
export const RBracket = createToken({ name: 'RBracket', pattern: /\]/, label: '"]"' });
export const Comma = createToken({ name: 'Comma', pattern: /,/, label: '","' });
export const DotDot = createToken({ name: 'DotDot', pattern: /\.\./, label: '".."' });
export const Slash = createToken({ name: 'Slash', pattern: /\//, label: '"/"' });
export const Star = createToken({ name: 'Star', pattern: /\*/, label: '"*"' });

/** Lexing order: the first pattern that matches wins, so longer and more specific ones come first. */
export const ALL_TOKENS: TokenType[] = [
  WhiteSpace,
  RawString,
  QuotedString,
  UnterminatedString,
  IPv6,
  IPv4,
  Int,
  ListName,
  And,
  Or,
  Xor,
  Ne,
  Not,
  Eq,
  Le,
  Lt,
  Ge,
  Gt,
  Contains,
  Matches,
  Wildcard,
  Strict,
  In,
  True,
  False,
  Identifier,
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Comma,
  DotDot,
  Slash,
  Star,
];

/** English operator words, for the hint that operators must be written in lowercase. */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'and', 'or', 'xor', 'not', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains', 'matches', 'wildcard', 'strict', 'in',
]);

let lexer: Lexer | undefined;

/** The lexer, built once (building it analyses every pattern). */
export function getLexer(): Lexer {
  lexer ??= new Lexer(ALL_TOKENS, { positionTracking: 'full', ensureOptimizations: false });
  return lexer;
}
