// The rules-language checker: parses a match expression (filters, CSP policies, WAF rules) and type-checks it
// against the documented fields and functions, so a mistake is reported with its line and column before any API
// call. Pure: no I/O, no global state beyond the parser and lexer built once on first use.
import type { ExpressionNode } from './ast';
import { checkAst } from './checker';
import { positionAt, type ExpressionError } from './errors';
import { parse } from './parser';
import { FIREWALL_LIMITS } from '../schemas/filters';
import { WAF_MIGRATION_LIMITS } from '../schemas/waf-migration';

export type { ExpressionError } from './errors';
export { formatExpressionError } from './errors';
export type * from './ast';
export { FIELDS, FIELD_NAMES } from './fields';
export { FUNCTIONS, FUNCTION_NAMES } from './functions';
export { typeName, type ValueType } from './types';

/** Outcome of {@link checkExpression}: the fields an expression reads, or every problem found. */
export type ExpressionCheck = { ok: true; fields: string[] } | { ok: false; errors: ExpressionError[] };

/** Outcome of {@link parseExpression}: the syntax tree, or the first syntax error. */
export type ExpressionParse = { ok: true; ast: ExpressionNode } | { ok: false; errors: ExpressionError[] };

/** Longest expression the service accepts on a filter, in characters (the filters schema's limit). */
export const EXPRESSION_MAX_LENGTH: number = FIREWALL_LIMITS.expressionMax;

/** Longest firewall rule expression the WAF migration takes without support's help: 4 KB of UTF-8. */
export const MIGRATION_EXPRESSION_MAX_BYTES = WAF_MIGRATION_LIMITS.maxExpressionBytes satisfies 4096;

/** Length of `text` in UTF-8 bytes (the unit of the migration limit), without allocating a buffer. */
export function byteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The migration's length rule as an error, or undefined when `text` fits in 4 KB. Kept apart from
 * {@link checkExpression} because only the WAF migration applies it.
 */
export function checkMigrationLength(text: string): ExpressionError | undefined {
  const bytes = byteLength(text);
  if (bytes <= MIGRATION_EXPRESSION_MAX_BYTES) return undefined;
  return {
    line: 1,
    column: 1,
    message: `expression is ${bytes} bytes long; the WAF migration takes at most ${MIGRATION_EXPRESSION_MAX_BYTES} bytes per rule expression`,
  };
}

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
