import * as pulumi from '@pulumi/pulumi';
import { STACK_OWNER, STACK_OWNER_TYPE } from '../kinds';
import { providerText } from '../providers';

/**
 * The stack's owner id (docs/ownership.md#owner-id): a random id drawn once, at the stack's first up, and kept in its
 * state by one resource, `zoneguard-owner`, that every zoneguard resource of the program depends on. The owner
 * markers are made from it, so two stacks are one owner only when they are one stack: two of the same project and
 * stack names on two backends (copied from one template) draw two ids. It makes no call to the service.
 */
class StackOwner extends pulumi.CustomResource {
  declare readonly ownerId: pulumi.Output<string>;
}

/** The logical name of the owner id's resource: one per stack, top level. */
export const STACK_OWNER_NAME = 'zoneguard-owner';

// One per run of the program: inline programs of the Automation API run many stacks in one process, each its own
// stack resource.
const perRun = new WeakMap<object, pulumi.Output<string>>();
const outsideStack = {};

/** The owner id of the stack the program runs in, registering its resource on first use in the run. */
export function stackOwnerId(): pulumi.Output<string> {
  const run = pulumi.runtime.getStackResource() ?? outsideStack;
  let id = perRun.get(run);
  if (!id) {
    const owner = new StackOwner(STACK_OWNER_TYPE, STACK_OWNER_NAME, { ownerId: undefined, __provider: providerText(STACK_OWNER) });
    id = owner.ownerId;
    perRun.set(run, id);
  }
  return id;
}
