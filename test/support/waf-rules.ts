import { MANAGED_RULESET_ID, OWASP_RULESET_ID } from '../../src/schemas/service';

/**
 * An execute rule of the WAF migration's converted configuration as the config read answers it (no id, version nor
 * ref yet): the managed ruleset's, or OWASP's with the overrides given.
 */
export function convertedExecute(ruleset: 'managed' | 'owasp', overrides: Record<string, unknown> = { rules: [] }) {
  const [id, description] = ruleset === 'managed' ? [MANAGED_RULESET_ID, 'Cloudflare Managed Ruleset'] : [OWASP_RULESET_ID, 'Cloudflare OWASP Core Ruleset'];
  return { id: '', version: '', action: 'execute', expression: 'true', description, ref: '', enabled: true, action_parameters: { id, overrides } };
}
