import { RateLimitRuleShape, toDeclaredNames, toWireNames, type RatelimitInput } from '../rulesets/phase-rules';
import type { Ratelimit } from '../schemas';
import { declareKind } from './declaration';
import { TakeOverSchema } from './marker';
import { PHASE_RULE_PARTS, phaseRuleFields, phaseRuleIdentity } from './custom-rule';
import { RATELIMIT_PHASE } from '../schemas/rulesets';

/** A rule's counting as the wire holds it (`ratelimit`); an empty counting expression is none. Pure. */
function ratelimitToWire(value: unknown): Ratelimit | undefined {
  if (!value) return undefined;
  const counting = value as RatelimitInput;
  return toWireNames({ ...counting, countingExpression: counting.countingExpression || undefined }) as Ratelimit;
}

/** A rule's counting as the wire holds it, in the declared names; a number left out is 0, an empty counting expression none. Pure. */
function ratelimitFromWire(value: unknown): RatelimitInput | undefined {
  if (!value) return undefined;
  const counting = value as Ratelimit;
  const named = toDeclaredNames({ ...counting, counting_expression: counting.counting_expression || undefined });
  return { ...named, requestsPerPeriod: named.requestsPerPeriod ?? 0, mitigationTimeout: named.mitigationTimeout ?? 0 } as RatelimitInput;
}

/** One rate limiting rule of a zone's `http_ratelimit` entry point, written alone as a CustomRule is. */
export const RateLimitRuleKind = declareKind('RateLimitRule', {
  args: RateLimitRuleShape.extend({ takeOver: TakeOverSchema }),
  fields: phaseRuleFields({ input: 'ratelimit', wire: 'ratelimit', change: 'update', toWire: ratelimitToWire, fromWire: ratelimitFromWire }),
  identity: phaseRuleIdentity('rate limiting rule', RATELIMIT_PHASE),
  ...PHASE_RULE_PARTS,
  example: {
    action: 'block',
    expression: '(http.request.uri.path eq "/login")',
    ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
  },
});
