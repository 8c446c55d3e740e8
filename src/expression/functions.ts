import {
  arrayOf,
  assignable,
  BOOLEAN,
  BYTES,
  INT,
  IP,
  isStringLike,
  STRING,
  typeName,
  type ValueType,
} from './types';

/** What the checker knows about one argument when it checks a call. */
export interface ArgumentInfo {
  /** The argument's type; for an argument expanded with `[*]`, the type of one element. */
  readonly type: ValueType;
  /** Written as a literal (`"foo"`, `10`), as opposed to a field or a function result. */
  readonly literal: boolean;
  /** The literal's value, for the few parameters whose range is checked. */
  readonly intValue?: number;
  /** The field name when the argument is a bare field. */
  readonly field?: string;
}

/** One parameter: which types it accepts, and whether its value must (or must not) be written literally. */
export interface ParameterSpec {
  /** How a message names what the parameter accepts: `String`, `Array<Boolean>`, `Int, Boolean or IP`. */
  readonly expects: string;
  readonly accepts: (t: ValueType) => boolean;
  /** `forbidden`: the documentation says the value "must be a field"; `required`: it must be a literal. */
  readonly literal?: 'required' | 'forbidden';
  /** Inclusive bounds checked when an integer is written literally. */
  readonly range?: readonly [min: number, max: number];
  readonly optional?: boolean;
}

/** A documented function: its parameters (the last may repeat) and its result type. */
export interface FunctionSpec {
  readonly name: string;
  readonly params: readonly ParameterSpec[];
  /** The last parameter may be repeated this many extra times (Infinity for "..."). */
  readonly repeatLast?: number;
  readonly returns: (args: readonly ArgumentInfo[]) => ValueType;
  /** Extra rules beyond types, returning a message for the argument index at fault. */
  readonly extraCheck?: (args: readonly ArgumentInfo[]) => { arg: number; message: string } | undefined;
}

const anyString: ParameterSpec = { expects: 'String', accepts: isStringLike };
const fieldString: ParameterSpec = { ...anyString, literal: 'forbidden' };
const anyInt: ParameterSpec = { expects: 'Int', accepts: (t) => assignable(t, INT) };
const arrayOfBooleans: ParameterSpec = { expects: 'Array<Boolean>', accepts: (t) => assignable(t, arrayOf(BOOLEAN)) };
const optional = (p: ParameterSpec): ParameterSpec => ({ ...p, optional: true });
const literal = (p: ParameterSpec): ParameterSpec => ({ ...p, literal: 'required' });
const ranged = (p: ParameterSpec, min: number, max: number): ParameterSpec => ({ ...p, range: [min, max] });
const returns = (t: ValueType) => () => t;

const isPrimitive = (t: ValueType): boolean => t.kind !== 'Array' && t.kind !== 'Map';

