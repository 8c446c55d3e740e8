import { WAF_MIGRATION_LIMITS, expressionBytes } from '../../src/schemas';

describe('expressionBytes: the unit of the migration limit', () => {
  test.each([
    ['abc', 3],
    ['é', 2],
    ['☁', 3],
    ['😀', 4],
    ['\ud800', 3], // a lone surrogate is encoded as U+FFFD
  ])('%s is %i bytes of UTF-8', (text, bytes) => {
    expect(expressionBytes(text)).toBe(bytes);
  });

  test('the migration limit is 4096 bytes, not characters', () => {
    expect(WAF_MIGRATION_LIMITS.maxExpressionBytes).toBe(4096);
    expect(expressionBytes(`http.host eq "${'a'.repeat(4096 - 15)}"`)).toBe(4096);
    const tooLong = `http.host eq "${'é'.repeat(2100)}"`;
    expect(tooLong.length).toBeLessThan(4096);
    expect(expressionBytes(tooLong)).toBe(4215);
  });
});
