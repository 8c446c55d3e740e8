import { KINDS } from '../../src/kinds';
import { implementation } from '../../src/providers';
import { sampleInputs } from '../support/kind-samples';
import { providerFixture, type ProviderFixture } from './support';

// docs/inputs.md#text: an expression may span lines (tabs, line feeds and carriage returns between its tokens); every
// other control character is refused. Every kind with an `expression` input, from the registry, holds to both.
const ZONE = 'a9b67e024b090640650f12971210b69b';
const EXPRESSION_KINDS = KINDS.filter((declaration) => declaration.fields.some((field) => field.input === 'expression')).map((declaration) => declaration.kind);

let fixture: ProviderFixture;
beforeAll(async () => {
  fixture = await providerFixture();
});
afterAll(() => fixture?.close());

test('the kinds with an expression input are the five that hold one', () => {
  expect([...EXPRESSION_KINDS].sort()).toEqual(['CspPolicy', 'CustomRule', 'FirewallFilter', 'FirewallRuleWithFilter', 'RateLimitRule']);
});

describe.each(EXPRESSION_KINDS)('%s.expression', (kind) => {
  test('over several lines, indented with a tab, passes check', async () => {
    const expression = '(http.request.uri.path contains "/admin")\r\n\tor (http.request.uri.path contains "/login")';
    const result = await implementation(kind).check({}, { ...sampleInputs(kind, ZONE), expression });
    expect(result.failures).toEqual([]);
  });

  test('with a bell character in a string is refused, naming it', async () => {
    const result = await implementation(kind).check({}, { ...sampleInputs(kind, ZONE), expression: 'http.host eq "a\u0007b"' });
    expect(result.failures).toEqual([
      { property: 'expression', reason: `${kind}.expression: contains the character U+0007 at character 16; control characters other than tabs and line breaks are not allowed` },
    ]);
  });
});
