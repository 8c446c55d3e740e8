import {
  EmbeddedActionsParser,
  EOF,
  tokenMatcher,
  type IParserErrorMessageProvider,
  type IToken,
  type ParserMethod,
  type TokenType,
} from 'chevrotain';
import type { ComparisonOperator, ExpressionNode, IntNode, IpNode, ListNode, LogicalOperator, RangeNode, SetNode, Span, StringNode, ValueLiteral } from './ast';
import * as T from './lexer';
import type { ExpressionError } from './errors';
import { FUNCTIONS } from './functions';
import { describeToken, positionAfter } from './errors';

// Precedence, loosest first: or, xor, and, not, comparison. `not` binds tighter than `and` but looser than a
// comparison, so `not ip.src in {...}` negates the whole comparison (the documentation's own examples rely on it).

function spanOf(token: IToken): Span {
  return { line: token.startLine ?? 1, column: token.startColumn ?? 1, offset: token.startOffset, endOffset: token.endOffset! + 1 };
}

function spanFrom(start: Span, end: Span): Span {
  return { line: start.line, column: start.column, offset: start.offset, endOffset: end.endOffset };
}

const COMPARISON_BY_TOKEN = new Map<TokenType, ComparisonOperator>([
  [T.Eq, 'eq'],
  [T.Ne, 'ne'],
  [T.Lt, 'lt'],
  [T.Le, 'le'],
  [T.Gt, 'gt'],
  [T.Ge, 'ge'],
  [T.Contains, 'contains'],
  [T.Matches, 'matches'],
  [T.Wildcard, 'wildcard'],
]);

// What each rule is looking for when it fails, in the words of an error message.
const EXPECTED_BY_RULE: Record<string, string> = {
  expression: 'an expression',
  orExpression: 'an expression',
  xorExpression: 'an expression',
  andExpression: 'an expression',
  unary: 'an expression',
  comparison: 'an expression',
  operand: 'an expression',
  index: 'an index',
  comparisonTail: 'an operator',
  rightValue: 'a value',
  inValues: 'a set {...} or a list $name',
  set: 'a value or "}"',
  setItem: 'a value or "}"',
  literal: 'a value',
  ip: 'an IP address',
  call: 'an argument or ")"',
};

/** Turns chevrotain's failures into the "expected X" part of our message; the rest is added from the token. */
const expectedProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected, ruleName }) => {
    // A closing delimiter is not the only thing that may come next: say what else would do.
    if (ruleName === 'set' && expected === T.RBrace) return 'a value or "}"';
    if (ruleName === 'call' && expected === T.RParen) return '"," or ")"';
    return expected.LABEL ?? expected.name;
  },
  buildNotAllInputParsedMessage: () => 'an operator or end of input',
  buildNoViableAltMessage: ({ ruleName }) => EXPECTED_BY_RULE[ruleName] ?? 'an expression',
  buildEarlyExitMessage: ({ ruleName }) => EXPECTED_BY_RULE[ruleName] ?? 'an expression',
};

class RulesParser extends EmbeddedActionsParser {
  constructor() {
    super(T.ALL_TOKENS, { recoveryEnabled: false, maxLookahead: 2, errorMessageProvider: expectedProvider });
    this.performSelfAnalysis();
  }

  public expression = this.RULE('expression', (): ExpressionNode => this.SUBRULE(this.orExpression));

  private orExpression = this.logicalLevel('orExpression', T.Or, 'or', () => this.xorExpression);
  private xorExpression = this.logicalLevel('xorExpression', T.Xor, 'xor', () => this.andExpression);
  private andExpression = this.logicalLevel('andExpression', T.And, 'and', () => this.unary);

  private unary = this.RULE('unary', (): ExpressionNode =>
    this.OR([
      {
        ALT: () => {
          const op = this.CONSUME(T.Not);
          const operand = this.SUBRULE(this.unary);
          return this.ACTION(() => {
            const start = spanOf(op);
            return { kind: 'not', image: op.image, operand, span: spanFrom(start, operand.span) } as ExpressionNode;
          });
        },
      },
      { ALT: () => this.SUBRULE(this.comparison) },
    ]),
  );

  private comparison = this.RULE('comparison', (): ExpressionNode => {
    const left = this.SUBRULE(this.operand);
    let result = left;
    this.OPTION(() => {
      result = this.SUBRULE(this.comparisonTail, { ARGS: [left] });
    });
    return result;
  });

