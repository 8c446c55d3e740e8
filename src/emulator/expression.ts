import { checkExpression, formatExpressionError } from '../expression';

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
  const field = result.fields.find((name) => RESPONSE_FIELD.test(name));
  if (field === undefined) return undefined;
  const before = expression.slice(0, Math.max(0, expression.indexOf(field))).split('\n');
  return `line ${before.length}, column ${(before.at(-1) ?? '').length + 1}: ${field} is a response field; a request phase's expression uses request fields (a rate limiting rule may count responses in its counting_expression)`;
}

/** Fields of the origin's answer (docs/service.md#rulesets). */
const RESPONSE_FIELD = /^(raw\.)?http\.response\./;
