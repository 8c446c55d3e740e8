// Pure decisions of FirewallRuleWithFilter: payloads, outputs, diff, cross-field validation, orphan filters, messages.
import { BadRequestError, ConflictError } from '../../src/client/errors';
import { PREVIEW_UNKNOWN } from '../../src/providers/kit/check';
import { productsFailures } from '../../src/providers/kit/firewall';
import {
  diffFirewallRuleWithFilter,
  inputsFromOutputs,
  isDuplicateFilterError,
  isQuotaError,
  onFilterItem,
  orphanFilter,
  outputsFromRule,
  quotaMessage,
  ruleUpdateBody,
  rulesUsingExpression,
  singleCallItem,
  type FirewallRuleWithFilterInputs,
} from '../../src/providers/firewall-rule-with-filter';
import type { Filter, FirewallRuleWire } from '../../src/schemas';

const zoneId = 'a'.repeat(32);
const ruleId = 'b'.repeat(32);
const filterId = 'c'.repeat(32);
const inputs = (overrides: Partial<FirewallRuleWithFilterInputs> = {}): FirewallRuleWithFilterInputs => ({
  zoneId,
  expression: 'ip.src eq 192.0.2.1',
  action: 'block',
  paused: false,
  priority: null,
  description: '',
  ref: '',
  ...overrides,
});

