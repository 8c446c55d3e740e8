import { z } from 'zod';
import type { CspPolicyWire } from '../schemas';
import { CspPolicyCreateSchema, CspPolicyUpdateSchema } from '../schemas/csp-policy';
import { ReadCoalescer } from './kit/coalesce';
import { CspPolicyKind, outputsOf, requestOf, wireFields } from '../kinds';
import { objectKind } from './kit/flow';
import { step, unlessNotFound } from './kit/implementation';

/** Inputs of a CspPolicy, as `check` validates them (src/kinds/csp-policy.ts). */
export const CspPolicyArgsSchema = CspPolicyKind.args;
export type CspPolicyInputs = z.output<typeof CspPolicyArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the policy id. */
export type CspPolicyOutputs = CspPolicyInputs & { policyId: string };


/** The fields of a policy that the service stores, in the provider's names. */
export function outputsFromPolicy(zoneId: string, policy: CspPolicyWire, adoptPolicyId?: string): CspPolicyOutputs {
  return outputsOf(CspPolicyKind, zoneId, policy, adoptPolicyId);
}

/** The fields of a PUT that brings `current` to `desired`: only what differs. */
export function policyUpdateBody(current: Partial<CspPolicyInputs>, desired: CspPolicyInputs) {
  const differing = wireFields(CspPolicyKind).filter(({ input }) => current[input] !== desired[input]);
  return requestOf(CspPolicyUpdateSchema, CspPolicyKind, desired, differing.map(({ input }) => input));
}

/**
 * A refresh's reads of a zone's policies, served from walks of the list (kit/coalesce.ts): the service answers a
 * zone's policies in one page (docs/service.md#csp-policies shows no paging), so a walk is one call.
 */
const policyReads = new ReadCoalescer<CspPolicyWire>({
  read: (client, zoneId, policyId) => unlessNotFound(() => client.cspPolicies.get({ zoneId, policyId }), undefined),
  pages: (client, zoneId) => client.cspPolicies.list({ zoneId }).pages(),
});

// A policy belongs to its zone: another zone is another policy. adoptPolicyId is read only at create (src/kinds).
export const cspPolicy = objectKind<CspPolicyWire, CspPolicyInputs, CspPolicyOutputs>({
  kind: 'CspPolicy',
  multiline: ['expression'],
  object: 'the policy',
  step,
  writing: (zoneId, call) => policyReads.writing(zoneId, call),
  read: (ctx, zoneId, policyId) => policyReads.read(ctx.client, zoneId, policyId),
  listing: (ctx, zoneId) => policyReads.listing(ctx.client, zoneId),
  adopting: (inputs) => inputs.adoptPolicyId,
  get: (ctx, zoneId, policyId) => ctx.client.cspPolicies.get({ zoneId, policyId }),
  // One call, and never a policy found by its fields: identical policies are legitimate (two resources, two
  // stacks), and binding to one by a guess would let another resource's delete remove it (README, "Who owns what").
  create: (ctx, inputs) => ctx.client.cspPolicies.create({ zoneId: inputs.zoneId, ...requestOf(CspPolicyCreateSchema, CspPolicyKind, inputs) }),
  update: (ctx, inputs, policyId, current) => ctx.client.cspPolicies.update({ zoneId: inputs.zoneId, policyId, ...policyUpdateBody(current, inputs) }),
  remove: (ctx, policyId, { zoneId }) => ({ call: () => ctx.client.cspPolicies.delete({ zoneId, policyId }) }),
  outputs: (policy, declared) => outputsFromPolicy(declared.zoneId, policy, declared.adoptPolicyId),
  matches: (current, inputs) => Object.keys(policyUpdateBody(current, inputs)).length === 0,
});
