import { RateLimitRuleShape } from '../rulesets/phase-rules';
import { createOnly, declareKind, inPlace, zoneField } from './declaration';
import { PHASE_RULE_FIELDS, phaseRuleIdentity } from './custom-rule';

/** One rate limiting rule of a zone's `http_ratelimit` entry point, written alone as a CustomRule is. */
export const RateLimitRuleKind = declareKind('RateLimitRule', {
  args: RateLimitRuleShape,
  fields: [
    zoneField('replace'),
    ...inPlace(...PHASE_RULE_FIELDS),
    { input: 'response', wire: 'action_parameters.response', change: 'update' },
    { input: 'ratelimit', wire: 'ratelimit', change: 'update' },
    { input: 'position', wire: 'position', change: 'update' },
    createOnly('adoptRuleId'),
  ],
  outputs: ['ruleId', 'rulesetId'],
  identity: phaseRuleIdentity('rate limiting rule'),
  example: {
    action: 'block',
    expression: '(http.request.uri.path eq "/login")',
    ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
  },
});
