import { checkExpression, formatExpressionError } from '../expression';

/**
 * The one place the emulator checks a rules-language expression (filters, single-call firewall rules, CSP policy
 * expressions), with the same checker the providers run in `check`. Emptiness and length are enforced by the
 * schemas before this is called.
 *
 * @returns the first problem as `line L, column C: message`, or undefined when the expression is valid.
 */
export function validateExpression(expression: string): string | undefined {
  const result = checkExpression(expression);
  return result.ok ? undefined : result.errors.map(formatExpressionError)[0];
}
