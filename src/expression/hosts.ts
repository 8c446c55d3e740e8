// Look-alike host names. A request's `http.host` is the Host header, and a browser sends a name in its ASCII form
// (an internationalized name as punycode, xn--...). So a string compared with http.host that holds any other
// character can never match: `http.host eq "раypal.com"` (a Cyrillic р and а) reads as the Latin name in a review,
// and the block rule behind it blocks nothing. The rule is that narrow on purpose: only strings compared with the
// host field, where non-ASCII text is certainly a mistake. A path, a query or a header may carry any text, and a
// description is prose in any script: neither is judged here. The service accepts such a rule (it is valid), so only
// the providers' check applies this, not the emulator. docs/inputs.md#text.
import type { ComparisonNode, ExpressionNode, StringNode } from './ast';
import { formatExpressionError } from './errors';
import { describeCharacter, findCharacters } from '../schemas/text';
import { decodeQuoted } from './literals';

/** The field whose strings must be ASCII host names. */
const HOST_FIELD = 'http.host';

/** Operators whose right-hand strings are host names (or parts of one); `matches` takes a pattern and is left alone. */
const HOST_OPERATORS = new Set(['eq', 'ne', 'contains', 'wildcard', 'strict wildcard', 'in']);

/**
 * One readable line (`line L, column C: ...`) for each string compared with http.host that holds a character
 * outside ASCII, naming it and its position in the string. Pure; `ast` is a checked expression's tree.
 */
export function hostStringProblems(ast: ExpressionNode): string[] {
  const problems: string[] = [];
  for (const comparison of hostComparisons(ast)) {
    const right = comparison.right;
    const strings = right.kind === 'set' ? right.items.filter((item): item is StringNode => item.kind === 'string') : right.kind === 'string' ? [right] : [];
    for (const literal of strings) {
      const problem = hostStringProblem(literal);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

function hostStringProblem(literal: StringNode): string | undefined {
  const decoded = literal.rawSyntax ? { value: literal.raw } : decodeQuoted(literal.raw);
  if (!('value' in decoded)) return undefined;
  const finding = findCharacters(decoded.value, (code) => code > 0x7e);
  if (!finding) return undefined;
  const { line, column } = literal.span;
  return formatExpressionError({
    line,
    column,
    message:
      `the host name compared with ${HOST_FIELD} holds ${describeCharacter(finding.code)} at character ${finding.position} of the string, ` +
      `so it never matches: ${HOST_FIELD} is the name in its ASCII form; write letters of other scripts in punycode (xn--...) and check for look-alike letters`,
  });
}

/** Every comparison of the field http.host itself, anywhere in the tree. Iterative, as the tree may be deep. */
function hostComparisons(ast: ExpressionNode): ComparisonNode[] {
  const found: ComparisonNode[] = [];
  const stack: ExpressionNode[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.kind) {
      case 'logical':
        stack.push(node.left, node.right);
        break;
      case 'not':
        stack.push(node.operand);
        break;
      case 'group':
        stack.push(node.expression);
        break;
      case 'call':
        stack.push(...node.args);
        break;
      case 'comparison':
        if (node.left.kind === 'field' && node.left.name === HOST_FIELD && HOST_OPERATORS.has(node.operator)) found.push(node);
        break;
      default:
        break;
    }
  }
  return found;
}
