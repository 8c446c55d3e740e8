import * as pulumi from '@pulumi/pulumi';
import { propertiesOf, declarationOf, typeToken } from '../kinds';
import { OWNER_KEY, ownerMarker } from '../kinds/marker';
import { NAME_KEY, providerText, type ResourceKind } from '../providers';

/**
 * What every zoneguard resource class does, so each class keeps only its own fields: it registers under the type
 * token `pulumi-nodejs:dynamic/zoneguard:<Kind>` with its kind's provider text (`__provider`, providers/kit/closure.ts),
 * as pulumi.dynamic.Resource does with a closure it serializes, hands the provider its logical name (`NAME_KEY`) and
 * its owner marker (`OWNER_KEY`: a digest of project, stack, parent URN, kind and name, src/kinds/marker.ts), and
 * declares every property of its kind's declaration (src/kinds). The engine makes an
 * `Output` property only for a key among the registered properties, so every property is registered, as undefined
 * where the program gives no input (an undefined input is not sent, so this changes nothing the engine stores).
 */
export abstract class ZoneGuardResource extends pulumi.CustomResource {
  /** The zone the resource belongs to. */
  declare readonly zoneId: pulumi.Output<string>;

  protected constructor(
    kind: ResourceKind,
    name: string,
    inputs: pulumi.Inputs & { zoneId: pulumi.Input<string> },
    opts?: pulumi.CustomResourceOptions,
  ) {
    const computed = Object.fromEntries(propertiesOf(declarationOf(kind)).map((key) => [key, undefined]));
    const parent = opts?.parent ? opts.parent.urn : '';
    const owner = pulumi.output(parent).apply((urn) => ownerMarker({ project: pulumi.getProject(), stack: pulumi.getStack(), parent: urn, kind, name }));
    super(typeToken(kind), name, { ...computed, ...inputs, [NAME_KEY]: name, [OWNER_KEY]: owner, __provider: providerText(kind) }, opts);
  }
}
