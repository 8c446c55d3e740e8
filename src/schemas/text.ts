// Characters no text input may carry. A newline or carriage return in a value that becomes an HTTP header (a CSP
// policy) splits it, or starts a header of its own; NUL, the other C0 and C1 controls, DEL and the Unicode line and
// paragraph separators are invisible in a review and read differently by each parser. docs/inputs.md lists them.

/** Names of the characters a reader cannot see, for the messages; others are named by their code point alone. */
const NAMES: Record<number, string> = {
  0x00: 'NUL',
  0x09: 'tab',
  0x0a: 'line feed',
  0x0b: 'vertical tab',
  0x0c: 'form feed',
  0x0d: 'carriage return',
  0x1b: 'escape',
  0x7f: 'delete',
  0x85: 'next line',
  0xa0: 'no-break space',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0xfeff: 'zero width no-break space',
};

/** The whitespace a multi-line text (an expression) may hold between its tokens. */
const LINE_BREAKS_AND_TABS = new Set([0x09, 0x0a, 0x0d]);

/** True for the characters refused in every text input: C0 and C1 controls, DEL, U+2028 and U+2029. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/** `a line feed (U+000A)`, `the character U+0001`: how the messages name a character. */
export function describeCharacter(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[code];
  if (!name) return `the character ${hex}`;
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name} (${hex})`;
}

/** Where a text first holds a character it may not, and how many such characters it holds. */
export interface CharacterFinding {
  code: number;
  /** 1-based, counted in characters (code points), as an editor shows the column of a one-line value. */
  position: number;
  count: number;
}

/**
 * The first character of `text` that `refused` refuses, with its position, and how many there are in all;
 * undefined when there is none. Pure, so each rule is a table test.
 */
export function findCharacters(text: string, refused: (code: number) => boolean): CharacterFinding | undefined {
  let first: CharacterFinding | undefined;
  let count = 0;
  let position = 0;
  for (const char of text) {
    position += 1;
    const code = char.codePointAt(0)!;
    if (!refused(code)) continue;
    count += 1;
    first ??= { code, position, count: 0 };
  }
  return first && { ...first, count };
}

/** One readable line for a finding: the character, its position, and how many more there are. */
export function describeFinding(finding: CharacterFinding, what: string): string {
  const more = finding.count > 1 ? ` (${finding.count} such characters in all)` : '';
  return `contains ${describeCharacter(finding.code)} at character ${finding.position}${more}; ${what}`;
}

/**
 * The problem of a text input holding a control character, or undefined. `multiline` texts (expressions) may hold
 * tabs and line breaks between their tokens; every other text is one line of visible characters and spaces.
 */
export function controlCharacterProblem(text: string, options: { multiline?: boolean } = {}): string | undefined {
  const refused = options.multiline ? (code: number) => isControl(code) && !LINE_BREAKS_AND_TABS.has(code) : isControl;
  const finding = findCharacters(text, refused);
  if (!finding) return undefined;
  return describeFinding(
    finding,
    options.multiline
      ? 'control characters other than tabs and line breaks are not allowed'
      : 'control characters and line breaks are not allowed',
  );
}

/**
 * True for the characters that change how a text reads without being seen: the bidirectional controls
 * (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the zero-width characters (U+200B to U+200D, U+2060,
 * U+FEFF).
 */
export function isInvisible(code: number): boolean {
  return (
    (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2060 && code <= 0x2069 && code !== 0x2065) || code === 0xfeff
  );
}

/**
 * The joiners a prose text may hold: U+200C and U+200D shape the letters of Persian, Arabic and Indic words and join
 * emoji, and change no order; refused elsewhere, as in a ref or an expression they only hide a difference.
 */
const PROSE_JOINERS = new Set([0x200c, 0x200d]);

/**
 * The problem of a text holding a bidirectional control or a zero-width character, or undefined. Such a character
 * makes a text read otherwise than it is: a string in an expression that looks like the host it blocks and never
 * matches it, a U+202E that shows a description backwards. `prose` texts (descriptions) keep the joiners
 * (PROSE_JOINERS), so a description in any language is accepted. docs/inputs.md lists them.
 */
export function invisibleCharacterProblem(text: string, options: { prose?: boolean } = {}): string | undefined {
  const refused = options.prose ? (code: number) => isInvisible(code) && !PROSE_JOINERS.has(code) : isInvisible;
  const finding = findCharacters(text, refused);
  if (!finding) return undefined;
  return describeFinding(finding, 'bidirectional controls and zero-width characters are not allowed: they make a text read otherwise than it is; remove it');
}

/**
 * `text` as it may be printed to a terminal: every control, bidirectional or zero-width character written as
 * `\u{XXXX}`, so text from the service (an expression, a description) cannot move the cursor, recolour the screen or
 * read backwards. Pure.
 */
export function printable(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += isControl(code) || isInvisible(code) ? `\\u{${code.toString(16).toUpperCase().padStart(4, '0')}}` : char;
  }
  return out;
}
