// Validation of literal values, kept apart from the grammar: the lexer accepts anything shaped like an address or
// a string so that a wrong one gets a precise message here.

/** Whether `text` is a dotted-quad IPv4 address with every part in 0-255. */
export function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => p.length >= 1 && p.length <= 3 && /^[0-9]+$/.test(p) && Number(p) <= 255);
}

/** Whether `text` is an IPv6 address (RFC 4291 text forms: `::` once at most, an embedded IPv4 tail allowed). */
export function isIPv6(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groupsOf = (half: string): string[] | undefined => {
    if (half === '') return [];
    const groups = half.split(':');
    return groups.every((g) => g !== '') ? groups : undefined;
  };
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (!head || !tail) return false;
  const all = [...head, ...tail];
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i] as string;
    if (i === all.length - 1 && g.includes('.')) {
      if (!isIPv4(g)) return false;
      count += 2;
    } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) count += 1;
    else return false;
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** A problem inside a string literal, at an offset within the literal's content. */
export interface LiteralProblem {
  readonly at: number;
  readonly message: string;
}

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * Quoted strings outside a regular expression use the basic escapes: `\"`, `\\` and `\xHH`. Returns the first
 * malformed escape, or the decoded content.
 */
export function decodeQuoted(content: string): { value: string } | { problem: LiteralProblem } {
  if (!content.includes('\\')) return { value: content };
  let value = '';
  for (let i = 0; i < content.length; i++) {
    const c = content[i] as string;
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = content[i + 1];
    if (next === '"' || next === '\\') {
      value += next;
      i++;
    } else if (next === 'x') {
      const hex = content.slice(i + 2, i + 4);
      if (!HEX.test(hex)) {
        return { problem: { at: i, message: `invalid escape "\\x${hex}" in a string: \\x takes two hexadecimal digits` } };
      }
      value += String.fromCharCode(parseInt(hex, 16));
      i += 3;
    } else {
      const shown = next === undefined ? '\\' : `\\${next}`;
      return {
        problem: {
          at: i,
          message: `unknown escape "${shown}" in a string: only \\", \\\\ and \\xHH are escapes here (a raw string r"..." needs none)`,
        },
      };
    }
  }
  return { value };
}

/** The offset of the first `**` that is not escaped as `\*`, which wildcard patterns refuse; -1 if none. */
export function doubleStarAt(pattern: string): number {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '*' && pattern[i + 1] === '*') return i;
  }
  return -1;
}