  private comparisonTail = this.RULE('comparisonTail', (left: ExpressionNode): ExpressionNode =>
    this.OR([
      {
        ALT: () => {
          const op = this.CONSUME(T.In);
          const right = this.SUBRULE(this.inValues);
          return this.ACTION(() => this.compare('in', op.image, spanOf(op), left, right));
        },
      },
      {
        ALT: () => {
          const strict = this.CONSUME(T.Strict);
          const wildcard = this.CONSUME2(T.Wildcard);
          const right = this.SUBRULE2(this.rightValue);
          return this.ACTION(() =>
            this.compare('strict wildcard', 'strict wildcard', spanFrom(spanOf(strict), spanOf(wildcard)), left, right),
          );
        },
      },
      {
        ALT: () => {
          const op = this.OR3([
            { ALT: () => this.CONSUME(T.Eq) },
            { ALT: () => this.CONSUME(T.Ne) },
            { ALT: () => this.CONSUME(T.Lt) },
            { ALT: () => this.CONSUME(T.Le) },
            { ALT: () => this.CONSUME(T.Gt) },
            { ALT: () => this.CONSUME(T.Ge) },
            { ALT: () => this.CONSUME(T.Contains) },
            { ALT: () => this.CONSUME(T.Matches) },
            { ALT: () => this.CONSUME(T.Wildcard) },
          ]);
          const right = this.SUBRULE3(this.rightValue);
          return this.ACTION(() =>
            this.compare(COMPARISON_BY_TOKEN.get(op.tokenType) ?? 'eq', op.image, spanOf(op), left, right),
          );
        },
      },
    ]),
  );

  private inValues = this.RULE('inValues', (): SetNode | ListNode =>
    this.OR([{ ALT: () => this.SUBRULE(this.set) }, { ALT: () => this.SUBRULE(this.list) }]),
  );

  /** The value after a comparison operator: a literal only, never a field (the engine compares fields to constants). */
  private rightValue = this.RULE('rightValue', (): ValueLiteral => this.SUBRULE(this.literal));

  private operand = this.RULE('operand', (): ExpressionNode => {
    let node: ExpressionNode = this.OR([
      {
        ALT: () => {
          const open = this.CONSUME(T.LParen);
          const inner = this.SUBRULE(this.orExpression);
          const close = this.CONSUME(T.RParen);
          return this.ACTION(
            () => ({ kind: 'group', expression: inner, span: spanFrom(spanOf(open), spanOf(close)) }) as ExpressionNode,
          );
        },
      },
      { GATE: () => this.LA(2).tokenType === T.LParen, ALT: () => this.SUBRULE(this.call) },
      {
        ALT: () => {
          const name = this.CONSUME(T.Identifier);
          return this.ACTION(() => ({ kind: 'field', name: name.image, span: spanOf(name) }) as ExpressionNode);
        },
      },
      { ALT: () => this.SUBRULE(this.literal) },
    ]);
    this.MANY(() => {
      node = this.SUBRULE(this.index, { ARGS: [node] });
    });
    return node;
  });

  private index = this.RULE('index', (target: ExpressionNode): ExpressionNode => {
    this.CONSUME(T.LBracket);
    const index = this.OR([
      { ALT: () => this.SUBRULE(this.stringLiteral) },
      { ALT: () => this.SUBRULE(this.intLiteral) },
      {
        ALT: () => {
          const star = this.CONSUME(T.Star);
          return this.ACTION(() => ({ kind: 'all', span: spanOf(star) }) as const);
        },
      },
    ]);
    const close = this.CONSUME(T.RBracket);
    return this.ACTION(() => ({ kind: 'index', target, index, span: spanFrom(target.span, spanOf(close)) }) as ExpressionNode);
  });

  private call = this.RULE('call', (): ExpressionNode => {
    const name = this.CONSUME(T.Identifier);
    this.CONSUME(T.LParen);
    const args: ExpressionNode[] = [];
    this.OPTION(() => {
      args.push(this.SUBRULE(this.orExpression));
      this.MANY(() => {
        this.CONSUME(T.Comma);
        args.push(this.SUBRULE2(this.orExpression));
      });
    });
    const close = this.CONSUME(T.RParen);
    return this.ACTION(() => {
      const nameSpan = spanOf(name);
      return { kind: 'call', name: name.image, args, nameSpan, span: spanFrom(nameSpan, spanOf(close)) } as ExpressionNode;
    });
  });

