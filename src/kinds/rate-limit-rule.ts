import { RateLimitRuleShape } from '../rulesets/phase-rules';
import { declareKind } from './declaration';
import { TakeOverSchema } from './marker';
import { PHASE_RULE_PARTS, phaseRuleFields, phaseRuleIdentity } from './custom-rule';
import { RATELIMIT_PHASE } from '../schemas/rulesets';

/** One rate limiting rule of a zone's `http_ratelimit` entry point, written alone as a CustomRule is. */
export const RateLimitRuleKind = declareKind('RateLimitRule', {
  args: RateLimitRuleShape.extend({ takeOver: TakeOverSchema }),
  fields: phaseRuleFields({ input: 'ratelimit', wire: 'ratelimit', change: 'update' }),
  identity: phaseRuleIdentity('rate limiting rule', RATELIMIT_PHASE),
  ...PHASE_RULE_PARTS,
  example: {
    action: 'block',
    expression: '(http.request.uri.path eq "/login")',
    ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
  },
});
