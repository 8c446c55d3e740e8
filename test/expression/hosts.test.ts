import { parseExpression } from '../../src/expression';
import { hostStringProblems } from '../../src/expression/hosts';

const never = 'so it never matches: http.host is the name in its ASCII form; write letters of other scripts in punycode (xn--...) and check for look-alike letters';

/** The tree of an expression the test writes valid. */
function ast(text: string) {
  const parsed = parseExpression(text);
  if (!parsed.ok) throw new Error(`test expression does not parse: ${text}`);
  return parsed.ast;
}

describe('hostStringProblems', () => {
  test.each<[string, string, string[]]>([
    ['an ASCII host', 'http.host eq "paypal.com"', []],
    ['a punycode host', 'http.host eq "xn--80ak6aa92e.com"', []],
    [
      'Cyrillic look-alikes in a host',
      'http.host eq "\u0440\u0430ypal.com"',
      [`line 1, column 14: the host name compared with http.host holds the character U+0440 at character 1 of the string, ${never}`],
    ],
    [
      'one look-alike in a set, deep in the expression',
      'ip.src in {192.0.2.0/24} and not (http.host in {"a.com" "p\u0430ypal.com"})',
      [`line 1, column 57: the host name compared with http.host holds the character U+0430 at character 2 of the string, ${never}`],
    ],
    [
      'a raw string with contains',
      'http.host contains r"b\u0430nk"',
      [`line 1, column 20: the host name compared with http.host holds the character U+0430 at character 2 of the string, ${never}`],
    ],
    ['a path in another script: paths carry any text', 'http.request.uri.path eq "/\u043a\u0430\u0442\u0430\u043b\u043e\u0433"', []],
    ['a pattern (matches) is left alone', 'http.host matches "^\u0430"', []],
  ])('%s', (_name, text, problems) => {
    expect(hostStringProblems(ast(text))).toEqual(problems);
  });
});
