import type { ResourceKind, STACK_OWNER } from '../../kinds';

export { RESOURCE_KINDS, TYPE_MODULE, type ResourceKind } from '../../kinds';

/**
 * The input (and output) that carries a resource's logical name to its provider. The dynamic provider host of
 * @pulumi/pulumi (cmd/dynamic-provider, 3.259 to 3.276) hands create, read, update and delete the id and the
 * properties only, never the URN, so the resource classes add their name to the inputs and the provider keeps it in
 * the outputs (kit/ownership.ts). Never validated, never diffed: a rename with `aliases` stays a no-op. Not `__name`:
 * the SDK's Resource keeps its name there, and an input of that name fails the construction ("Property '__name' is
 * already initialized").
 */
export const NAME_KEY = '__zoneguardName';

export { MARKER_KEY, MOVED_FROM_KEY, OWNER_ID_KEY, OWNER_KEY } from '../../kinds/marker';

/**
 * The provider the engine stores, as source text, in the state of every resource of one kind, twice (its inputs and
 * its outputs, `__provider`): a CommonJS module whose `handler` returns the kind's implementation, loaded by package
 * specifier in the provider process. The dynamic provider host runs `require-from-string` on it, calls `handler()`,
 * then `configure` once, before any other method (cmd/dynamic-provider of @pulumi/pulumi). So no client, schema or
 * credential is stored, the text is the same for tests and consumers, and a fixed implementation reaches the deletes
 * of old state. Written here rather than serialized from a closure: the serializer's wrapping made each copy about
 * 1 KB, half of a resource's state, where this is under 100 bytes (issue 27). A literal `require`: the host resolves
 * the specifier from the program's node_modules. No space, semicolon or line break it can do without: 6 characters
 * shorter than the text since a3d199a (`exports.handler = () => ...;\n`), 7 bytes a copy in the state's JSON (which
 * escapes a line break as two), and stacks made with that one keep it in their outputs until the engine writes the
 * resource again (the host loads either: one configured copy each).
 *
 * Stacks made before keep the serialized closure in their state until the engine writes the resource again: it loads
 * the same implementation (after asserting the host called `configure` first), and no diff compares `__provider`, so
 * a preview of such a stack with this version shows no change (test/e2e/upgrade.test.ts).
 */
export function providerText(kind: ResourceKind | typeof STACK_OWNER): string {
  return `exports.handler=()=>require('pulumi-zoneguard/providers').implementation(${JSON.stringify(kind)})`;
}

