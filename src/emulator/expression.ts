import { checkExpression, formatExpressionError } from '../expression';
import { responseFieldProblem } from '../rulesets/phase-rules';

/**
 * The one place the emulator checks a rules-language expression (filters, single-call firewall rules, CSP policy
 * expressions), with the same checker the providers run in `check`. Emptiness and length are enforced by the
 * schemas before this is called.
 *
 * `responseFields: false` refuses the answer's fields (http.response.*), for the rules of a request phase.
 *
 * @returns the first problem as `line L, column C: message`, or undefined when the expression is valid.
 */
export function validateExpression(expression: string, { responseFields = true }: { responseFields?: boolean } = {}): string | undefined {
  const result = checkExpression(expression);
  if (!result.ok) return result.errors.map(formatExpressionError)[0];
  if (responseFields) return undefined;
  // A request phase (custom and rate limiting rules) runs before the origin answers: its fields are the request's.
  return responseFieldProblem(expression, result.fields);
}
