import { z } from 'zod';
import {
  CSP_POLICY_FIELDS,
  CspPolicyCreateSchema,
  FIREWALL_LIMITS,
  HexIdSchema,
  ZoneIdSchema,
  cspValueProblems,
  type CspPolicy,
  type CspPolicyField,
} from '../schemas';
import { checkWithSchema } from './kit/check';
import { ReadCoalescer } from './kit/coalesce';
import { configure, assertConfigured, getClient } from './kit/context';
import { diffFields, pickFields } from './kit/diff';
import { CspPolicyKind, diffPlan, label as kindLabel } from '../kinds';
import { nameOf } from './kit/ownership';
import { ProviderError, step, unlessNotFound, type Implementation } from './kit/implementation';
import { expressionCheckFailures } from './kit/expression';

const wire = CspPolicyCreateSchema.shape;

/** Inputs of a CspPolicy, as `check` validates them (the wire fields in camelCase, `enabled` a boolean). */
export const CspPolicyArgsSchema = z
  .object({
    zoneId: ZoneIdSchema,
    description: wire.description.default(''),
    action: wire.action,
    // The rules language's bound on filters holds for a policy's expression too (docs/inputs.md).
    expression: wire.expression.max(FIREWALL_LIMITS.expressionMax, `must be at most ${FIREWALL_LIMITS.expressionMax} characters`).superRefine((text, ctx) => {
      // An empty or too long expression already has its failure from the length checks.
      if (text === '' || text.length > FIREWALL_LIMITS.expressionMax) return;
      for (const message of expressionCheckFailures(text)) ctx.addIssue({ code: 'custom', message });
    }),
    enabled: z.boolean({ error: 'must be a boolean' }).default(true),
    value: wire.value.superRefine((value, ctx) => {
      for (const message of cspValueProblems(value)) ctx.addIssue({ code: 'custom', message });
    }),
    adoptPolicyId: HexIdSchema.optional(),
  })
  .strict();
export type CspPolicyInputs = z.output<typeof CspPolicyArgsSchema>;

/** Outputs: the inputs as the service holds them, plus the policy id. */
export type CspPolicyOutputs = CspPolicyInputs & { policyId: string };


/** The fields of a policy that the service stores, in the provider's names. */
export function outputsFromPolicy(zoneId: string, policy: CspPolicy, adoptPolicyId?: string): CspPolicyOutputs {
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

const label = (props: Record<string, unknown>, id?: string) => kindLabel('CspPolicy', props, nameOf(props), id);
const DIFF = diffPlan(CspPolicyKind);

/**
 * A refresh's reads of a zone's policies, served from walks of the list (kit/coalesce.ts): the service answers a
 * zone's policies in one page (docs/service.md#csp-policies shows no paging), so a walk is one call.
 */
const policyReads = new ReadCoalescer<CspPolicy>({
  read: (zoneId, policyId) => unlessNotFound(() => getClient().cspPolicies.get({ zoneId, policyId }), undefined),
  pages: (zoneId) => getClient().cspPolicies.list({ zoneId }).pages(),
  scope: getClient,
});

export const cspPolicy: Implementation = {
  configure,

  async check(_olds, news) {
    assertConfigured();
    return checkWithSchema(CspPolicyArgsSchema, news, 'CspPolicy', { multiline: ['expression'] });
  },

  async diff(_id, olds, news) {
    // A policy belongs to its zone: another zone is another policy. adoptPolicyId is read only at create.
    return diffFields(olds, news, DIFF);
  },

  async create(raw) {
    const inputs = raw as CspPolicyInputs;
    const { zoneId, adoptPolicyId } = inputs;
    const body = pickFields(inputs, CSP_POLICY_FIELDS);
    const client = getClient();
    const policy = await policyReads.writing(zoneId, () =>
      adoptPolicyId
        ? step(`${label(inputs, adoptPolicyId)}: adopting the policy`, async () => {
            // Read first, and write only what differs: adopting a policy already as declared changes nothing.
            const current = await unlessNotFound(() => client.cspPolicies.get({ zoneId, policyId: adoptPolicyId }), undefined);
            if (!current) {
              throw new ProviderError(
                `${label(inputs)}: adoptPolicyId ${adoptPolicyId} names no policy of this zone; ` +
                  'check the id (zoneguard export lists them) or remove adoptPolicyId to create a new policy',
              );
            }
            const changes = policyUpdateBody(current, inputs);
            return Object.keys(changes).length === 0
              ? current
              : client.cspPolicies.update({ zoneId, policyId: adoptPolicyId, ...changes });
          })
        : // One call, and never a policy found by its fields: identical policies are legitimate (two resources, two
          // stacks), and binding to one by a guess would let another resource's delete remove it (README, "Who owns what").
          step(`${label(inputs)}: creating the policy`, () => client.cspPolicies.create({ zoneId, ...body })),
    );
    return { id: policy.id, outs: outputsFromPolicy(zoneId, policy, adoptPolicyId) };
  },

  async read(id, props) {
    const { zoneId, adoptPolicyId } = props as CspPolicyOutputs;
    const policy = await step(`${label(props, id)}: reading the policy`, () => policyReads.read(zoneId, id));
    // Deleted out of band: a blank id takes the resource out of the state, and the next up creates it again.
    if (!policy) return { id: '' };
    const outs = outputsFromPolicy(zoneId, policy, adoptPolicyId);
    const { policyId: _policyId, ...inputs } = outs;
    return { id, props: outs, inputs };
  },

  async update(id, olds, news) {
    const desired = news as CspPolicyInputs;
    const body = policyUpdateBody(olds as CspPolicyOutputs, desired);
    const policy = await policyReads.writing(desired.zoneId, () =>
      step(`${label(desired, id)}: updating the policy`, () => getClient().cspPolicies.update({ zoneId: desired.zoneId, policyId: id, ...body })),
    );
    return { outs: outputsFromPolicy(desired.zoneId, policy, desired.adoptPolicyId) };
  },

  async delete(id, props) {
    const { zoneId } = props as CspPolicyOutputs;
    // Already gone is what delete wants: not an error.
    await policyReads.writing(zoneId, () =>
      step(`${label(props, id)}: deleting the policy`, () => unlessNotFound(() => getClient().cspPolicies.delete({ zoneId, policyId: id }), undefined)),
    );
  },
};
