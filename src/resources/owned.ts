import type * as pulumi from '@pulumi/pulumi';
import { ZoneGuardResource } from './kit';

/** The input of every kind whose objects carry an owner marker and can be adopted by id (docs/ownership.md). */
export interface TakeOverArgs {
  /** With the adopt input: take over an object whose owner marker names another owner (another stack, or another
   * resource): the marker moves to this resource, and the old owner's delete then leaves the object
   * (docs/ownership.md#take-over). Read only at create. */
  takeOver?: pulumi.Input<boolean>;
}

/** A resource of such a kind. */
export abstract class OwnedResource extends ZoneGuardResource {
  /** Whether the create took the object over from another owner's marker (docs/ownership.md#take-over). */
  declare readonly takeOver: pulumi.Output<boolean | undefined>;
}
