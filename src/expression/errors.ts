import type { IToken } from 'chevrotain';
import * as T from './lexer';

/** One problem in an expression, at a 1-based line and column (columns count UTF-16 code units, as editors do). */
export interface ExpressionError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** `line L, column C: message`, the one-line form used in provider and emulator messages. */
export function formatExpressionError(e: ExpressionError): string {
  return `line ${e.line}, column ${e.column}: ${e.message}`;
}

/** Line and column just past the last character: where "end of input" is. */
export function positionAfter(text: string): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: text.length - lineStart + 1 };
}

/** Line and column of a 0-based offset. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  return positionAfter(text.slice(0, offset));
}

/** Shortens long source excerpts in messages. */
export function excerpt(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A token as a message names it: `"and"`, `string "abc"`, `integer 10`. */
export function describeToken(token: IToken): string {
  const type = token.tokenType;
  if (type === T.QuotedString || type === T.RawString || type === T.UnterminatedString) return `string ${excerpt(token.image)}`;
  if (type === T.Int) return `integer ${token.image}`;
  if (type === T.IPv4 || type === T.IPv6) return `IP address ${token.image}`;
  return JSON.stringify(excerpt(token.image));
}