  private set = this.RULE('set', (): SetNode => {
    const open = this.CONSUME(T.LBrace);
    const items: (ValueLiteral | RangeNode)[] = [];
    this.MANY(() => {
      items.push(this.SUBRULE(this.setItem));
    });
    const close = this.CONSUME(T.RBrace);
    return this.ACTION(() => ({ kind: 'set', items, span: spanFrom(spanOf(open), spanOf(close)) }));
  });

  private setItem = this.RULE('setItem', (): ValueLiteral | RangeNode => {
    const from = this.SUBRULE(this.literal);
    let item: ValueLiteral | RangeNode = from;
    this.OPTION(() => {
      this.CONSUME(T.DotDot);
      const to = this.SUBRULE2(this.literal);
      item = this.ACTION(() => ({ kind: 'range', from, to, span: spanFrom(from.span, to.span) }) as RangeNode);
    });
    return item;
  });

  private list = this.RULE('list', (): ListNode => {
    const token = this.CONSUME(T.ListName);
    return this.ACTION(() => ({ kind: 'list', name: token.image.slice(1), span: spanOf(token) }));
  });

  private literal = this.RULE('literal', (): ValueLiteral =>
    this.OR([
      { ALT: () => this.SUBRULE(this.stringLiteral) },
      { ALT: () => this.SUBRULE(this.intLiteral) },
      { ALT: () => this.SUBRULE(this.ip) },
      {
        ALT: () => {
          const t = this.OR2([{ ALT: () => this.CONSUME(T.True) }, { ALT: () => this.CONSUME(T.False) }]);
          return this.ACTION(() => ({ kind: 'boolean', value: t.tokenType === T.True, span: spanOf(t) }) as ValueLiteral);
        },
      },
    ]),
  );

  private stringLiteral = this.RULE('stringLiteral', (): StringNode => {
    const t = this.OR([
      { ALT: () => this.CONSUME(T.QuotedString) },
      { ALT: () => this.CONSUME(T.RawString) },
      { ALT: () => this.CONSUME(T.UnterminatedString) },
    ]);
    return this.ACTION(() => stringNode(t));
  });

  private intLiteral = this.RULE('intLiteral', (): IntNode => {
    const t = this.CONSUME(T.Int);
    return this.ACTION(() => intNode(t));
  });

  private ip = this.RULE('ip', (): IpNode => {
    const address = this.OR([{ ALT: () => this.CONSUME(T.IPv4) }, { ALT: () => this.CONSUME(T.IPv6) }]);
    let prefix: IntNode | undefined;
    let end = address;
    this.OPTION(() => {
      this.CONSUME(T.Slash);
      end = this.CONSUME(T.Int);
      prefix = this.ACTION(() => intNode(end));
    });
    return this.ACTION(() => {
      const span = spanFrom(spanOf(address), spanOf(end));
      const node: IpNode = { kind: 'ip', address: address.image, image: prefix ? `${address.image}/${prefix.image}` : address.image, span };
      return prefix ? { ...node, prefix } : node;
    });
  });

  /**
   * One level of the logical operators, left-associative: `next (operator next)*`. `next` is the level that binds
   * tighter, read when the rule runs (it is declared below this one).
   */
  private logicalLevel(name: string, token: TokenType, operator: LogicalOperator, next: () => ParserMethod<[], ExpressionNode>) {
    return this.RULE(name, (): ExpressionNode => {
      let left = this.SUBRULE(next());
      this.MANY(() => {
        const op = this.CONSUME(token);
        const right = this.SUBRULE2(next());
        left = this.ACTION(() => this.logical(operator, op, left, right));
      });
      return left;
    });
  }

  private logical(operator: LogicalOperator, op: IToken, left: ExpressionNode, right: ExpressionNode): ExpressionNode {
    return { kind: 'logical', operator, image: op.image, left, right, span: spanFrom(left.span, right.span), operatorSpan: spanOf(op) };
  }

  private compare(
    operator: ComparisonOperator,
    image: string,
    operatorSpan: Span,
    left: ExpressionNode,
    right: ValueLiteral | SetNode | ListNode,
  ): ExpressionNode {
    return { kind: 'comparison', operator, image, left, right, span: spanFrom(left.span, right.span), operatorSpan };
  }
}

