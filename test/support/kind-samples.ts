import type { CustomResource, CustomResourceOptions } from '@pulumi/pulumi';
import type { ZoneGuardClient } from '../../src/client';
import type { ResourceKind } from '../../src/kinds';
import { readMigrationPlan } from '../../src/migration';
import { implementation, NAME_KEY } from '../../src/providers';
import { rulesByRef } from '../../src/rulesets';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallFilter } from '../../src/resources/firewall-filter';
import { FirewallRule } from '../../src/resources/firewall-rule';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import { WafManagedRules } from '../../src/resources/waf-managed-rules';
import { WafMigration } from '../../src/resources/waf-migration';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';

// One row per kind of the registry (src/kinds), for every per-kind test: the resource class, a valid sample of its
// inputs, and how to make one against the emulator. Each table is a Record over ResourceKind, so a kind added to the
// registry without its row here is a compile error, and test/support/kind-samples.test.ts fails on a row missing at
// run time.

/** The resource class of each kind. */
export const CLASSES = {
  PageGuardSettings,
  CspPolicy,
  FirewallRuleWithFilter,
  FirewallFilter,
  FirewallRule,
  WafMigration,
  WafManagedRules,
} satisfies Record<ResourceKind, unknown>;

/** The args of each kind's resource class. */
export type ClassArgs = { [K in ResourceKind]: ConstructorParameters<(typeof CLASSES)[K]>[1] };

/** A filter id of the right shape that names nothing: for inputs that are only checked, never sent. */
export const SAMPLE_FILTER_ID = 'b0e7337e95bc424b303e1bd1243c6b44';

/** What a kind needs made on its zone before one of it can be created there (a filter for a rule by id). */
export interface Prerequisites {
  filterId: string;
}

/** One kind's sample. */
export interface KindSample<K extends ResourceKind> {
  /** Valid args of the class in `zoneId`, as plain values. */
  args(zoneId: string, made: Prerequisites): ClassArgs[K];
  /** What the class sends its provider for `args` (the class's inputs, unless it reshapes them). */
  inputs?(args: ClassArgs[K]): Record<string, unknown>;
  /** Makes on the zone, over HTTP, what a create needs, before one is created there. */
  prepare?(client: ZoneGuardClient, zoneId: string): Promise<Partial<Prerequisites>>;
}

export const SAMPLES: { [K in ResourceKind]: KindSample<K> } = {
  PageGuardSettings: { args: (zoneId) => ({ zoneId, enabled: true }) },
  CspPolicy: { args: (zoneId) => ({ zoneId, action: 'log', expression: 'http.host eq "shop.example.com"', value: "script-src 'self'" }) },
  FirewallRuleWithFilter: { args: (zoneId) => ({ zoneId, expression: '(http.request.uri.path eq "/admin")', action: 'block' }) },
  FirewallFilter: { args: (zoneId) => ({ zoneId, expression: '(http.request.uri.path eq "/admin")' }) },
  FirewallRule: {
    args: (zoneId, made) => ({ zoneId, filterId: made.filterId, action: 'block' }),
    // The second call of the two-call flow: its filter is made first.
    async prepare(client, zoneId) {
      const [filter] = await client.filters.create({ zoneId, filters: [{ expression: '(http.request.uri.path eq "/two-call")' }] });
      return { filterId: filter!.id };
    },
  },
  WafMigration: { args: (zoneId) => ({ zoneId, mode: 'direct', wait: { timeoutSeconds: 5, pollIntervalSeconds: 0.02 } }) },
  WafManagedRules: {
    args: (zoneId) => ({ zoneId, rules: [{ ref: 'managed', execute: { rulesetId: MANAGED_RULESET_ID } }] }),
    // The class sends its list keyed by ref (src/resources/waf-managed-rules.ts).
    inputs: ({ rules, ...rest }) => ({ ...rest, ...rulesByRef(rules as Parameters<typeof rulesByRef>[0]) }),
    // Only a zone that migrated has the entry point it manages: the migration's submission, as a WafMigration makes it.
    async prepare(client, zoneId) {
      const plan = await readMigrationPlan(client, zoneId);
      await client.wafMigration.updateEntrypoint({ zoneId, mode: 'pending', ruleset: plan.ruleset! });
      return {};
    },
  },
};

/** The class args of `kind`'s sample in `zoneId`; with no prerequisites made, a filter id that names nothing. */
export function sampleArgs<K extends ResourceKind>(kind: K, zoneId: string, made: Prerequisites = { filterId: SAMPLE_FILTER_ID }): ClassArgs[K] {
  return (SAMPLES[kind] as KindSample<K>).args(zoneId, made);
}

/** The provider inputs of `kind`'s sample in `zoneId` (what its class sends): valid for its check, with no call made. */
export function sampleInputs(kind: ResourceKind, zoneId: string, made?: Prerequisites): Record<string, unknown> {
  const sample = SAMPLES[kind] as KindSample<ResourceKind>;
  const args = sampleArgs(kind, zoneId, made);
  return sample.inputs ? sample.inputs(args) : { ...args };
}

/** A resource of `kind` made by its class from `args`. */
export function constructSample<K extends ResourceKind>(kind: K, name: string, args: ClassArgs[K], opts?: CustomResourceOptions): CustomResource {
  const Class = CLASSES[kind] as unknown as new (name: string, args: ClassArgs[K], opts?: CustomResourceOptions) => CustomResource;
  return new Class(name, args, opts);
}

/** Creates one resource of `kind` in `zoneId` through its provider against the emulator: its prerequisites, check, create. */
export async function createSample(kind: ResourceKind, client: ZoneGuardClient, zoneId: string): Promise<{ kind: ResourceKind; id: string; outs: Record<string, unknown> }> {
  const made = { filterId: SAMPLE_FILTER_ID, ...(await SAMPLES[kind].prepare?.(client, zoneId)) };
  const provider = implementation(kind);
  const { inputs, failures } = await provider.check({}, { ...sampleInputs(kind, zoneId, made), [NAME_KEY]: kind.toLowerCase() });
  if (failures?.length) throw new Error(`the ${kind} sample fails its check: ${JSON.stringify(failures)}`);
  const { id, outs } = await provider.create(inputs as Record<string, unknown>);
  return { kind, id, outs: outs as Record<string, unknown> };
}
