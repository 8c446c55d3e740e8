import { randomBytes } from 'node:crypto';
import type { Implementation } from './kit/implementation';
import { ProviderError } from './kit/implementation';
import { assertSealOfStack } from './kit/seal';

/**
 * The provider of the stack's owner id (src/resources/stack-owner.ts, docs/ownership.md#owner-id): its create draws a
 * random id once per stack, and nothing else ever changes it. It makes no call to the service.
 */

/** Whether the engine runs with PULUMI_SKIP_CHECKPOINTS (read as Go's strconv.ParseBool reads it): it then writes the state at the end only. */
export function skipsCheckpoints(env: NodeJS.ProcessEnv): boolean {
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(env.PULUMI_SKIP_CHECKPOINTS ?? '');
}

/**
 * Why the owner id may not be drawn in this run, or undefined: with checkpoints skipped, a run killed before its end
 * saves nothing, so the id the objects' markers were made from would be lost, and the next run would see them as
 * another owner's. Pure.
 */
export function ownerIdRefusal(env: NodeJS.ProcessEnv): string | undefined {
  if (!skipsCheckpoints(env)) return undefined;
  return (
    "zoneguard: this stack's first up records its owner id (docs/ownership.md#owner-id), and PULUMI_SKIP_CHECKPOINTS is set, " +
    'so a run killed before its end would lose it; run this up once without PULUMI_SKIP_CHECKPOINTS, then skip checkpoints from the next up on'
  );
}

export const stackOwner: Implementation = {
  async configure() {},
  async check(_olds, news) {
    return { inputs: news };
  },
  // The gate of a sealed up (kit/seal.ts): every resource waits for this one's owner id, so a seal of another stack
  // stops the up here, before any resource registers.
  async diff(_id, olds) {
    assertSealOfStack(typeof olds.ownerId === 'string' ? olds.ownerId : null);
    return { changes: false };
  },
  async create() {
    assertSealOfStack(null);
    const refusal = ownerIdRefusal(process.env);
    if (refusal) throw new ProviderError(refusal);
    const ownerId = randomBytes(8).toString('hex');
    return { id: ownerId, outs: { ownerId } };
  },
  async read(id, props) {
    return { id, props };
  },
  async update(_id, olds) {
    return { outs: olds };
  },
  async delete() {},
};
