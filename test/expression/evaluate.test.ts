import { compileExpression, EvaluationError, matches, type TestRequest } from '../../src/expression/evaluate';
import { addressNeighbours, formatAddress, parseAddress, wildcardMatches } from '../../src/expression/values';

// Each row: expression, request, expected match, and where the semantics come from (docs/expressions.md#evaluation
// names the public pages: the rules language's "Operators", "Fields", "Functions" and "Values" references).
const OPS = 'rules language, Operators reference';
const FNS = 'rules language, Functions reference';
const VALUES = 'rules language, Values reference (arrays, maps, [*])';

const request: TestRequest = {
  'ip.src': '198.51.100.7',
  'http.host': 'www.Example.com',
  'http.request.uri.path': '/admin/login.php',
  'http.request.method': 'POST',
  'http.user_agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)',
  'ip.src.country': 'GB',
  'ip.src.asnum': 64500,
  'cf.threat_score': 14,
  ssl: true,
  'http.request.headers': { 'x-api-key': ['k1', 'k2'], accept: ['text/html'] },
  'http.request.headers.names': ['x-api-key', 'accept'],
  'http.request.uri.args': { id: ['7'] },
};

describe.each([
  // comparisons
  ['http.request.method eq "POST"', true, OPS],
  ['http.request.method == "post"', false, `${OPS}: eq is case-sensitive`],
  ['http.request.method ne "GET"', true, OPS],
  ['http.request.uri.path contains "/admin"', true, OPS],
  ['http.request.uri.path matches "^/admin/.*\\.php$"', true, `${OPS}: matches is a regular expression`],
  ['http.host wildcard "*.example.com"', true, `${OPS}: wildcard is case-insensitive`],
  ['http.host strict wildcard "*.example.com"', false, `${OPS}: strict wildcard is case-sensitive`],
  ['http.request.uri.path wildcard "/admin"', false, `${OPS}: a wildcard pattern matches the whole value`],
  ['cf.threat_score gt 10 and cf.threat_score le 14', true, `${OPS}: ordered comparisons of Int`],
  ['cf.threat_score lt 14', false, OPS],
  ['ip.src.asnum in {64496..64511}', true, `${OPS}: an Int range in a set`],
  ['ip.src.country in {"FR" "GB"}', true, `${OPS}: in a set of strings`],
  // addresses
  ['ip.src eq 198.51.100.7', true, `${VALUES}: IP`],
  ['ip.src in {198.51.100.0/24}', true, `${OPS}: a CIDR range in a set`],
  ['ip.src in {198.51.100.8..198.51.100.20}', false, `${OPS}: an address range in a set`],
  ['ip.src in {2001:db8::/32}', false, `${VALUES}: an IPv4 address is never in an IPv6 range`],
  ['not ip.src in {192.0.2.0/24}', true, `${OPS}: not`],
  // booleans and logic
  ['ssl', true, `${VALUES}: a Boolean field stands alone`],
  ['cf.client.bot', false, 'docs/expressions.md#evaluation: a field the request leaves out has its empty value'],
  ['ssl xor cf.client.bot', true, `${OPS}: xor`],
  ['(http.host eq "x") or (http.request.method eq "POST")', true, `${OPS}: or`],
  // maps, arrays, [*]
  ['http.request.headers["x-api-key"][0] eq "k1"', true, `${VALUES}: a map by key, an array by index`],
  ['http.request.headers["x-api-key"][5] eq "k1"', false, `${VALUES}: an index past the end is missing, and its comparison false`],
  ['http.request.headers["missing"][0] ne "k1"', false, 'docs/expressions.md#evaluation: every comparison of a missing value is false'],
  ['any(http.request.headers["x-api-key"][*] eq "k2")', true, `${VALUES}: [*] compares each element; any()`],
  ['all(http.request.headers["x-api-key"][*] eq "k2")', false, `${FNS}: all()`],
  ['any(lower(http.request.headers.names[*])[*] eq "accept")', true, `${FNS}: a function of [*] applies to each element`],
  // functions
  ['lower(http.host) eq "www.example.com"', true, `${FNS}: lower`],
  ['len(http.request.method) eq 4', true, `${FNS}: len`],
  ['starts_with(http.request.uri.path, "/admin")', true, `${FNS}: starts_with`],
  ['ends_with(http.request.uri.path, ".php")', true, `${FNS}: ends_with`],
  ['has_key(http.request.uri.args, "id")', true, `${FNS}: has_key`],
  ['concat(http.request.method, " ", http.request.uri.path) eq "POST /admin/login.php"', true, `${FNS}: concat`],
  ['url_decode(http.request.uri.path) eq "/admin/login.php"', true, `${FNS}: url_decode`],
  ['substring(http.request.method, 1, 3) eq "OS"', true, `${FNS}: substring`],
])('%s', (expression, expected, source) => {
  test(`is ${String(expected)} (${source})`, () => {
    expect(matches(expression, request)).toBe(expected);
  });
});

describe('what cannot be evaluated offline is refused, never guessed', () => {
  test.each([
    ['ip.src in $office', 'named list $office cannot be evaluated offline: its items live in the account'],
    ['is_jwt_present(http.request.uri.path)', 'function is_jwt_present() cannot be evaluated offline (it checks tokens or secrets the service holds)'],
  ])('%s', (expression, message) => {
    expect(() => matches(expression, request)).toThrow(new EvaluationError(message));
  });

  test('an expression the checker refuses does not compile, with its first problem', () => {
    expect(compileExpression('http.hots eq "a"')).toEqual({ ok: false, problem: 'line 1, column 1: unknown field "http.hots" (did you mean "http.host"?)' });
  });
});

describe('values', () => {
  test.each([
    ['192.0.2.1', '192.0.2.1'],
    ['2001:db8::1', '2001:db8:0:0:0:0:0:1'],
    ['::ffff:192.0.2.1', '0:0:0:0:0:ffff:c000:201'],
  ])('address %s reads back as %s', (text, shown) => {
    const address = parseAddress(text);
    expect(address && formatAddress(address)).toBe(shown);
  });

  test('neighbours stay inside the family', () => {
    expect(addressNeighbours(parseAddress('0.0.0.0')!).map(formatAddress)).toEqual(['0.0.0.1']);
    expect(addressNeighbours(parseAddress('192.0.2.1')!).map(formatAddress)).toEqual(['192.0.2.0', '192.0.2.2']);
  });

  test.each([
    ['*.example.com', 'a.b.example.com', false, true],
    ['/a\\*b', '/a*b', true, true],
    ['/a\\*b', '/axb', true, false],
    ['/A*', '/a/b', false, true],
    ['/A*', '/a/b', true, false],
  ])('wildcard %s on %s (case-sensitive %s) is %s', (pattern, text, caseSensitive, expected) => {
    expect(wildcardMatches(pattern, text, caseSensitive)).toBe(expected);
  });
});
