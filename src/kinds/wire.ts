/**
 * A kind's wire, derived from its field table (src/kinds/declaration.ts): the request body of its inputs, the inputs
 * an object of the service holds, and a resource's outputs from the object. The field table says where each input goes
 * and how it converts; the args schema says what an input absent from an answer reads as (its default). Pure.
 */
import type { z } from 'zod';
import { wireValue, type Field, type KindDeclaration } from './declaration';

/** A declaration, whatever its literal types. */
type AnyKind = KindDeclaration<string, string, string, z.ZodType>;
type InputOf<D extends AnyKind> = D['fields'][number]['input'];

/** The inputs of kind `D` as its `check` validates them. */
export type InputsOf<D extends AnyKind> = z.output<D['args']>;
/** The outputs of a resource of kind `D`: its inputs as the service holds them, and the ids the service assigned. */
export type OutputsOf<D extends AnyKind> = InputsOf<D> & { [O in D['outputs'][number]]: string };

/**
 * The fields that are the object's own on the wire: sent in its bodies and read back from its answers. Not the zone
 * (the path), nor what is read only at create or kept in the state.
 */
export function wireFields<D extends AnyKind>(declaration: D): Field<Exclude<InputOf<D>, 'zoneId'>>[] {
  return declaration.fields.filter(
    (field): field is Field<Exclude<InputOf<D>, 'zoneId'>> =>
      field.wire !== '' && field.wire !== 'zone_id' && (field.change === 'update' || field.change === 'replace'),
  );
}

/** Sets `value` at a dotted wire path of `body`, making the objects on the way. */
function setWireValue(body: Record<string, unknown>, wire: string, value: unknown): void {
  const keys = wire.split('.');
  const last = keys.pop()!;
  let at = body;
  for (const key of keys) {
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[last] = value;
}

/**
 * The request body of `inputs`: each wire field (`only` those, when given) at its wire path, as its `toWire` converts
 * it; a value that is undefined is left out (an optional flag not declared, products without bypass).
 */
export function bodyOf<D extends AnyKind>(declaration: D, inputs: Partial<Record<InputOf<D>, unknown>>, only?: readonly InputOf<D>[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of wireFields(declaration)) {
    if (only && !only.includes(field.input)) continue;
    const value = field.toWire ? field.toWire(inputs[field.input], inputs) : inputs[field.input];
    if (value !== undefined) setWireValue(body, field.wire, value);
  }
  return body;
}

/**
 * `bodyOf`, typed as the request schema `schema` takes it: the field table puts each input where that schema has it,
 * which test/kinds/wire.test.ts holds by parsing each kind's body with its schema (the one cast of bodies).
 */
export function requestOf<S extends z.ZodType, D extends AnyKind>(
  schema: S,
  declaration: D,
  inputs: Partial<Record<InputOf<D>, unknown>>,
  only?: readonly InputOf<D>[],
): z.input<S> {
  return bodyOf(declaration, inputs, only) as z.input<S>;
}

/**
 * What the kind's args fill in for an input left out, by input (`description: ''`, `priority: null`): what an
 * answer without the field means. Inputs without a default are not listed.
 */
export function defaultsOf<D extends AnyKind>(declaration: D): Partial<Record<InputOf<D>, unknown>> {
  const shape = (declaration.args as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const defaults: Partial<Record<InputOf<D>, unknown>> = {};
  for (const { input } of declaration.fields) {
    const parsed = shape[input]?.safeParse(undefined);
    if (parsed?.success && parsed.data !== undefined) defaults[input as InputOf<D>] = parsed.data;
  }
  return defaults;
}

/** Whether an answer of schema `answer` may leave out the value at dotted path `wire`: it, or an object on its way, is optional. */
function answerMayOmit(answer: z.ZodType, wire: string): boolean {
  let at: z.ZodType | undefined = answer;
  for (const key of wire.split('.')) {
    if (at === undefined || at.safeParse(undefined).success) return true;
    at = (at as unknown as { shape?: Record<string, z.ZodType> }).shape?.[key];
  }
  return at === undefined || at.safeParse(undefined).success;
}

/**
 * What a value absent from a resource's state compares as in a diff, by input: the args' default of each wire field
 * the service's answer (`answer`, the schema a read parses it with) may leave out, where absent has always meant the
 * default. A field every answer holds has none: absent from a state, it is not known, and a diff shows it.
 */
export function omittedDefaultsOf<D extends AnyKind>(declaration: D, answer: z.ZodType): Partial<Record<InputOf<D>, unknown>> {
  const defaults = defaultsOf(declaration);
  const omitted: Partial<Record<InputOf<D>, unknown>> = {};
  for (const { input, wire } of wireFields(declaration)) {
    if (input in defaults && answerMayOmit(answer, wire)) omitted[input] = defaults[input];
  }
  return omitted;
}

/**
 * The inputs an object of the service holds, in the kind's input names: each wire field's value (`only` those, when
 * given) as its `fromWire` reads it; absent (or null) it reads as the args' default, and without one it is left out.
 * Typed as the kind's inputs, which the field table's wire fields are (the cast of answers, with outputsOf's).
 */
export function inputsOf<D extends AnyKind>(declaration: D, object: unknown, only?: readonly InputOf<D>[]): Partial<InputsOf<D>> {
  const defaults = defaultsOf(declaration);
  const inputs: Partial<Record<InputOf<D>, unknown>> = {};
  for (const field of wireFields(declaration)) {
    if (only && !only.includes(field.input)) continue;
    const held = wireValue(object, field.wire);
    const value = field.fromWire ? field.fromWire(held, object as Readonly<Record<string, unknown>>) : held;
    const read = (value === undefined || value === null) && field.input in defaults ? defaults[field.input] : value;
    if (read !== undefined) inputs[field.input] = read;
  }
  return inputs as Partial<InputsOf<D>>;
}

/**
 * The outputs of a resource that holds `object` in zone `zoneId`: the zone, the inputs the object holds, the id the
 * service assigned (and an owned object's), and the adopt input when the resource adopted the object.
 */
export function outputsOf<D extends AnyKind>(declaration: D, zoneId: string, object: { id: string }, adopted?: string): OutputsOf<D> {
  const { idOutput, owns, adoptInput } = declaration.identity;
  const outputs: Record<string, unknown> = {
    zoneId,
    ...inputsOf(declaration, object),
    ...(idOutput ? { [idOutput]: object.id } : {}),
    ...(owns ? { [owns.output]: wireValue(object, owns.wire) } : {}),
    ...(adopted && adoptInput ? { [adoptInput]: adopted } : {}),
  };
  return outputs as OutputsOf<D>;
}

/** The inputs among a resource's outputs: all but the outputs the provider computes (the ids the service assigned). */
export function inputsOfOutputs<D extends AnyKind>(declaration: D, outputs: OutputsOf<D>): InputsOf<D> {
  const computed = new Set<string>(declaration.outputs);
  return Object.fromEntries(Object.entries(outputs as Record<string, unknown>).filter(([key]) => !computed.has(key))) as InputsOf<D>;
}
