/**
 * The one place the emulator checks a rules-language expression (filters, single-call firewall rules, CSP policy
 * expressions). Emptiness and length are enforced by the schemas before this is called. The rules-language
 * checker (`checkExpression` of src/expression) is being written separately: the integration wires it in here,
 * turning its first problem into the returned message. Until then every non-empty expression within the limit
 * is accepted, so the emulator does NOT yet refuse a syntactically wrong expression.
 *
 * @returns a one-line description of what is wrong, or undefined when the expression is acceptable.
 */
export function validateExpression(_expression: string): string | undefined {
  return undefined;
}
