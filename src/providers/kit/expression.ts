import { checkExpression, formatExpressionError, parseExpression } from '../../expression';
import { hostStringProblems } from '../../expression/hosts';

/**
 * Problems of a rules-language expression, one readable line each (`line L, column C: ...`); empty when valid.
 * Besides the service's own checks, a host name compared with http.host must be ASCII (src/expression/hosts.ts).
 */
export function expressionCheckFailures(text: string): string[] {
  const result = checkExpression(text);
  if (!result.ok) return result.errors.map(formatExpressionError);
  const parsed = parseExpression(text);
  return parsed.ok ? hostStringProblems(parsed.ast) : [];
}
