import { createHash, randomBytes } from 'node:crypto';

/** A 32-character hexadecimal id derived from its parts: seeded objects get the same id on every run. */
export function stableId(...parts: (string | number)[]): string {
  return stableHash(...parts).slice(0, 32);
}

/** A 64-character hexadecimal digest derived from its parts (script hashes). */
export function stableHash(...parts: (string | number)[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/** A token-like string derived from its parts: `prefix` then base64url characters, `length` in all. */
export function stableToken(prefix: string, length: number, ...parts: (string | number)[]): string {
  const body = createHash('sha256').update(parts.join('\u0000')).digest('base64url');
  return (prefix + body).slice(0, length);
}

/** A fresh 32-character hexadecimal id, as the service assigns to objects created through the API. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** A small deterministic generator (mulberry32): the demo seed's variety without randomness between runs. */
export function seededRandom(seed: string): () => number {
  let state = Number.parseInt(stableHash(seed).slice(0, 8), 16) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
