/**
 * What a resource kind is, written once: its name, its fields, the outputs the provider computes, and who it is to
 * the service (what object it holds, how it is found, where its owner is recorded). The providers, the resource
 * classes, `zoneguard export` and `zoneguard orphans` and every per-kind test derive their per-kind parts from the
 * registry of these (src/kinds/index.ts). Pure data: no client, no Pulumi, so every layer above src/schemas may read it.
 */
import type { z } from 'zod';

/**
 * How a change of one input reaches the service:
 * - `update`: in place, by the kind's update;
 * - `replace`: a new object (create, then delete the old one; `deleteBeforeReplace` kinds the other way round);
 * - `refused`: never changed; `check` refuses a new value and says what to do (a one-way migration's zone);
 * - `create`: read only when the object is created (an adopt…Id), never a change;
 * - `state`: how the provider works, kept in the state only (a wait's bounds, restoreOnDelete), never a change.
 */
export type FieldChange = 'update' | 'replace' | 'refused' | 'create' | 'state';

/** One input of a kind: its name in the program, where it goes on the wire (docs/service.md), and how a change applies. */
export interface Field<I extends string = string> {
  input: I;
  /** The wire field (dotted for a nested one), the path parameter `zone_id`, or '' for what never goes on the wire. */
  wire: string;
  change: FieldChange;
  /** The value a body sends for the input, when it is not the input as declared (undefined: left out), given every input (src/kinds/wire.ts). */
  toWire?: (value: unknown, inputs: Readonly<Record<string, unknown>>) => unknown;
  /** The input an answer's value reads as, when it is not the value as the service holds it (undefined: absent), given the whole answer. */
  fromWire?: (value: unknown, answer: Readonly<Record<string, unknown>>) => unknown;
}

/**
 * The service objects a resource can hold. Two kinds that hold the same object type hold the same objects (a firewall
 * rule is one object whether a FirewallRule or a FirewallRuleWithFilter holds it).
 */
export type ObjectType = 'pageGuardSettings' | 'cspPolicy' | 'firewallRule' | 'filter' | 'wafMigration' | 'managedEntrypoint' | 'rulesetRule';

/**
 * Where the service lets a client record who owns an object: a rule's or filter's `ref`, a policy's or ruleset's
 * `description`, or nowhere (`none`: the page security settings and the migration have no free field).
 */
export type MarkerPlace = 'ref' | 'description' | 'none';

/** Who a kind is to the service. */
export interface Identity {
  /** The object a resource of the kind holds. */
  object: ObjectType;
  /**
   * `zone`: one object per zone, the zone's id is the resource's id and a create takes the zone's object over;
   * `object`: many per zone, each with the id the service assigns.
   */
  scope: 'zone' | 'object';
  /** The output that holds the service's id (`object` scope only). */
  idOutput?: string;
  /** The input that takes over an existing object instead of creating one (`object` scope only). */
  adoptInput?: string;
  /** What the object is called in messages: `policy`, `firewall rule`. */
  noun: string;
  /** Where the owner marker of the object is recorded (src/kinds/marker.ts). */
  marker: MarkerPlace;
  /** The service's longest text of the marked field: the user's own text may hold this less the marker's room. */
  markerMax?: number;
  /**
   * An object the resource owns besides its own, by the output that holds its id and where its object's answer holds
   * it: a single-call rule's filter.
   */
  owns?: { object: ObjectType; output: string; wire: string };
  /** The phase whose entry point holds the object (a ruleset rule's: two kinds make the same object type). */
  phase?: string;
}

/** A resource kind's declaration. `K` is its name, the last part of its type token `zoneguard:<K>`. */
export interface KindDeclaration<K extends string = string, I extends string = string, O extends string = string, A extends z.ZodType = z.ZodType> {
  kind: K;
  /**
   * Its inputs as the provider's `check` validates them (defaults filled in); the resource class's `Args` are its
   * input, unwrapped of `pulumi.Input` (test/resources/kind-types.test.ts).
   */
  args: A;
  /** Every input, in the order a reader expects them. */
  fields: readonly Field<I>[];
  /** The outputs that are not inputs: the provider computes them. */
  outputs: readonly O[];
  identity: Identity;
  /** Whether a replacement deletes the old object before it creates the new one (one object per zone). */
  deleteBeforeReplace?: boolean;
  /**
   * Valid inputs other than the zone, as the provider takes them, that check accepts without a request: the row of
   * every per-kind test (test/support/kind-samples.ts).
   */
  example: Readonly<Omit<z.input<A>, 'zoneId'>>;
  /**
   * How `zoneguard orphans` recognises the object a pending create made (`object` scope only): the inputs the create
   * sent that the object holds as sent, compared under their wire names (the field table).
   */
  createdWith?: readonly I[];
}

/** The declaration of kind `kind`, with its literal types kept. */
export function declareKind<const K extends string, const I extends string, const O extends string, A extends z.ZodType>(
  kind: K,
  declaration: Omit<KindDeclaration<K, I, O, A>, 'kind'>,
): KindDeclaration<K, I, O, A> {
  return { kind, ...declaration };
}

/** The zone an object belongs to: the path parameter `zone_id`. */
export const zoneField = <C extends FieldChange>(change: C) => ({ input: 'zoneId', wire: 'zone_id', change }) as const;

/** Inputs that change in place and go on the wire under the same name. */
export const inPlace = <const I extends string>(...inputs: I[]): Field<I>[] => inputs.map((input) => ({ input, wire: input, change: 'update' }));

/** An input read only at create, never sent as a field (an adopt…Id). */
export const createOnly = <const I extends string>(input: I): Field<I> => ({ input, wire: '', change: 'create' });

/** The inputs of an adoption, both read only at create: the adopt…Id, and `takeOver` for an object another owner marked. */
export const adoption = <const I extends string>(input: I) => [createOnly(input), createOnly('takeOver')] as const;

/** The inputs whose change the diff reports, and those of them that replace: what `diffFields` compares. */
export function diffPlan<I extends string>(
  declaration: KindDeclaration<string, I, string, z.ZodType>,
): { fields: I[]; replace: I[]; deleteBeforeReplace: boolean } {
  const compared = declaration.fields.filter((field) => field.change === 'update' || field.change === 'replace' || field.change === 'refused');
  return {
    fields: compared.map((field) => field.input),
    replace: compared.filter((field) => field.change === 'replace').map((field) => field.input),
    deleteBeforeReplace: declaration.deleteBeforeReplace === true,
  };
}

/** Every property a resource of the kind has: its inputs, then the outputs the provider computes. */
export function propertiesOf(declaration: KindDeclaration): string[] {
  return [...declaration.fields.map((field) => field.input), ...declaration.outputs];
}

/** The value at a field's wire path in an object as the service answers it (`filter.expression`); undefined where absent. */
export function wireValue(object: unknown, wire: string): unknown {
  return wire
    .split('.')
    .reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), object);
}
