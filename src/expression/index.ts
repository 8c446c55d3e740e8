// The rules-language checker: parses a match expression (filters, CSP policies, WAF rules) and type-checks it
// against the documented fields and functions, so a mistake is reported with its line and column before any API
// call. Pure: no I/O, no global state beyond the parser and lexer built once on first use.
import '../node-version'; // first: an unsupported Node fails here, saying what to install
import type { ExpressionNode } from './ast';
import { checkAst } from './checker';
import { positionAt, type ExpressionError } from './errors';
import { parse } from './parser';
import { FIREWALL_LIMITS } from '../schemas/filters';

export type { ExpressionError } from './errors';
export { formatExpressionError } from './errors';
export type { ExpressionNode } from './ast';
export { FIELDS } from './fields';
export { FUNCTIONS } from './functions';
export type { ValueType } from './types';

/** Outcome of {@link checkExpression}: the fields an expression reads, or every problem found. */
export type ExpressionCheck = { ok: true; fields: string[] } | { ok: false; errors: ExpressionError[] };

/** Outcome of {@link parseExpression}: the syntax tree, or the first syntax error. */
export type ExpressionParse = { ok: true; ast: ExpressionNode } | { ok: false; errors: ExpressionError[] };

/** Longest expression the service accepts on a filter, in characters (the filters schema's limit). */
export const EXPRESSION_MAX_LENGTH: number = FIREWALL_LIMITS.expressionMax;

/** Parses `text` without type checking; the first syntax error stops it. */
export function parseExpression(text: string): ExpressionParse {
  if (text.length > EXPRESSION_MAX_LENGTH) return { ok: false, errors: [tooLong(text)] };
  return parse(text);
}

/** Parses and type-checks a rules-language expression; never throws on any input string. */
export function checkExpression(text: string): ExpressionCheck {
  try {
    const parsed = parseExpression(text);
    if (!parsed.ok) return parsed;
    const { errors, fields } = checkAst(parsed.ast, text);
    return errors.length > 0 ? { ok: false, errors } : { ok: true, fields };
  } catch (error) {
    // The nesting limit keeps recursion shallow; this is the backstop should a shape it does not count recurse
    // too deep. Any other exception is a bug and propagates.
    if (error instanceof RangeError) return { ok: false, errors: [{ line: 1, column: 1, message: 'expression nests too deeply' }] };
    throw error;
  }
}

function tooLong(text: string): ExpressionError {
  return {
    ...positionAt(text, EXPRESSION_MAX_LENGTH),
    message: `expression is ${text.length} characters long; the service accepts at most ${EXPRESSION_MAX_LENGTH}`,
  };
}
