import type { CustomResource, CustomResourceOptions } from '@pulumi/pulumi';
import * as zoneguard from '../../src';
import type { ZoneGuardClient } from '../../src/client';
import { declarationOf, RESOURCE_KINDS, type ResourceKind } from '../../src/kinds';
import { readMigrationPlan } from '../../src/migration';
import { implementation, NAME_KEY } from '../../src/providers';

// One row per kind of the registry (src/kinds), for every per-kind test: the resource class, a valid sample of its
// inputs (its declaration's `example`), and how to make one against the emulator. A kind of the registry whose class
// the package's entry point (src/index.ts) does not export is a compile error here; only a kind that needs something
// made before its create, or whose class reshapes its inputs, has a row in SAMPLES.

/** The resource class of each kind, as the package exports it. */
export const CLASSES = Object.fromEntries(RESOURCE_KINDS.map((kind) => [kind, zoneguard[kind]])) as { [K in ResourceKind]: (typeof zoneguard)[K] };

/** The args of each kind's resource class. */
export type ClassArgs = { [K in ResourceKind]: ConstructorParameters<(typeof CLASSES)[K]>[1] };

/** What a kind's sample needs besides its declaration's example. */
export interface KindSample<K extends ResourceKind> {
  /** The args of the class that sends `inputs` (default: the inputs themselves). */
  args?(inputs: Record<string, unknown>): ClassArgs[K];
  /** Makes on the zone, over HTTP, what a create needs, and answers the inputs that name it. */
  prepare?(client: ZoneGuardClient, zoneId: string): Promise<Record<string, unknown>>;
}

export const SAMPLES: { [K in ResourceKind]?: KindSample<K> } = {
  FirewallRule: {
    // The second call of the two-call flow: its filter is made first.
    async prepare(client, zoneId) {
      const [filter] = await client.filters.create({ zoneId, filters: [{ expression: '(http.request.uri.path eq "/two-call")' }] });
      return { filterId: filter!.id };
    },
  },
  WafManagedRules: {
    // The class takes a list, which it sends keyed by ref (src/resources/waf-managed-rules.ts).
    args: ({ order, rules, ...rest }) => ({ ...rest, rules: (order as string[]).map((ref) => ({ ref, ...(rules as Record<string, object>)[ref] })) }) as ClassArgs['WafManagedRules'],
    // Only a zone that migrated has the entry point it manages: the migration's submission, as a WafMigration makes it.
    async prepare(client, zoneId) {
      const plan = await readMigrationPlan(client, zoneId);
      await client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
      return {};
    },
  },
};

/** The provider inputs of `kind`'s sample in `zoneId` (what its class sends): valid for its check, with no call made. */
export function sampleInputs(kind: ResourceKind, zoneId: string, made: Record<string, unknown> = {}): Record<string, unknown> {
  return { zoneId, ...declarationOf(kind).example, ...made };
}

/** The class args of `kind`'s sample in `zoneId`. */
export function sampleArgs<K extends ResourceKind>(kind: K, zoneId: string): ClassArgs[K] {
  const inputs = sampleInputs(kind, zoneId);
  const sample = SAMPLES[kind] as KindSample<K> | undefined;
  return sample?.args ? sample.args(inputs) : (inputs as unknown as ClassArgs[K]);
}

/** A resource of `kind` made by its class from `args`. */
export function constructSample<K extends ResourceKind>(kind: K, name: string, args: ClassArgs[K], opts?: CustomResourceOptions): CustomResource {
  const Class = CLASSES[kind] as unknown as new (name: string, args: ClassArgs[K], opts?: CustomResourceOptions) => CustomResource;
  return new Class(name, args, opts);
}

/** Creates one resource of `kind` in `zoneId` through its provider against the emulator: its prerequisites, check, create. */
export async function createSample(kind: ResourceKind, client: ZoneGuardClient, zoneId: string): Promise<{ kind: ResourceKind; id: string; outs: Record<string, unknown> }> {
  const made = (await SAMPLES[kind]?.prepare?.(client, zoneId)) ?? {};
  const provider = implementation(kind);
  const { inputs, failures } = await provider.check({}, { ...sampleInputs(kind, zoneId, made), [NAME_KEY]: kind.toLowerCase() });
  if (failures?.length) throw new Error(`the ${kind} sample fails its check: ${JSON.stringify(failures)}`);
  const { id, outs } = await provider.create(inputs as Record<string, unknown>);
  return { kind, id, outs: outs as Record<string, unknown> };
}
