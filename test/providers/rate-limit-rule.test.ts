import { RATELIMIT_PHASE } from '../../src/schemas';
import { rateLimitRule } from '../../src/providers/rate-limit-rule';
import { checkedBy, useProviderFixture } from './support';

// RateLimitRule against the emulator over loopback: a phase rule as CustomRule is (test/providers/custom-rule.test.ts
// holds what the two share: places, owner markers, coalesced reads), in the zone's rate limiting phase, with its
// ratelimit block.

const fx = useProviderFixture();

const limit = (zoneId: string, overrides: Record<string, unknown> = {}) => ({
  zoneId,
  action: 'block',
  expression: '(http.request.uri.path eq "/login")',
  ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
  ...overrides,
});

/** The refs of the zone's rate limiting rules, in the order they run. */
async function refs(zoneId: string): Promise<string[]> {
  const ruleset = await fx.client.rulesets.getEntrypoint({ zoneId, phase: RATELIMIT_PHASE });
  return ruleset.rules.map((r) => r.ref ?? '');
}

describe('check', () => {
  test.each([
    ['ratelimit.characteristics', { characteristics: ['ip.src'] }, 'RateLimitRule.ratelimit.characteristics: must include "cf.colo.id" (every rate limiting rule counts per data centre)'],
    ['ratelimit.period', { period: 45 }, 'RateLimitRule.ratelimit.period: "45" is not one of 10, 60, 120, 300, 600, 3600'],
    ['ratelimit.mitigationTimeout', { mitigationTimeout: 600 }, 'RateLimitRule.ratelimit.mitigationTimeout: must be 0 with action managed_challenge: a challenge lasts until the visitor passes it'],
    ['ratelimit.countingExpression', { countingExpression: 'http.response.code eq' }, 'RateLimitRule.ratelimit.countingExpression: line 1, column 22: expected a value after "eq", found end of input'],
  ])('a rate limit with a bad %s fails naming it', async (property, bad, reason) => {
    const zoneId = fx.zone('business');
    const news = limit(zoneId, { action: property.endsWith('Timeout') ? 'managed_challenge' : 'block', ratelimit: { ...limit(zoneId).ratelimit, ...bad } });
    const result = await rateLimitRule.check({}, news);
    expect(result.failures).toEqual([{ property, reason }]);
  });

  test('a response field in the expression fails naming the input that may count responses, as the program writes it', async () => {
    const news = limit(fx.zone('business'), { expression: 'http.response.code eq 401' });
    expect((await rateLimitRule.check({}, news)).failures).toEqual([
      {
        property: 'expression',
        reason:
          "RateLimitRule.expression: line 1, column 1: http.response.code is a response field; a request phase's expression uses request fields " +
          '(a rate limiting rule may count responses in its ratelimit.countingExpression)',
      },
    ]);
  });
});

describe('lifecycle against the emulator', () => {
  test('rate limiting rules: create, refresh, update, delete in their own phase', async () => {
    const zoneId = await fx.freshZone();
    const inputs = await checkedBy(rateLimitRule, limit(zoneId, { ref: 'login' }));
    const made = await rateLimitRule.create(inputs);
    expect(made.outs).toEqual({ ...limit(zoneId, { ref: 'login' }), description: '', enabled: true, ruleId: made.id, rulesetId: made.outs.rulesetId });
    expect(await refs(zoneId)).toEqual(['login']);
    const changed = await checkedBy(rateLimitRule, limit(zoneId, { ref: 'login', ratelimit: { ...limit(zoneId).ratelimit, requestsPerPeriod: 20, countingExpression: 'http.response.code eq 401' } }));
    const { outs } = await rateLimitRule.update(made.id, made.outs, changed);
    expect(outs).toMatchObject({ ratelimit: { requestsPerPeriod: 20, countingExpression: 'http.response.code eq 401' } });
    expect((await rateLimitRule.read(made.id, outs)).inputs).toEqual({ ...changed });
    await rateLimitRule.delete(made.id, outs);
    expect(await refs(zoneId)).toEqual([]);
  });
});
