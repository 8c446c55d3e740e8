import * as pulumi from '@pulumi/pulumi';
import { NAME_KEY, providerFor, TYPE_MODULE, type ResourceKind } from '../providers';

/**
 * What every zoneguard resource class does, so each class keeps only its own fields: it registers with its kind's
 * provider under the type token `zoneguard:<Kind>`, hands the provider its logical name (`NAME_KEY`, see
 * providers/kit/closure.ts), and declares the outputs the provider computes. The engine makes an `Output` property
 * only for a key among the registered properties, so an output that is not also an input is registered as undefined.
 */
export abstract class ZoneGuardResource extends pulumi.dynamic.Resource {
  /** The zone the resource belongs to. */
  declare readonly zoneId: pulumi.Output<string>;

  protected constructor(
    kind: ResourceKind,
    name: string,
    inputs: pulumi.Inputs & { zoneId: pulumi.Input<string> },
    outputs: readonly string[],
    opts?: pulumi.CustomResourceOptions,
  ) {
    const computed = Object.fromEntries(outputs.map((key) => [key, undefined]));
    super(providerFor(kind), name, { ...computed, ...inputs, [NAME_KEY]: name }, opts, TYPE_MODULE, kind);
  }
}
