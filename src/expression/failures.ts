import { checkExpression, formatExpressionError, parseExpression } from './index';
import { hostStringProblems } from './hosts';

/**
 * Problems of a rules-language expression as the providers' check reports them, one readable line each (`line L,
 * column C: ...`); empty when valid. Besides the service's own checks, a host name compared with http.host must be
 * ASCII (hosts.ts): the service accepts such a rule, so the emulator does not apply this.
 */
export function expressionCheckFailures(text: string): string[] {
  const result = checkExpression(text);
  if (!result.ok) return result.errors.map(formatExpressionError);
  const parsed = parseExpression(text);
  return parsed.ok ? hostStringProblems(parsed.ast) : [];
}
