// The text of a generated Pulumi program, for `zoneguard export` and the firewall move's program alike: literals
// that read as they run, names and variables unique and stable, one declaration a block. Pure.
import { isInvisible } from '../schemas/text';

/**
 * A TypeScript string literal: single quotes unless the text holds more of them than double quotes (so CSP
 * values read `"script-src 'self'"`), every character a literal cannot hold escaped, and every bidirectional control
 * and zero-width character written as a \u escape: raw, they make the program read otherwise than it runs (a U+202E
 * reverses what follows it on screen), docs/inputs.md.
 */
export function tsString(text: string): string {
  const singles = (text.match(/'/g) ?? []).length;
  const doubles = (text.match(/"/g) ?? []).length;
  const quote = singles > doubles ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') out += '\\\\';
    else if (char === quote) out += `\\${quote}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029 || isInvisible(code)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out + quote;
}

/** A lowercase-dash slug of free text, at most `max` characters, possibly empty. */
export function slug(text: string, max = 48): string {
  const words = text
    .normalize('NFKD')
    // Accents come apart from their letters under NFKD; dropping the marks keeps "déjà" one word.
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
  let out = '';
  for (const word of words) {
    const next = out === '' ? word : `${out}-${word}`;
    if (next.length > max) break;
    out = next;
  }
  return out === '' && words[0] ? words[0].slice(0, max) : out;
}

/** `csp` and `same-name` → `cspSameName`. */
export function camel(prefix: string, dashed: string): string {
  return prefix + dashed.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/**
 * Resource names and variable names for a list of objects: the slug of the description, or the kind and the
 * first characters of the id; a name whose variable another object would also get gets the id's first characters
 * appended, so names and variables stay unique and stable from one export to the next. Variables are compared, not
 * only names: "A1" and "A 1" are the names a1 and a-1 but would both be the variable `cspA1`.
 */
export function nameObjects<T extends { id: string; description?: string }>(objects: T[], kind: string, prefix: string) {
  const base = (o: T) => slug(o.description ?? '') || `${kind}-${o.id.slice(0, 8)}`;
  const variableOf = (name: string) => camel(prefix, name);
  const counts = new Map<string, number>();
  for (const o of objects) counts.set(variableOf(base(o)), (counts.get(variableOf(base(o))) ?? 0) + 1);
  const usedNames = new Set<string>();
  const usedVariables = new Set<string>();
  const taken = (name: string) => usedNames.has(name) || usedVariables.has(variableOf(name));
  return objects.map((object) => {
    let name = base(object);
    if ((counts.get(variableOf(name)) ?? 0) > 1 || taken(name)) name = `${name}-${object.id.slice(0, 8)}`;
    for (let n = 2; taken(name); n += 1) name = `${base(object)}-${object.id.slice(0, 8)}-${n}`;
    usedNames.add(name);
    usedVariables.add(variableOf(name));
    return { object, name, variable: variableOf(name) };
  });
}

/** One declaration: the comment lines, then `export const <variable> = new <constructor>('<name>', { ... });`, fields left out where undefined. */
export function block(constructor: string, variable: string, name: string, fields: [string, string | undefined][], comment: string[]): string {
  const lines = comment.map((c) => `// ${c}`);
  lines.push(`export const ${variable} = new ${constructor}(${tsString(name)}, {`);
  for (const [key, value] of fields) if (value !== undefined) lines.push(key === value ? `  ${key},` : `  ${key}: ${value},`);
  lines.push('});');
  return lines.join('\n');
}

/**
 * A value as a TypeScript literal, indented for a line that starts `indent` spaces in: on one line when it fits in
 * 100 columns, otherwise one item a line. Keys that are not identifiers are quoted. Pure.
 */
export function tsLiteral(value: unknown, indent = 0): string {
  if (typeof value === 'string') return tsString(value);
  if (typeof value !== 'object' || value === null) return String(value);
  const pad = (n: number) => ' '.repeat(n);
  const items = Array.isArray(value)
    ? value.map((item) => tsLiteral(item, indent + 2))
    : Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([key, v]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : tsString(key)}: ${tsLiteral(v, indent + 2)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  if (items.length === 0) return Array.isArray(value) ? '[]' : '{}';
  const inline = `${open}${items.join(', ')}${close}`;
  if (!inline.includes('\n') && indent + inline.length <= 100) return inline;
  return `${open.trim()}\n${items.map((item) => `${pad(indent + 2)}${item},`).join('\n')}\n${pad(indent)}${close.trim()}`;
}
