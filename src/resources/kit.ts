import * as pulumi from '@pulumi/pulumi';
import { propertiesOf, declarationOf, typeToken } from '../kinds';
import { MOVED_FROM_KEY, OWNER_ID_KEY, OWNER_KEY, movedMarkers, ownerMarker } from '../kinds/marker';
import { NAME_KEY, providerText, type ResourceKind } from '../providers';
import { PREVIEW_KEY } from '../unknown';
import { stackOwnerId } from './stack-owner';

/**
 * What every zoneguard resource registers, so each class keeps only its own fields: the type token
 * `pulumi-nodejs:dynamic/zoneguard:<Kind>` with its kind's provider text (`__provider`, providers/kit/closure.ts), as
 * pulumi.dynamic.Resource does with a closure it serializes, the provider's view of its logical name (`NAME_KEY`) and
 * its owner marker (`OWNER_KEY`: a digest of the stack's owner id, project, stack, parent URN, kind and name,
 * src/kinds/marker.ts) with that owner id (`OWNER_ID_KEY`, src/resources/stack-owner.ts, on which it thus depends), in a
 * preview the key that says so (`PREVIEW_KEY`, src/unknown.ts), and
 * every property of its kind's declaration (src/kinds). The engine makes an `Output` property only for a key among the
 * registered properties, so every property is registered, as undefined where the program gives no input (an undefined
 * input is not sent, so this changes nothing the engine stores).
 *
 * The arguments of pulumi.CustomResource's constructor, which each class passes to `super` itself: @pulumi/pulumi
 * records as the resource's source position the frame below the first constructor under CustomResource, and the
 * stack below it in the state. With no constructor of ours between the class and CustomResource, that position is
 * the user's `new`, not a line of ours, and the stack trace the state keeps holds no frame of our classes (BENCHMARKS.md, the
 * growth bench: a frame is about 100 bytes of each resource's state entry).
 */
export function registration(
  kind: ResourceKind,
  name: string,
  inputs: pulumi.Inputs & { zoneId: pulumi.Input<string> },
  opts?: pulumi.CustomResourceOptions,
): [type: string, name: string, props: pulumi.Inputs, opts: pulumi.CustomResourceOptions | undefined] {
  const computed = Object.fromEntries(propertiesOf(declarationOf(kind)).map((key) => [key, undefined]));
  const parent = opts?.parent ? opts.parent.urn : '';
  const ownerId = stackOwnerId();
  const identity = pulumi
    .all([parent, ownerId])
    .apply(([urn, id]) => ({ ownerId: id, project: pulumi.getProject(), stack: pulumi.getStack(), parent: urn, name }));
  const owner = identity.apply((who) => ownerMarker({ ...who, kind }));
  // A CustomRule may replace a firewall resource of its name in a move: the markers that one holds (src/kinds/marker.ts).
  const moved = kind === 'CustomRule' ? { [MOVED_FROM_KEY]: identity.apply(movedMarkers) } : {};
  // A preview says so to the provider (PREVIEW_KEY), whose check takes it out again.
  const preview = pulumi.runtime.isDryRun() ? { [PREVIEW_KEY]: true } : {};
  return [
    typeToken(kind),
    name,
    { ...computed, ...inputs, [NAME_KEY]: name, [OWNER_KEY]: owner, [OWNER_ID_KEY]: ownerId, ...moved, ...preview, __provider: providerText(kind) },
    opts,
  ];
}

/**
 * The outputs every zoneguard resource has. No constructor: each class calls CustomResource's with
 * {@link registration}, so no frame of ours sits between the user's `new` and CustomResource.
 */
export abstract class ZoneGuardResource extends pulumi.CustomResource {
  /** The zone the resource belongs to. */
  declare readonly zoneId: pulumi.Output<string>;
}
