import { declareKind } from './declaration';

/** A content security policy (`/zones/{zone_id}/page_guard/policies`). `enabled` is text on the wire (docs/service.md#policy-enabled). */
export const CspPolicyKind = declareKind({
  kind: 'CspPolicy',
  fields: [
    { input: 'zoneId', wire: 'zone_id', change: 'replace' },
    { input: 'action', wire: 'action', change: 'update' },
    { input: 'expression', wire: 'expression', change: 'update' },
    { input: 'value', wire: 'value', change: 'update' },
    { input: 'enabled', wire: 'enabled', change: 'update' },
    { input: 'description', wire: 'description', change: 'update' },
    { input: 'adoptPolicyId', wire: '', change: 'create' },
  ],
  outputs: ['policyId'],
  // A policy has no ref: its description is the one free field (docs/service.md#csp-policies).
  identity: { object: 'cspPolicy', scope: 'object', idOutput: 'policyId', adoptInput: 'adoptPolicyId', noun: 'policy', marker: 'description' },
});