function stringNode(t: IToken): StringNode {
  const span = spanOf(t);
  if (t.tokenType === T.RawString) {
    const { hashes, terminated } = t.payload as T.RawStringPayload;
    const raw = t.image.slice(2 + hashes, terminated ? t.image.length - 1 - hashes : undefined);
    return { kind: 'string', image: t.image, raw, rawSyntax: true, hashes, terminated, span };
  }
  const terminated = t.tokenType === T.QuotedString;
  const raw = t.image.slice(1, terminated ? -1 : undefined);
  return { kind: 'string', image: t.image, raw, rawSyntax: false, hashes: 0, terminated, span };
}

function intNode(t: IToken): IntNode {
  return { kind: 'int', image: t.image, value: Number(t.image), span: spanOf(t) };
}

let parser: RulesParser | undefined;

/** Nesting deeper than this is refused before parsing: recursion depth is what a hostile input could exhaust. */
export const MAX_NESTING = 64;

export type ParseResult = { ok: true; ast: ExpressionNode } | { ok: false; errors: ExpressionError[] };

/** Lexes and parses `text` into an AST; no type checking. Reports the first syntax error only. */
export function parse(text: string): ParseResult {
  const lexed = T.getLexer().tokenize(text);
  const lexError = lexed.errors[0];
  if (lexError) {
    const code = text.codePointAt(lexError.offset) ?? 0;
    const ch = String.fromCodePoint(code);
    // Invisible or look-alike characters (a no-break space pasted from a web page) are named by code point too.
    const codePoint = code > 0x20 && code < 0x7f ? '' : ` (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
    return {
      ok: false,
      errors: [
        {
          line: lexError.line ?? 1,
          column: lexError.column ?? 1,
          message: `unexpected character ${JSON.stringify(ch)}${codePoint}`,
        },
      ],
    };
  }
  const tokens = lexed.tokens;
  const tooDeep = findExcessiveNesting(tokens);
  if (tooDeep) {
    return {
      ok: false,
      errors: [{ line: tooDeep.startLine ?? 1, column: tooDeep.startColumn ?? 1, message: `expression nests deeper than ${MAX_NESTING} levels` }],
    };
  }
  parser ??= new RulesParser();
  parser.input = tokens;
  const ast = parser.expression();
  const failure = parser.errors[0];
  if (failure) {
    const actual = failure.token;
    const atEnd = tokenMatcher(actual, EOF) || Number.isNaN(actual.startOffset);
    const previous = previousToken(tokens, atEnd ? text.length : actual.startOffset);
    const where = atEnd ? positionAfter(text) : { line: actual.startLine ?? 1, column: actual.startColumn ?? 1 };
    const after = previous ? ` after ${describeToken(previous)}` : '';
    return {
      ok: false,
      errors: [{ ...where, message: `expected ${failure.message}${after}, found ${atEnd ? 'end of input' : describeToken(actual)}${keywordHint(actual)}` }],
    };
  }
  return { ok: true, ast };
}

function previousToken(tokens: IToken[], offset: number): IToken | undefined {
  let found: IToken | undefined;
  for (const t of tokens) {
    if (t.startOffset >= offset) break;
    found = t;
  }
  return found;
}

function keywordHint(token: IToken): string {
  if (token.tokenType !== T.Identifier) return '';
  if (FUNCTIONS.has(token.image)) return ` (${token.image} is a function: write ${token.image}(...))`;
  const lower = token.image.toLowerCase();
  return lower !== token.image && T.KEYWORDS.has(lower) ? ' (operators are written in lowercase)' : '';
}

// Each parenthesis, bracket, brace and each `not` in a chain such as `not (not (...))` adds a level of recursion
// to the parser and the checker, and so does each index of a chain such as `x[0][0][0]`. A run of `not`s ends at
// the first other token of its level; its count stays on the stack while the parenthesis it opens is open.
function findExcessiveNesting(tokens: IToken[]): IToken | undefined {
  const runs: number[] = [];
  let carried = 0;
  let run = 0;
  let indexes = 0;
  let previous: TokenType | undefined;
  for (const t of tokens) {
    const type = t.tokenType;
    if (type === T.Not) run++;
    else if (type === T.LParen || type === T.LBracket || type === T.LBrace) {
      if (type === T.LBracket) indexes = previous === T.RBracket ? indexes + 1 : 0;
      runs.push(run);
      carried += run;
      run = 0;
    } else if (type === T.RParen || type === T.RBracket || type === T.RBrace) {
      carried -= runs.pop() ?? 0;
      run = 0;
    } else run = 0;
    if (previous === T.RBracket && type !== T.LBracket) indexes = 0;
    if (runs.length + carried + run + indexes > MAX_NESTING) return t;
    previous = type;
  }
  return undefined;
}
