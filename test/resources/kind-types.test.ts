// Type tests of the resource classes against the kind registry (src/kinds) and the declarations' args schemas: each
// class's Args, unwrapped of pulumi.Input, is exactly what its provider's `check` takes (the schema's input), and its
// declared Output properties are exactly its kind's declared properties (propertiesOf). `tsc` and ts-jest fail this
// file on a mismatch; the runtime half (an Output for every property under the SDK's mocks) is in
// test/providers/resource-classes.test.ts.
import type * as pulumi from '@pulumi/pulumi';
import type { z } from 'zod';
import { declarationOf, propertiesOf, RESOURCE_KINDS, type Declarations, type ResourceKind } from '../../src/kinds';
import type { rulesByRef } from '../../src/rulesets';
import { CLASSES, type ClassArgs } from '../support/kind-samples';

/** true when A and B are the same type (optional keys, readonly and all), false otherwise. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when every kind's entry is `true`; a failure names the kind (`Types of property 'CspPolicy' are incompatible`). */
const everyKind = <T extends { [K in ResourceKind]: true }>(): T => ({}) as T;

/** Each kind's args schema, as its provider's `check` validates the inputs: its declaration's. */
type ArgsSchemas = { [K in ResourceKind]: Declarations[K]['args'] };

/**
 * What a class sends its provider for its Args, unwrapped: the Args themselves, except that WafManagedRules shapes its
 * list of rules into `order` and `rules` keyed by ref (rulesByRef), so the engine's diff names a rule by its ref.
 */
type Sent<K extends ResourceKind> = K extends 'WafManagedRules'
  ? Omit<pulumi.Unwrap<ClassArgs[K]>, 'rules'> & ReturnType<typeof rulesByRef>
  : pulumi.Unwrap<ClassArgs[K]>;
/** An object type's keys and values as a plain mapped type, so an intersection compares equal to the object it makes. */
type Flat<T> = { [P in keyof T]: T[P] };

/** Per kind: whether what its class sends is exactly its schema's input. */
type ArgsMatch = { [K in ResourceKind]: Equal<Flat<Sent<K>>, Flat<z.input<ArgsSchemas[K]>>> };
everyKind<ArgsMatch>();

/** The keys of a resource class whose values are Outputs, other than the SDK's own `id` and `urn`. */
type OutputKeys<R> = Exclude<{ [P in keyof R]-?: R[P] extends pulumi.Output<unknown> ? P : never }[keyof R], 'id' | 'urn'>;
/** A kind's declared properties as a union of names: its inputs and its computed outputs (propertiesOf, in types). */
type DeclaredProperties<K extends ResourceKind> = Declarations[K]['fields'][number]['input'] | Declarations[K]['outputs'][number];

/** Per kind: whether its class's Output properties are exactly its declared properties. */
type PropertiesMatch = { [K in ResourceKind]: Equal<OutputKeys<InstanceType<(typeof CLASSES)[K]>>, DeclaredProperties<K>> };
everyKind<PropertiesMatch>();

// The types above are the test; this ties them to the values the registry holds, so the type-level names and
// propertiesOf cannot part.
test.each(RESOURCE_KINDS)('%s: propertiesOf lists each declared property once', (kind) => {
  const properties = propertiesOf(declarationOf(kind));
  expect(new Set(properties).size).toBe(properties.length);
  expect(properties).toEqual([...declarationOf(kind).fields.map((field) => field.input), ...declarationOf(kind).outputs]);
});
