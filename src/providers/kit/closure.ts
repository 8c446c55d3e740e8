import type * as pulumi from '@pulumi/pulumi';
import type { ResourceKind } from '../../kinds';

export { RESOURCE_KINDS, TYPE_MODULE, type ResourceKind } from '../../kinds';

/**
 * The input (and output) that carries a resource's logical name to its provider. The dynamic provider host of
 * @pulumi/pulumi 3.259 (cmd/dynamic-provider) hands create, read, update and delete the id and the properties only,
 * never the URN, so the resource classes add their name to the inputs and the provider keeps it in the outputs
 * (kit/ownership.ts). Never validated, never diffed: a rename with `aliases` stays a no-op. Not `__name`: the SDK's
 * Resource keeps its name there, and an input of that name fails the construction ("Property '__name' is already
 * initialized").
 */
export const NAME_KEY = '__zoneguardName';

export { MARKER_KEY, OWNER_KEY } from '../../kinds/marker';

const providers = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/**
 * The provider object the engine stores, as source text, in the state of every resource of one kind. It captures
 * nothing but the kind's name and loads the implementation by package specifier in the provider process. So no
 * client, schema or credential is serialized, the text is the same for tests and consumers, and a fixed
 * implementation reaches the deletes of old state. One object per kind, because the engine caches the serialized
 * text per object.
 *
 * Every method is the same small function, so the text stays far under 2 KB (the serializer wraps each distinct
 * function in about 170 bytes; seven would not fit). The dynamic provider host calls `configure` first, once per
 * deserialized provider, before any other method: that first call replaces the methods with the implementation's
 * and then configures it. A host that called another method first gets an error saying so, never a wrong call.
 */
export function providerFor(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(kind);
  if (!provider) {
    // Comments stay outside the function: its body is stored in the state. A literal require (not import()): the
    // serializer leaves `require` alone, and the host resolves the specifier from the program's node_modules.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const load = async function (this: Record<string, unknown>, ...args: unknown[]) {
      const request = args[0] as { config?: { get?: unknown } } | undefined;
      if (args.length !== 1 || typeof request?.config?.get !== 'function') {
        throw new Error('zoneguard: the dynamic provider host called a method before configure; use @pulumi/pulumi >= 3.259');
      }
      Object.assign(this, require('pulumi-zoneguard/providers').implementation(kind));
      return (this.configure as (...a: unknown[]) => Promise<void>)(...args);
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
    provider = { configure: load, check: load, diff: load, create: load, read: load, update: load, delete: load } as unknown as pulumi.dynamic.ResourceProvider;
    providers.set(kind, provider);
  }
  return provider;
}
