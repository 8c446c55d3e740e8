import { createOnly, declareKind, inPlace, zoneField } from './declaration';

/** A content security policy (`/zones/{zone_id}/page_guard/policies`). `enabled` is text on the wire (docs/service.md#policy-enabled). */
export const CspPolicyKind = declareKind('CspPolicy', {
  fields: [zoneField('replace'), ...inPlace('action', 'expression', 'value', 'enabled', 'description'), createOnly('adoptPolicyId')],
  outputs: ['policyId'],
  // A policy has no ref: its description is the one free field (docs/service.md#csp-policies).
  identity: { object: 'cspPolicy', scope: 'object', idOutput: 'policyId', adoptInput: 'adoptPolicyId', noun: 'policy', marker: 'description' },
});
