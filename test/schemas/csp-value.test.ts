import { cspValueProblems } from '../../src/schemas/csp-value';

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

  test.each([
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
  ])('problem: %j', (value, problems) => {
    expect(cspValueProblems(value)).toEqual(problems);
  });
});
