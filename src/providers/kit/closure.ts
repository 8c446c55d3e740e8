import type * as pulumi from '@pulumi/pulumi';

/** The resource types of zoneguard; the last part of each type token `pulumi-nodejs:dynamic/zoneguard:<Kind>`. */
export type ResourceKind = 'PageGuardSettings' | 'CspPolicy' | 'FirewallRuleWithFilter' | 'WafMigration';

/** Module part of every type token. Changing it would change every URN. */
export const TYPE_MODULE = 'zoneguard';

const providers = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/**
 * The provider object the engine stores, as source text, in the state of every resource of one kind. It captures
 * nothing but the kind's name: each method requires the implementation by package specifier in the provider
 * process. So no client, schema or credential is serialized, the text stays small and identical for tests and
 * consumers, and a fixed implementation reaches the deletes of old state. One object per kind, because the engine
 * caches the serialized text per object.
 */
export function providerFor(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(kind);
  if (!provider) {
    // A literal require (not import()): the closure serializer leaves `require` alone, and the host resolves the
    // specifier from the program's node_modules.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const load = () => require('pulumi-zoneguard/providers').implementation(kind);
    provider = {
      configure: (req) => load().configure(req),
      check: (olds, news) => load().check(olds, news),
      diff: (id, olds, news) => load().diff(id, olds, news),
      create: (inputs) => load().create(inputs),
      read: (id, props) => load().read(id, props),
      update: (id, olds, news) => load().update(id, olds, news),
      delete: (id, props) => load().delete(id, props),
    };
    providers.set(kind, provider);
  }
  return provider;
}
