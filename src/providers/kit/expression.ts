import { checkExpression, formatExpressionError } from '../../expression';

/** Problems of a rules-language expression, one readable line each (`line L, column C: ...`); empty when valid. */
export function expressionCheckFailures(text: string): string[] {
  const result = checkExpression(text);
  return result.ok ? [] : result.errors.map(formatExpressionError);
}
