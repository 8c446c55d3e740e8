import { ACCOUNT, admission, describeScope, scopeOf, verdict, type Admission, type ScopeState } from '../../src/client/refused-credentials';

// The decisions of the credential gate (src/client/refused-credentials.ts); refused-credentials.test.ts runs it
// against the emulator.

describe.each<[ScopeState, ScopeState, boolean, Admission]>([
  ['unknown', 'unknown', false, 'probe'],
  ['unknown', 'unknown', true, 'wait'],
  ['accepted', 'unknown', false, 'send'],
  ['accepted', 'unknown', true, 'send'],
  ['refused', 'unknown', false, 'refuse'],
  ['refused', 'accepted', true, 'refuse'],
  ['accepted', 'refused', false, 'refuse'],
  ['unknown', 'refused', true, 'refuse'],
  ['unknown', 'accepted', false, 'probe'],
])('admission(zone %s, account %s, probing %s)', (scope, account, probing, expected) => {
  it(`is ${expected}`, () => expect(admission(scope, account, probing)).toBe(expected));
});

describe.each<[string, { status?: number; authenticationRefused: boolean }, ScopeState]>([
  ['the refusal of the credentials', { status: 403, authenticationRefused: true }, 'refused'],
  ['a 401', { status: 401, authenticationRefused: true }, 'refused'],
  ['a success', { status: 200, authenticationRefused: false }, 'accepted'],
  ['a not found (read after the credentials)', { status: 404, authenticationRefused: false }, 'accepted'],
  ['a bad request', { status: 400, authenticationRefused: false }, 'accepted'],
  ['a 429 (answered before the credentials are read)', { status: 429, authenticationRefused: false }, 'unknown'],
  ['a 408', { status: 408, authenticationRefused: false }, 'unknown'],
  ['a server error', { status: 503, authenticationRefused: false }, 'unknown'],
  ['no answer', { authenticationRefused: false }, 'unknown'],
])('verdict of %s', (_name, outcome, expected) => {
  it(`is ${expected}`, () => expect(verdict(outcome)).toBe(expected));
});

const Z = '0123456789abcdef0123456789abcdef';
describe.each([
  [`/zones/${Z}/page_guard`, `${Z} page_guard`, `the page_guard API of zone ${Z}`],
  [`/zones/${Z}/page_guard?page=2`, `${Z} page_guard`, `the page_guard API of zone ${Z}`],
  [`/zones/${Z}/page_guard/policies/abc`, `${Z} page_guard/policies`, `the page_guard/policies API of zone ${Z}`],
  [`/zones/${Z}/page_guard/scripts`, `${Z} page_guard/scripts`, `the page_guard/scripts API of zone ${Z}`],
  [`/zones/${Z}/firewall/rules/abc`, `${Z} firewall/rules`, `the firewall/rules API of zone ${Z}`],
  [`/zones/${Z}/firewall/waf/overrides`, `${Z} firewall/waf`, `the firewall/waf API of zone ${Z}`],
  [`/zones/${Z}/filters`, `${Z} filters`, `the filters API of zone ${Z}`],
  [`/zones/${Z}/rulesets/phases/http_request_firewall_custom/entrypoint`, `${Z} rulesets`, `the rulesets API of zone ${Z}`],
  [`/zones/${Z}/rulesets/abc/rules`, `${Z} rulesets`, `the rulesets API of zone ${Z}`],
  [`/zones/${Z}/waf_migration/check`, `${Z} waf_migration`, `the waf_migration API of zone ${Z}`],
  // A route of no API this project knows is its own, by its first segment; the zone itself, one more.
  [`/zones/${Z}/dns_records`, `${Z} dns_records`, `the dns_records API of zone ${Z}`],
  [`/zones/${Z}`, `${Z} `, `zone ${Z}`],
  ['/user/tokens/verify', ACCOUNT, 'the account'],
])('scopeOf(%s)', (path, expected, described) => {
  it(`is ${expected}, described as ${described}`, () => {
    expect(scopeOf(path)).toBe(expected);
    expect(describeScope(scopeOf(path))).toBe(described);
  });
});
