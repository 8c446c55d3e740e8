import { z } from 'zod';
import { controlCharacterProblem, describeCharacter, invisibleCharacterProblem } from '../../src/schemas/text';
import { readableIssue } from '../../src/schemas/messages';

describe('controlCharacterProblem', () => {
  const oneLine = 'control characters and line breaks are not allowed';
  const multiline = 'control characters other than tabs and line breaks are not allowed';
  test.each([
    ['Checkout scripts', {}, undefined],
    ['Café — für alle', {}, undefined],
    ['a\nb', {}, `contains a line feed (U+000A) at character 2; ${oneLine}`],
    ['ab\r\nc', {}, `contains a carriage return (U+000D) at character 3 (2 such characters in all); ${oneLine}`],
    ['\u0000', {}, `contains a NUL (U+0000) at character 1; ${oneLine}`],
    ['x\u001b[31m', {}, `contains an escape (U+001B) at character 2; ${oneLine}`],
    ['x\u007f', {}, `contains a delete (U+007F) at character 2; ${oneLine}`],
    ['x\u0085', {}, `contains a next line (U+0085) at character 2; ${oneLine}`],
    ['x\u2028', {}, `contains a line separator (U+2028) at character 2; ${oneLine}`],
    ['x\u0001', {}, `contains the character U+0001 at character 2; ${oneLine}`],
    // Positions count characters, not UTF-16 units: the emoji before is one character.
    ['😀\n', {}, `contains a line feed (U+000A) at character 2; ${oneLine}`],
    ['http.host eq "a"\n\tand ip.src in {192.0.2.1}\r\n', { multiline: true }, undefined],
    ['http.host eq "a\u0000"', { multiline: true }, `contains a NUL (U+0000) at character 16; ${multiline}`],
    ['http.host eq "a"\f', { multiline: true }, `contains a form feed (U+000C) at character 17; ${multiline}`],
    ['http.host eq "a"\u2029', { multiline: true }, `contains a paragraph separator (U+2029) at character 17; ${multiline}`],
  ])('%j %j', (text, options, problem) => {
    expect(controlCharacterProblem(text, options)).toBe(problem);
  });

  test.each([
    [0x0a, 'a line feed (U+000A)'],
    [0x1b, 'an escape (U+001B)'],
    [0xfeff, 'a zero width no-break space (U+FEFF)'],
    [0x10ffff, 'the character U+10FFFF'],
  ])('describeCharacter(%d)', (code, text) => {
    expect(describeCharacter(code)).toBe(text);
  });
});

describe('invisibleCharacterProblem', () => {
  const refused = 'bidirectional controls and zero-width characters are not allowed: they make a text read otherwise than it is; remove it';
  test.each([
    ['http.host eq "example.com"', {}, undefined],
    ['Café — für alle', {}, undefined],
    // A right-to-left description with its marks left out, and one with Persian's zero width non-joiner: legitimate prose.
    ['חסימת בוטים', { prose: true }, undefined],
    ['می\u200Cخواهم', { prose: true }, undefined],
    ['👨\u200D👩\u200D👧', { prose: true }, undefined],
    ['http.host eq "exa\u200Bmple.com"', {}, `contains a zero width space (U+200B) at character 18; ${refused}`],
    ['http.host eq "example.com\u202E"', {}, `contains a right-to-left override (U+202E) at character 26; ${refused}`],
    ['office\u200D', {}, `contains a zero width joiner (U+200D) at character 7; ${refused}`],
    ['admin \u202Egnp.exe', { prose: true }, `contains a right-to-left override (U+202E) at character 7; ${refused}`],
    ['a\u2066b\u2069', { prose: true }, `contains a left-to-right isolate (U+2066) at character 2 (2 such characters in all); ${refused}`],
    ['\uFEFFstart', { prose: true }, `contains a zero width no-break space (U+FEFF) at character 1; ${refused}`],
    ['x\u2060y\u200E', {}, `contains a word joiner (U+2060) at character 2 (2 such characters in all); ${refused}`],
  ])('%j %j', (text, options, problem) => {
    expect(invisibleCharacterProblem(text, options)).toBe(problem);
  });
});

describe('readableIssue: our words where a schema sets none, never zod defaults', () => {
  const message = (schema: z.ZodType, value: unknown) => {
    const parsed = schema.safeParse(value, { error: readableIssue });
    if (parsed.success) throw new Error('expected a failure');
    return parsed.error.issues.map((issue) => issue.message);
  };
  test.each([
    ['missing', z.object({ a: z.string() }), {}, ['is required']],
    ['text for a number', z.number(), 'x', ['must be a number']],
    ['a number for text', z.string(), 5, ['must be text']],
    ['a list expected', z.array(z.string()), 'x', ['must be a list']],
    ['a boolean expected', z.boolean(), 1, ['must be true or false']],
    ['not whole', z.number().int(), 1.5, ['must be a whole number']],
    ['below a minimum', z.number().min(0), -1, ['must be at least 0']],
    ['not above a minimum', z.number().gt(0), 0, ['must be greater than 0']],
    ['above a maximum', z.number().max(600), 601, ['must be at most 600']],
    ['empty text', z.string().min(1), '', ['must not be empty']],
    ['long text', z.string().max(3), 'abcd', ['must be at most 3 characters']],
    ['an empty list', z.array(z.string()).min(1), [], ['must hold at least one item']],
    ['a long list', z.array(z.string()).max(2), ['a', 'b', 'c'], ['must be at most 2 items']],
    ['not an option', z.enum(['log', 'allow']), 'block', ['must be one of "log", "allow"']],
    ['not the literal', z.literal('all'), 'some', ['must be "all"']],
    ['a regex', z.string().regex(/^a$/), 'b', ['has the wrong form']],
    ['a multiple', z.number().multipleOf(5), 7, ['must be a multiple of 5']],
    ['an unknown key', z.object({}).strict(), { b: 1 }, ['unknown key "b"']],
    ['no form of a union', z.union([z.string(), z.number()]), true, ['matches none of the accepted forms']],
  ])('%s', (_why, schema, value, messages) => {
    expect(message(schema, value)).toEqual(messages);
  });

  test("a schema's own message wins", () => {
    expect(message(z.number().min(0, 'must be zero or more'), -1)).toEqual(['must be zero or more']);
  });
});
