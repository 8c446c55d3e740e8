import { z } from 'zod';
import { CSP_POLICY_FIELDS, type CspPolicyWire, type CspPolicyField } from '../schemas';
import { checkWithSchema } from './kit/check';
import { ReadCoalescer } from './kit/coalesce';
import { configure, assertConfigured, getClient } from './kit/context';
import { diffFields, pickFields } from './kit/diff';
import { CspPolicyKind, diffPlan } from '../kinds';
import { adoptableObject } from './kit/adoptable';
import type { LiveObject } from './kit/marker';
import { step, unlessNotFound, type Implementation } from './kit/implementation';

/** Inputs of a CspPolicy, as `check` validates them (src/kinds/csp-policy.ts). */
export const CspPolicyArgsSchema = CspPolicyKind.args;
export type CspPolicyInputs = z.output<typeof CspPolicyArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the policy id. */
export type CspPolicyOutputs = CspPolicyInputs & { policyId: string };


/** The fields of a policy that the service stores, in the provider's names. */
export function outputsFromPolicy(zoneId: string, policy: CspPolicyWire, adoptPolicyId?: string): CspPolicyOutputs {
  return {
    zoneId,
    ...pickFields(policy, CSP_POLICY_FIELDS),
    policyId: policy.id,
    ...(adoptPolicyId ? { adoptPolicyId } : {}),
  };
}

/** The fields of a PUT that brings `current` to `desired`: only what differs. */
export function policyUpdateBody(current: Partial<CspPolicyInputs>, desired: CspPolicyInputs) {
  const body: Partial<Pick<CspPolicyInputs, CspPolicyField>> = {};
  for (const field of CSP_POLICY_FIELDS) {
    if (current[field] !== desired[field]) Object.assign(body, { [field]: desired[field] });
  }
  return body;
}

const DIFF = diffPlan(CspPolicyKind);

/**
 * A refresh's reads of a zone's policies, served from walks of the list (kit/coalesce.ts): the service answers a
 * zone's policies in one page (docs/service.md#csp-policies shows no paging), so a walk is one call.
 */
const policyReads = new ReadCoalescer<CspPolicyWire>({
  read: (zoneId, policyId) => unlessNotFound(() => getClient().cspPolicies.get({ zoneId, policyId }), undefined),
  pages: (zoneId) => getClient().cspPolicies.list({ zoneId }).pages(),
  scope: getClient,
});

export const cspPolicy: Implementation & LiveObject = {
  configure,

  async check(_olds, news) {
    assertConfigured();
    return checkWithSchema(CspPolicyArgsSchema, news, 'CspPolicy', { multiline: ['expression'] });
  },

  async diff(_id, olds, news) {
    // A policy belongs to its zone: another zone is another policy. adoptPolicyId is read only at create.
    return diffFields(olds, news, DIFF);
  },

  ...adoptableObject<CspPolicyWire, CspPolicyInputs, CspPolicyOutputs>({
    kind: 'CspPolicy',
    object: 'the policy',
    step,
    writing: (zoneId, call) => policyReads.writing(zoneId, call),
    read: (zoneId, policyId) => policyReads.read(zoneId, policyId),
    listing: (zoneId) => policyReads.listing(zoneId),
    get: (zoneId, policyId) => getClient().cspPolicies.get({ zoneId, policyId }),
    // One call, and never a policy found by its fields: identical policies are legitimate (two resources, two
    // stacks), and binding to one by a guess would let another resource's delete remove it (README, "Who owns what").
    create: (inputs) => getClient().cspPolicies.create({ zoneId: inputs.zoneId, ...pickFields(inputs, CSP_POLICY_FIELDS) }),
    update: (inputs, policyId, current) => getClient().cspPolicies.update({ zoneId: inputs.zoneId, policyId, ...policyUpdateBody(current, inputs) }),
    remove: (zoneId, policyId) => getClient().cspPolicies.delete({ zoneId, policyId }),
    outputs: outputsFromPolicy,
    matches: (current, inputs) => Object.keys(policyUpdateBody(current, inputs)).length === 0,
  }),
};