const FUNCTION_LIST: readonly FunctionSpec[] = [
  { name: 'any', params: [arrayOfBooleans], returns: returns(BOOLEAN) },
  { name: 'all', params: [arrayOfBooleans], returns: returns(BOOLEAN) },
  {
    name: 'cidr',
    params: [{ expects: 'IP', accepts: (t) => assignable(t, IP), literal: 'forbidden' }, ranged(anyInt, 1, 32), ranged(anyInt, 1, 128)],
    returns: returns(IP),
  },
  {
    name: 'cidr6',
    params: [{ expects: 'IP', accepts: (t) => assignable(t, IP), literal: 'forbidden' }, ranged(anyInt, 1, 128)],
    returns: returns(IP),
  },
  {
    name: 'concat',
    params: [
      {
        expects: 'String, Bytes, Int or Array',
        accepts: (t) => isStringLike(t) || t.kind === 'Int' || t.kind === 'Array',
      },
    ],
    repeatLast: Infinity,
    // Arrays concatenate into an array; anything else into a string.
    returns: (args) => args.find((a) => a.type.kind === 'Array')?.type ?? STRING,
  },
  { name: 'decode_base64', params: [fieldString], returns: returns(STRING) },
  { name: 'encode_base64', params: [anyString, optional(literal(anyString))], returns: returns(STRING) },
  { name: 'ends_with', params: [fieldString, anyString], returns: returns(BOOLEAN) },
  { name: 'starts_with', params: [fieldString, anyString], returns: returns(BOOLEAN) },
  {
    name: 'has_key',
    params: [{ expects: 'Map', accepts: (t) => t.kind === 'Map' || t.kind === 'Unknown' }, anyString],
    returns: returns(BOOLEAN),
  },
  {
    name: 'has_value',
    params: [
      { expects: 'Map or Array', accepts: (t) => t.kind === 'Map' || t.kind === 'Array' || t.kind === 'Unknown' },
      { expects: 'Boolean, Int, String, Bytes or IP', accepts: isPrimitive },
    ],
    returns: returns(BOOLEAN),
    extraCheck: ([collection, value]) => {
      if (!collection || !value || (collection.type.kind !== 'Map' && collection.type.kind !== 'Array')) return undefined;
      const element = collection.type.of;
      if (!isPrimitive(element)) {
        return { arg: 0, message: `has_value() needs a collection of Boolean, Int, String, Bytes or IP values, found ${typeName(collection.type)}` };
      }
      return assignable(value.type, element)
        ? undefined
        : { arg: 1, message: `argument 2 of has_value() must be ${typeName(element)} like the elements of argument 1, found ${typeName(value.type)}` };
    },
  },
  { name: 'is_jwt_present', params: [anyString], returns: returns(BOOLEAN) },
  { name: 'is_jwt_valid', params: [anyString], returns: returns(BOOLEAN) },
  {
    name: 'is_timed_hmac_valid_v0',
    params: [literal(anyString), anyString, literal(anyInt), anyInt, optional(literal(anyInt)), optional(literal(anyString))],
    returns: returns(BOOLEAN),
  },
  {
    name: 'join',
    params: [{ expects: 'Array<String>', accepts: (t) => assignable(t, arrayOf(STRING)) }, anyString],
    returns: returns(STRING),
  },
  {
    name: 'len',
    params: [{ expects: 'String, Bytes or Array', accepts: (t) => isStringLike(t) || t.kind === 'Array' }],
    returns: returns(INT),
  },
  {
    name: 'lookup_json_integer',
    params: [anyString, { expects: 'String or Int', accepts: (t) => isStringLike(t) || t.kind === 'Int' }],
    repeatLast: Infinity,
    returns: returns(INT),
  },
  {
    name: 'lookup_json_string',
    params: [anyString, { expects: 'String or Int', accepts: (t) => isStringLike(t) || t.kind === 'Int' }],
    repeatLast: Infinity,
    returns: returns(STRING),
  },
  { name: 'lower', params: [anyString], returns: returns(STRING) },
  { name: 'upper', params: [anyString], returns: returns(STRING) },
  { name: 'regex_replace', params: [anyString, anyString, anyString], returns: returns(STRING) },
  {
    name: 'remove_bytes',
    params: [
      { ...anyString, expects: 'Bytes' },
      { ...anyString, expects: 'Bytes' },
    ],
    returns: returns(BYTES),
  },
  {
    name: 'remove_query_args',
    params: [fieldString, anyString],
    repeatLast: Infinity,
    returns: returns(STRING),
    extraCheck: ([field]) =>
      field && field.field !== 'http.request.uri.query' && field.field !== 'raw.http.request.uri.query'
        ? { arg: 0, message: 'argument 1 of remove_query_args() must be http.request.uri.query or raw.http.request.uri.query' }
        : undefined,
  },
  { name: 'sha256', params: [anyString], returns: returns(BYTES) },
  {
    name: 'split',
    params: [anyString, literal(anyString), literal(ranged(anyInt, 1, 128))],
    returns: returns(arrayOf(STRING)),
  },
  { name: 'substring', params: [anyString, anyInt, optional(anyInt)], returns: returns(STRING) },
  {
    name: 'to_string',
    params: [{ expects: 'Int, Boolean or IP', accepts: (t) => ['Int', 'Boolean', 'IP', 'Unknown'].includes(t.kind) }],
    returns: returns(STRING),
  },
  { name: 'url_decode', params: [fieldString, optional(literal(anyString))], returns: returns(STRING) },
  { name: 'uuidv4', params: [{ ...anyString, expects: 'Bytes' }], returns: returns(STRING) },
  {
    name: 'wildcard_replace',
    params: [
      { ...fieldString, expects: 'Bytes' },
      literal({ ...anyString, expects: 'Bytes' }),
      { ...anyString, expects: 'Bytes' },
      optional(literal({ ...anyString, expects: 'Bytes' })),
    ],
    returns: returns(STRING),
  },
];

/** The documented functions by name. */
export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map(FUNCTION_LIST.map((f) => [f.name, f]));

/** Every documented function name. */
export const FUNCTION_NAMES: readonly string[] = FUNCTION_LIST.map((f) => f.name);

/** Functions the documentation allows once per expression, and never one inside the other. */
export const ONCE_PER_EXPRESSION: ReadonlySet<string> = new Set(['regex_replace', 'wildcard_replace']);

/** Smallest and largest argument counts of a function. */
export function arity(spec: FunctionSpec): { min: number; max: number } {
  const min = spec.params.filter((p) => !p.optional).length;
  return { min, max: spec.params.length + (spec.repeatLast ?? 0) };
}
