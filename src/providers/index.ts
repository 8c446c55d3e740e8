// The implementations the stored provider closures load by package specifier (`pulumi-zoneguard/providers`).
import '../node-version'; // first: an unsupported Node fails here, saying what to install
import type { ResourceKind } from './kit/closure';
import type { Implementation } from './kit/implementation';
import { RESOURCE_KINDS, STACK_OWNER, declarationOf, type KindDeclaration } from '../kinds';
import { ownershipSpec, withOwnership } from './kit/ownership';
import { withOwnerMarker } from './kit/marker';
import { LEGACY_FIREWALL_KINDS, withConversion } from './kit/conversion';
import { isDynamicProviderHost, quietHostEchoes, withEngineRecords, withQuietFailures } from './kit/context';
import { stackOwner as stackOwnerHandlers } from './stack-owner';
import { withSeal } from './kit/seal';

/**
 * The module of a kind's handlers, by the one name through every layer (docs/CONTRACTS.md#names): `<kind-file>.ts`
 * beside this one, exporting them as `<kind>` in camel case (`FirewallRule`: `./firewall-rule`, `firewallRule`).
 * Loaded on first use, so a program that only declares resources never loads a provider's code, and a kind is added
 * here by adding its file: test/support/kind-samples.test.ts fails on a kind of the registry without one.
 */
function handlersModule(kind: ResourceKind): { file: string; name: string } {
  return { file: `./${kind.replace(/(?<=.)[A-Z]/g, (letter) => `-${letter}`).toLowerCase()}`, name: kind.charAt(0).toLowerCase() + kind.slice(1) };
}

/**
 * A kind's handlers behind the wrappers, outermost first (docs/CONTRACTS.md#the-providers-kit): the engine's records
 * and failures (kit/context.ts), the seal the up keeps (kit/seal.ts), the ownership guard (kit/ownership.ts), the move
 * off the legacy firewall rules (kit/conversion.ts), the owner marker (kit/marker.ts); each takes what it needs from
 * the kind's declaration.
 */
function load(kind: ResourceKind): Implementation {
  const { file, name } = handlersModule(kind);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module named by the kind, loaded on first use (above)
  const handlers = (require(file) as Record<string, Implementation | undefined>)[name];
  if (!handlers) throw new Error(`zoneguard: src/providers/${file.slice(2)}.ts exports no ${name}: the handlers of ${kind}`);
  const declaration = declarationOf(kind);
  const own = marked(declaration, handlers);
  // The move off the legacy firewall rules (kit/conversion.ts): a legacy resource's delete on a converted zone.
  const moved = LEGACY_FIREWALL_KINDS.includes(kind) ? withConversion(kind, own) : own;
  return withEngineRecords(kind, withSeal(kind, withOwnership(kind, moved, ownershipSpec(declaration))));
}

/** A kind's handlers with its owner marker on every object, where its declaration gives the marked field (kit/marker.ts). */
function marked(declaration: KindDeclaration<ResourceKind>, impl: Implementation): Implementation {
  const { marker, markerMax, scope } = declaration.identity;
  return marker === 'none' || scope === 'zone' || markerMax === undefined ? impl : withOwnerMarker(declaration, impl, markerMax);
}

const loaded = new Map<ResourceKind, Implementation>();
const stackOwner = withQuietFailures(stackOwnerHandlers);

/**
 * The implementation of one resource kind; throws for a kind this version does not know. Its reported failures
 * reach the user once, as one line on the resource (kit/context.ts `withQuietFailures`).
 */
export function implementation(kind: ResourceKind | typeof STACK_OWNER): Implementation {
  if (isDynamicProviderHost()) quietHostEchoes();
  // The resource that keeps the stack's owner id (providers/stack-owner.ts): no kind, no object of the service.
  if (kind === STACK_OWNER) return stackOwner;
  // The kind comes from a stored closure, maybe written by another version: look it up as any string.
  if (!RESOURCE_KINDS.includes(kind)) {
    throw new Error(`zoneguard: no provider implementation for ${kind} in this version of pulumi-zoneguard`);
  }
  let wrapped = loaded.get(kind);
  if (!wrapped) loaded.set(kind, (wrapped = load(kind)));
  return wrapped;
}

export { NAME_KEY, providerText, RESOURCE_KINDS, TYPE_MODULE, type ResourceKind } from './kit/closure';
// Pure: `zoneguard export` declares a migrated zone's entry point with them; the resource class shapes its rules.