describe('payloads', () => {
  test.each([
    ['block: filter by expression, no products', inputs(), { filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block', paused: false, priority: null, description: '', ref: '' }],
    [
      'bypass carries its products',
      inputs({ action: 'bypass', products: ['waf', 'rateLimit'] }),
      { filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'bypass', paused: false, priority: null, description: '', ref: '', products: ['waf', 'rateLimit'] },
    ],
    [
      'every rule field is sent',
      inputs({ paused: true, priority: 7, description: 'office', ref: 'TICKET-1' }),
      { filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block', paused: true, priority: 7, description: 'office', ref: 'TICKET-1' },
    ],
  ])('singleCallItem: %s', (_name, given, body) => {
    expect(singleCallItem(given)).toEqual(body);
  });

  test('onFilterItem references the kept filter by id, never by expression', () => {
    expect(onFilterItem(inputs({ action: 'log' }), filterId)).toEqual({
      filter: { id: filterId },
      action: 'log',
      paused: false,
      priority: null,
      description: '',
      ref: '',
    });
  });

  test.each([
    ['keeps the filter by id', inputs({ action: 'challenge' }), { filter: { id: filterId }, action: 'challenge', paused: false, priority: null, description: '', ref: '' }],
    ['drops products leaving bypass', inputs({ action: 'block', products: ['waf'] }), { filter: { id: filterId }, action: 'block', paused: false, priority: null, description: '', ref: '' }],
    [
      'sends products with bypass',
      inputs({ action: 'bypass', products: ['waf'] }),
      { filter: { id: filterId }, action: 'bypass', paused: false, priority: null, description: '', ref: '', products: ['waf'] },
    ],
  ])('ruleUpdateBody %s', (_name, given, body) => {
    expect(ruleUpdateBody(given, filterId)).toEqual(body);
  });
});

describe('outputsFromRule', () => {
  const rule = (overrides: Partial<FirewallRuleWire> = {}): FirewallRuleWire => ({
    id: ruleId,
    paused: false,
    action: 'block',
    filter: { id: filterId, expression: 'ip.src eq 192.0.2.1', paused: false },
    ...overrides,
  });
  test.each([
    ['absent optional fields read as the defaults', rule(), { ...inputs(), ruleId, filterId }],
    [
      'every field as the service holds it',
      rule({ priority: 3, description: 'd', ref: 'r', action: 'bypass', products: ['waf'] }),
      { ...inputs({ priority: 3, description: 'd', ref: 'r', action: 'bypass', products: ['waf'] }), ruleId, filterId },
    ],
    ['an empty products list is no products', rule({ products: [] }), { ...inputs(), ruleId, filterId }],
  ])('%s', (_name, given, outputs) => {
    expect(outputsFromRule(zoneId, given)).toEqual(outputs);
  });

  test('adoptRuleId is kept, and the inputs a read reports leave out the assigned ids', () => {
    const outs = outputsFromRule(zoneId, rule(), ruleId);
    expect(outs.adoptRuleId).toBe(ruleId);
    expect(inputsFromOutputs(outs)).toEqual({ ...inputs(), adoptRuleId: ruleId });
  });
});

describe('diffFirewallRuleWithFilter', () => {
  const olds = { ...inputs({ action: 'bypass', products: ['waf', 'bic'] }), ruleId, filterId };
  const news = (overrides: Record<string, unknown>) => ({ ...inputs({ action: 'bypass', products: ['waf', 'bic'] }), ...overrides });
  test.each([
    ['nothing changed', {}, [], []],
    ['products in another order', { products: ['bic', 'waf'] }, [], []],
    ['action', { action: 'block', products: undefined }, ['action'], []],
    ['paused', { paused: true }, ['paused'], []],
    ['priority', { priority: 10 }, ['priority'], []],
    ['priority null on both sides', { priority: null }, [], []],
    ['description', { description: 'new' }, ['description'], []],
    ['ref', { ref: 'R-2' }, ['ref'], []],
    ['products', { products: ['waf'] }, ['products'], []],
    ['expression replaces', { expression: 'ip.src eq 192.0.2.2' }, ['expression'], ['expression']],
    ['zone replaces', { zoneId: 'd'.repeat(32) }, ['zoneId'], ['zoneId']],
    ['an unknown expression is a replacing change', { expression: PREVIEW_UNKNOWN }, ['expression'], ['expression']],
    ['adoptRuleId is read only at create', { adoptRuleId: ruleId }, [], []],
  ])('%s', (_name, overrides, changed, replaces) => {
    const diff = diffFirewallRuleWithFilter(olds, news(overrides));
    expect(diff.changed).toEqual(changed);
    expect(diff.replaces).toEqual(replaces);
    expect(diff.changes).toBe(changed.length > 0);
    // Create-before-delete: the new rule exists before the old one goes.
    expect(diff.deleteBeforeReplace).toBeUndefined();
  });

  test('a state without priority, description or ref holds their defaults; without paused, it does not know it', () => {
    const { priority: _p, description: _d, ref: _r, ...unset } = olds;
    expect(diffFirewallRuleWithFilter(unset, news({ priority: null, description: '', ref: '' }))).toMatchObject({ changes: false });
    const { paused: _paused, ...unknown } = olds;
    expect(diffFirewallRuleWithFilter(unknown, news({}))).toMatchObject({ changes: true, changed: ['paused'] });
  });
});

describe('productsFailures', () => {
  const failure = (reason: string) => [{ property: 'products', reason: expect.stringContaining(reason) }];
  test.each([
    ['bypass with products', { action: 'bypass', products: ['waf'] }, []],
    ['block without products', { action: 'block' }, []],
    ['an unknown action defers the check', { action: PREVIEW_UNKNOWN, products: ['waf'] }, []],
    ['unknown products defer the check', { action: 'bypass', products: PREVIEW_UNKNOWN }, []],
    ['bypass without products', { action: 'bypass' }, failure('FirewallRuleWithFilter.products: required when action is bypass')],
    ['bypass with an empty list', { action: 'bypass', products: [] }, failure('FirewallRuleWithFilter.products: required when action is bypass')],
    ['products with block', { action: 'block', products: ['waf'] }, failure('FirewallRuleWithFilter.products: allowed only when action is bypass (action is block)')],
  ])('%s', (_name, news, failures) => {
    expect(productsFailures('FirewallRuleWithFilter', news)).toEqual(failures);
  });
});

describe('orphan filters', () => {
  const filter = (id: string, expression: string): Filter => ({ id, expression, paused: false });
  const rule = (id: string, filterOf: Filter): FirewallRuleWire => ({ id, paused: false, action: 'block', filter: filterOf });
  const a = filter('1'.repeat(32), 'ip.src eq 192.0.2.1');
  const b = filter('2'.repeat(32), 'ip.src eq 192.0.2.10');
  test.each([
    ['an unused filter with exactly the expression', [a, b], [], 'ip.src eq 192.0.2.1', a.id],
    ['a longer expression that contains it is not it', [b], [], 'ip.src eq 192.0.2.1', undefined],
    ['a filter some rule uses is not an orphan', [a], [rule(ruleId, a)], 'ip.src eq 192.0.2.1', undefined],
    ['no filter at all', [], [], 'ip.src eq 192.0.2.1', undefined],
  ])('%s', (_name, filters, rules, expression, expected) => {
    expect(orphanFilter(filters, rules, expression)?.id).toBe(expected);
  });

  test('rulesUsingExpression names the rules matching the exact expression', () => {
    expect(rulesUsingExpression([rule(ruleId, a), rule('3'.repeat(32), b)], a.expression)).toEqual([ruleId]);
  });
});

describe('error kinds and messages', () => {
  const error = (code: number, message: string) =>
    new BadRequestError(`POST /zones/z/firewall/rules failed: HTTP 400 Bad Request: ${code} ${message}`, {
      method: 'POST',
      path: '/zones/z/firewall/rules',
      status: 400,
      errors: [{ code, message }],
    });
  test.each([
    ['the quota code', error(10030, 'firewall rule quota exceeded'), true, false],
    ['a duplicate filter', error(10102, 'config duplicates an already existing config'), false, true],
    ['a validation error', error(1004, 'action: invalid'), false, false],
    ['not a client error', new Error('quota'), false, false],
    ['a conflict', new ConflictError('x', { method: 'PUT', path: '/p', status: 409, errors: [{ code: 10027, message: 'locked' }] }), false, false],
  ])('%s', (_name, given, quota, duplicate) => {
    expect(isQuotaError(given)).toBe(quota);
    expect(isDuplicateFilterError(given)).toBe(duplicate);
  });

  test('the quota message names the kept filter and what to do', () => {
    expect(quotaMessage(zoneId, 'service words', filterId)).toBe(
      `FirewallRuleWithFilter in zone ${zoneId}: the zone's firewall rule quota is exceeded, no rule was created (service words). ` +
        `The service kept the rule's filter ${filterId} without a rule. Free a rule slot (delete a rule you no longer need, ` +
        `or raise the quota) and run pulumi up again: the rule will be created on filter ${filterId}, with no duplicate ` +
        `and no orphan. To give up instead, delete the filter: DELETE /zones/${zoneId}/filters/${filterId}`,
    );
    expect(quotaMessage(zoneId, 'service words', undefined)).toMatch(/no rule was created \(service words\)\. Free a rule slot/);
  });
});
