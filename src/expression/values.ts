// The values the evaluator (evaluate.ts) works on, and the comparisons of the rules language that are not plain
// JavaScript: addresses and CIDR ranges, wildcard patterns. Pure. docs/expressions.md#evaluation says what each
// follows.
import { isIPv4, isIPv6 } from './literals';

/** An expression the evaluator cannot decide offline (a named list, a JWT check): names what and why. */
export class EvaluationError extends Error {
  override readonly name = 'EvaluationError';
}

/** `[*]` applied: the operators and functions after it apply to each element. */
export class Each {
  constructor(readonly items: readonly Value[]) {}
}

/** A value while evaluating; undefined is a missing element or key (every comparison of it is false). */
export type Value = string | number | boolean | Address | readonly Value[] | ReadonlyMap<string, Value> | Each | undefined;


/** An address as a number: 32 bits for IPv4, 128 for IPv6; the two families never compare equal. */
export interface Address {
  readonly family: 4 | 6;
  readonly value: bigint;
}

/** A CIDR range (an address with its prefix length), or one address when `prefix` is the family's width. */
export interface AddressRange {
  readonly family: 4 | 6;
  readonly first: bigint;
  readonly last: bigint;
}

/** Whether a value is an address. */
export function isAddress(value: Value): value is Address {
  return typeof value === 'object' && value !== null && 'family' in value;
}

/** Parses `192.0.2.1` or `2001:db8::1`; undefined for anything else. */
export function parseAddress(text: string): Address | undefined {
  if (isIPv4(text)) return { family: 4, value: text.split('.').reduce((sum, part) => (sum << 8n) + BigInt(Number(part)), 0n) };
  if (!isIPv6(text)) return undefined;
  const [head = '', tail] = text.split('::');
  const groups = (half: string): bigint[] => {
    if (half === '') return [];
    return half.split(':').flatMap((group) => {
      if (!group.includes('.')) return [BigInt(`0x${group}`)];
      const v4 = parseAddress(group)?.value ?? 0n;
      return [v4 >> 16n, v4 & 0xffffn];
    });
  };
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array.from({ length: 8 - left.length - right.length }, () => 0n), ...right];
  return { family: 6, value: all.reduce((sum, group) => (sum << 16n) + group, 0n) };
}

/** The text form of an address: dotted quad, or eight hexadecimal groups (not shortened). */
export function formatAddress(address: Address): string {
  if (address.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((address.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}

/** The range of `address/prefix`; the whole address when no prefix is given. */
export function rangeOf(address: Address, prefix?: number): AddressRange {
  const width = address.family === 4 ? 32n : 128n;
  const hostBits = prefix === undefined ? 0n : width - BigInt(prefix);
  const mask = (1n << hostBits) - 1n;
  return { family: address.family, first: address.value & ~mask, last: (address.value & ~mask) | mask };
}

/** Whether an address falls in a range of its own family. */
export function inRange(address: Address, range: AddressRange): boolean {
  return address.family === range.family && address.value >= range.first && address.value <= range.last;
}

/** The neighbours of an address inside its family (one below, one above), for requests around a value. */
export function addressNeighbours(address: Address): Address[] {
  const max = address.family === 4 ? (1n << 32n) - 1n : (1n << 128n) - 1n;
  return [address.value - 1n, address.value + 1n].filter((value) => value >= 0n && value <= max).map((value) => ({ family: address.family, value }));
}

/**
 * Whether `text` matches a wildcard pattern: `*` is any run of characters (none included), `\*` and `\\` a literal
 * star and backslash; the whole text must match. `wildcard` compares case-insensitively, `strict wildcard` exactly.
 */
export function wildcardMatches(pattern: string, text: string, caseSensitive: boolean): boolean {
  const source = [...pattern].reduce<{ out: string; escaped: boolean }>(
    (acc, ch) => {
      if (acc.escaped) return { out: acc.out + escapeRegex(ch), escaped: false };
      if (ch === '\\') return { out: acc.out, escaped: true };
      return { out: acc.out + (ch === '*' ? '[\\s\\S]*' : escapeRegex(ch)), escaped: false };
    },
    { out: '', escaped: false },
  ).out;
  return new RegExp(`^${source}$`, caseSensitive ? '' : 'i').test(text);
}

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? `\\${ch}` : ch;
}
