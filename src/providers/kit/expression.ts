/**
 * Problems of a rules-language expression, one readable line each (`line L, column C: ...`); empty when valid.
 * Wired to the expression checker once it lands; until then only emptiness is checked by the schemas.
 */
export function expressionProblems(_text: string): string[] {
  return [];
}
