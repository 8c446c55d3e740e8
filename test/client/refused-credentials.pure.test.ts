import { ACCOUNT, admission, scopeOf, verdict, type Admission, type ScopeState } from '../../src/client/refused-credentials';

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

describe.each([
  ['/zones/0123456789abcdef0123456789abcdef/page_guard', '0123456789abcdef0123456789abcdef'],
  ['/zones/0123456789abcdef0123456789abcdef', '0123456789abcdef0123456789abcdef'],
  ['/user/tokens/verify', ACCOUNT],
])('scopeOf(%s)', (path, expected) => {
  it(`is ${expected}`, () => expect(scopeOf(path)).toBe(expected));
});
