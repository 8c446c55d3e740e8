// The functions of the rules language as the evaluator runs them (the public functions reference; which ones and
// how: docs/expressions.md#evaluation). Pure, but for sha256 through node:crypto, which has no effect.
import { createHash } from 'node:crypto';
import { EvaluationError, formatAddress, isAddress, rangeOf, wildcardMatches, type Address, type Value } from './values';

type Implementation = (args: readonly Value[]) => Value;

const text = (value: Value): string => (typeof value === 'string' ? value : '');
const list = (value: Value): readonly Value[] => (Array.isArray(value) ? (value as readonly Value[]) : []);
const int = (value: Value): number => (typeof value === 'number' ? value : 0);

/** The JSON value at a path of keys and indexes, or undefined. */
function lookupJson(args: readonly Value[]): unknown {
  let current: unknown;
  try {
    current = JSON.parse(text(args[0]));
  } catch {
    return undefined;
  }
  for (const key of args.slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[String(key)];
  }
  return current;
}

function urlDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** `cidr(ip, v4 bits, v6 bits)` and `cidr6(ip, bits)`: the network address of the address's prefix. */
function network(address: Value, bits: number): Value {
  const parsed = address as Address | undefined;
  if (parsed === undefined || typeof parsed !== 'object' || !('family' in parsed)) return undefined;
  return { family: parsed.family, value: rangeOf(parsed, bits).first };
}

const FUNCTIONS: Readonly<Record<string, Implementation>> = {
  any: ([values]) => list(values).some((value) => value === true),
  all: ([values]) => list(values).every((value) => value === true),
  lower: ([value]) => text(value).toLowerCase(),
  upper: ([value]) => text(value).toUpperCase(),
  len: ([value]) => (Array.isArray(value) ? value.length : Buffer.byteLength(text(value))),
  starts_with: ([value, prefix]) => text(value).startsWith(text(prefix)),
  ends_with: ([value, suffix]) => text(value).endsWith(text(suffix)),
  concat: (args) =>
    args.some((arg) => Array.isArray(arg))
      ? args.flatMap((arg) => (Array.isArray(arg) ? (arg as Value[]) : [arg]))
      : args.map((arg) => (typeof arg === 'number' ? String(arg) : text(arg))).join(''),
  has_key: ([map, key]) => map instanceof Map && map.has(text(key)),
  has_value: ([collection, value]) =>
    (collection instanceof Map ? [...collection.values()].flatMap((v) => (Array.isArray(v) ? (v as Value[]) : [v])) : list(collection)).includes(value),
  to_string: ([value]) => (isAddress(value) ? formatAddress(value) : String(value)),
  url_decode: ([value]) => urlDecode(text(value)),
  substring: ([value, start, end]) => {
    const bytes = Buffer.from(text(value));
    const from = int(start) < 0 ? Math.max(bytes.length + int(start), 0) : int(start);
    const to = end === undefined ? bytes.length : int(end) < 0 ? bytes.length + int(end) : int(end);
    return bytes.subarray(from, Math.max(from, to)).toString();
  },
  join: ([values, separator]) => list(values).map(text).join(text(separator)),
  split: ([value, separator, limit]) => {
    const parts = text(value).split(text(separator));
    const most = int(limit);
    return parts.length <= most ? parts : [...parts.slice(0, most - 1), parts.slice(most - 1).join(text(separator))];
  },
  regex_replace: ([value, pattern, replacement]) => text(value).replace(new RegExp(text(pattern)), text(replacement).replace(/\$\{(\d+)\}/g, '$$$1')),
  wildcard_replace: ([value, pattern, replacement]) => (wildcardMatches(text(pattern), text(value), true) ? text(replacement) : text(value)),
  remove_bytes: ([value, bytes]) => [...text(value)].filter((ch) => !text(bytes).includes(ch)).join(''),
  decode_base64: ([value]) => Buffer.from(text(value), 'base64').toString(),
  encode_base64: ([value, flags]) => {
    const encoded = Buffer.from(text(value)).toString(text(flags).includes('u') ? 'base64url' : 'base64');
    return text(flags).includes('p') || !text(flags).includes('u') ? encoded : encoded.replace(/=+$/, '');
  },
  sha256: ([value]) => createHash('sha256').update(text(value)).digest().toString('latin1'),
  lookup_json_string: (args) => {
    const found = lookupJson(args);
    return typeof found === 'string' ? found : undefined;
  },
  lookup_json_integer: (args) => {
    const found = lookupJson(args);
    return typeof found === 'number' && Number.isInteger(found) ? found : undefined;
  },
  cidr: ([address, v4, v6]) => network(address, (address as Address | undefined)?.family === 6 ? int(v6) : int(v4)),
  cidr6: ([address, bits]) => network(address, int(bits)),
};

/** Runs a documented function on evaluated arguments; an EvaluationError for one that cannot run offline. */
export function callFunction(name: string, args: readonly Value[]): Value {
  const implementation = FUNCTIONS[name];
  if (implementation === undefined) throw new EvaluationError(`function ${name}() cannot be evaluated offline (it checks tokens or secrets the service holds)`);
  return implementation(args);
}
