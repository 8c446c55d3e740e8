import { answers } from '../support/table';
import { CSP_VALUE_MAX, cspValueProblems, cspWeakeningSources } from '../../src/schemas/csp-value';

describe('cspValueProblems', () => {
  test.each([
    "script-src 'self'",
    "script-src 'self' https://cdn.example.com *.example.net:443 https: 'nonce-abc123=='",
    "default-src 'none'; script-src 'self' 'unsafe-inline'; report-uri /csp-report",
    "script-src 'sha256-B2yPHKaXnvFWtRChIbabYmUBFZdVfKKXHbWtWidDVF8=' 'strict-dynamic';",
    'upgrade-insecure-requests; img-src * data:',
    'connect-src wss://live.example.com/socket; frame-ancestors https://*.example.org',
  ])('well formed: %s', (value) => {
    expect(cspValueProblems(value)).toEqual([]);
  });

  answers(cspValueProblems, 'problem: %j', [
    ['', ['must hold at least one directive, for example "script-src \'self\'"']],
    ['script-src self', ["script-src: keyword self must be quoted: 'self'"]],
    ["scrpt-src 'self'", ['unknown directive "scrpt-src"']],
    ['script-src', ["script-src has no sources; use 'none' to allow nothing"]],
    ["script-src 'none' 'self'", ["script-src: 'none' cannot be combined with other sources"]],
    ["script-src 'self'; script-src https://a.example", ['script-src appears twice; browsers ignore the second']],
    ["script-src 'unsafe-everything'", ["script-src: unknown keyword 'unsafe-everything'"]],
    ['script-src https://exa%mple.com', ['script-src: "https://exa%mple.com" is not a valid source (a host, a scheme like https:, or a quoted keyword)']],
    ['upgrade-insecure-requests https:', ['upgrade-insecure-requests takes no value']],
    ['script-src https://bad_host!.com', ['script-src: "https://bad_host!.com" is not a valid source (a host, a scheme like https:, or a quoted keyword)']],
  ]);
});

describe('cspValueProblems: characters a header cannot carry, and the length bound', () => {
  test.each([
    ["script-src 'self'\nhttps://evil.example", "contains a line feed (U+000A) at character 18; control characters and line breaks are not allowed"],
    ["script-src 'self'\r\nSet-Cookie: a=b", 'contains a carriage return (U+000D) at character 18 (2 such characters in all); control characters and line breaks are not allowed'],
    ["script-src 'self'\u000bhttps://a.example", 'contains a vertical tab (U+000B) at character 18; control characters and line breaks are not allowed'],
    ["script-src 'self'\fhttps://a.example", 'contains a form feed (U+000C) at character 18; control characters and line breaks are not allowed'],
    ["script-src 'self'\u0000", 'contains a NUL (U+0000) at character 18; control characters and line breaks are not allowed'],
    ["script-src 'self'\u2028https://a.example", 'contains a line separator (U+2028) at character 18; control characters and line breaks are not allowed'],
    ["script-src 'self'\u2029", 'contains a paragraph separator (U+2029) at character 18; control characters and line breaks are not allowed'],
    ["script-src 'self'\u00a0https://a.example", 'contains a no-break space (U+00A0) at character 18; a browser does not split sources there: use a plain space'],
    ["script-src 'self'\u3000https://a.example", 'contains the character U+3000 at character 18; a browser does not split sources there: use a plain space'],
    ['script-src https://bücher.example', 'contains the character U+00FC at character 21; a CSP value is ASCII: write host names in their punycode form (xn--...)'],
    ["script-src\t'self'", 'contains a tab (U+0009) at character 11; control characters and line breaks are not allowed'],
  ])('refused: %j', (value, problem) => {
    expect(cspValueProblems(value)).toEqual([problem]);
  });

  test(`a value of ${CSP_VALUE_MAX} characters is checked; one more is refused for its length alone`, () => {
    const sources = (length: number) => `script-src ${'https://a.example '.repeat(length)}`.slice(0, length);
    expect(cspValueProblems(sources(CSP_VALUE_MAX))).toEqual([]);
    expect(cspValueProblems(`${sources(CSP_VALUE_MAX)}x`)).toEqual([
      `is ${CSP_VALUE_MAX + 1} characters long; at most ${CSP_VALUE_MAX} are allowed`,
    ]);
    expect(cspValueProblems(`script-src ${'https://a.example '.repeat(6000)}`)).toEqual([
      `is ${11 + 18 * 6000} characters long; at most ${CSP_VALUE_MAX} are allowed`,
    ]);
  });
});

describe('cspWeakeningSources', () => {
  answers(cspWeakeningSources, '%j', [
    ["script-src 'self' https://js.stripe.com", []],
    ["script-src 'self' 'unsafe-inline'", ["script-src: 'unsafe-inline' lets any inline code run, which is what the policy is there to stop"]],
    // Browsers ignore 'unsafe-inline' beside a nonce or a hash.
    ["script-src 'unsafe-inline' 'nonce-abc123'", []],
    ["script-src 'self' 'unsafe-eval'", ["script-src: 'unsafe-eval' lets the page run text as code (eval)"]],
    ['img-src *', ['img-src: * allows every host']],
    ["script-src 'self' https: data:", ['script-src: https: allows every host of that scheme', 'script-src: data: allows every host of that scheme']],
    ["default-src 'self'; style-src 'unsafe-inline'; report-uri /csp", ["style-src: 'unsafe-inline' lets any inline code run, which is what the policy is there to stop"]],
    ['upgrade-insecure-requests', []],
  ]);
});
