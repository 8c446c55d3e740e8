import { checkExpression, formatExpressionError } from '../../src/expression';
import valid from './corpus/valid.json';
import invalid from './corpus/invalid.json';

// The corpus is data so the benchmark can run over the same expressions: valid.json holds documented examples
// grouped by source page, invalid.json the exact errors expected for each broken expression.

const validCases = valid.groups.flatMap((group) => group.expressions.map((expression) => ({ expression, source: group.source })));

describe('documented valid expressions', () => {
  test('the corpus has at least 100 expressions', () => {
    expect(validCases.length).toBeGreaterThanOrEqual(100);
  });

  test.each(validCases)('$expression', ({ expression }) => {
    const result = checkExpression(expression);
    expect(result).toEqual({ ok: true, fields: expect.any(Array) });
  });
});

describe('invalid expressions', () => {
  test('the corpus has at least 50 expressions', () => {
    expect(invalid.cases.length).toBeGreaterThanOrEqual(50);
  });

  test.each(invalid.cases)('$expression', ({ expression, errors }) => {
    const result = checkExpression(expression);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map(formatExpressionError)).toEqual(errors);
  });
});
