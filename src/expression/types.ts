/**
 * Value types of the rules language, as its field and function references name them. `Bytes` and `String` are
 * the same sequence of bytes to the engine; they are kept apart only so messages use the documentation's word.
 */
export type ValueType =
  | { readonly kind: 'String' }
  | { readonly kind: 'Bytes' }
  | { readonly kind: 'Int' }
  | { readonly kind: 'Boolean' }
  | { readonly kind: 'IP' }
  | { readonly kind: 'Array'; readonly of: ValueType }
  | { readonly kind: 'Map'; readonly of: ValueType }
  /** The type of a sub-expression that already has an error: compatible with everything, so one mistake gives one message. */
  | { readonly kind: 'Unknown' };

export const STRING: ValueType = { kind: 'String' };
export const BYTES: ValueType = { kind: 'Bytes' };
export const INT: ValueType = { kind: 'Int' };
export const BOOLEAN: ValueType = { kind: 'Boolean' };
export const IP: ValueType = { kind: 'IP' };
export const UNKNOWN_TYPE: ValueType = { kind: 'Unknown' };

/** `Array<of>`. */
export function arrayOf(of: ValueType): ValueType {
  return { kind: 'Array', of };
}

/** `Map<of>`. */
export function mapOf(of: ValueType): ValueType {
  return { kind: 'Map', of };
}

/** The type as the documentation writes it: `Map<Array<String>>`. */
export function typeName(t: ValueType): string {
  switch (t.kind) {
    case 'Array':
    case 'Map':
      return `${t.kind}<${typeName(t.of)}>`;
    case 'Unknown':
      return 'unknown';
    default:
      return t.kind;
  }
}

/** String and Bytes are one type to the engine. */
export function isStringLike(t: ValueType): boolean {
  return t.kind === 'String' || t.kind === 'Bytes' || t.kind === 'Unknown';
}

/** Whether a value of type `actual` may be given where `expected` is wanted. */
export function assignable(actual: ValueType, expected: ValueType): boolean {
  if (actual.kind === 'Unknown' || expected.kind === 'Unknown') return true;
  if (isStringLike(expected)) return isStringLike(actual);
  if (expected.kind === 'Array' || expected.kind === 'Map') {
    return actual.kind === expected.kind && assignable(actual.of, expected.of);
  }
  return actual.kind === expected.kind;
}

/** Parses the documentation's notation (`Map<Array<String>>`, `IP`, `Int`) into a type; for the catalogs only. */
export function parseTypeName(name: string): ValueType {
  const generic = /^(Array|Map)<(.+)>$/.exec(name);
  if (generic) {
    const inner = parseTypeName(generic[2] as string);
    return generic[1] === 'Array' ? arrayOf(inner) : mapOf(inner);
  }
  switch (name) {
    case 'String':
      return STRING;
    case 'Bytes':
      return BYTES;
    case 'Int':
      return INT;
    case 'Boolean':
      return BOOLEAN;
    case 'IP':
      return IP;
    default:
      throw new Error(`unknown type name in catalog: ${name}`);
  }
}
