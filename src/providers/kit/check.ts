import { z } from 'zod';
import { quoteExcerpt } from '../../schemas/common';
import type * as pulumi from '@pulumi/pulumi';
import { MARKER_KEY, MOVED_FROM_KEY, NAME_KEY, OWNER_ID_KEY, OWNER_KEY } from './closure';
import { controlCharacterProblem, invisibleCharacterProblem } from '../../schemas/text';
import { readableIssue } from '../../schemas/messages';
import { PREVIEW_UNKNOWN, containsUnknown } from '../../unknown';

export { PREVIEW_UNKNOWN, containsUnknown };

/** Keys the engine (the provider) and the resource classes (the name, the owner marker) add to the inputs; never validated, always passed through. */
const ENGINE_KEYS = new Set(['__provider', NAME_KEY, OWNER_KEY, OWNER_ID_KEY, MARKER_KEY, MOVED_FROM_KEY]);

/** Whether `key` is one the resource classes or the provider add (its name, owner, provider text), not a declared input. */
export const isEngineKey = (key: string): boolean => ENGINE_KEYS.has(key);

export type CheckResult<T> = pulumi.dynamic.CheckResult<T> & { failures: pulumi.dynamic.CheckFailure[] };

/**
 * The one failure of a check whose inputs are missing or not a record (the engine passed `null` or nothing, a
 * hand-called provider passed a string), or undefined when they are a record. Pure; every kind's check answers it
 * before reading a field, so missing inputs never end in a TypeError.
 */
export function missingInputsFailure(news: unknown, resource: string): pulumi.dynamic.CheckFailure | undefined {
  if (news !== null && typeof news === 'object' && !Array.isArray(news)) return undefined;
  const got = news === null || news === undefined ? 'missing' : `${Array.isArray(news) ? 'an array' : `a ${typeof news}`}, not a record of inputs`;
  return { property: '', reason: `${resource}: the inputs are ${got}; pass the resource's arguments as an object` };
}

/**
 * Validates a resource's inputs with its zod schema before any API call. An input not known yet (preview) is left
 * out of the validation and passed through as it is; every other field gets one failure with a reason a user can
 * act on. The returned inputs are the schema's output (defaults applied) plus the unknown and engine keys.
 */
export function checkWithSchema<S extends z.ZodObject>(
  schema: S,
  news: Record<string, unknown>,
  resource: string,
  options: { multiline?: readonly string[] } = {},
): CheckResult<Record<string, unknown>> {
  const shape = shapeFailures(news, resource);
  if (shape.length > 0) return { inputs: news, failures: shape };
  const passthrough: Record<string, unknown> = {};
  const known: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(news)) {
    if (ENGINE_KEYS.has(key) || containsUnknown(value)) passthrough[key] = value;
    else known[key] = value;
  }
  const mask = Object.fromEntries(
    Object.keys(passthrough)
      .filter((key) => key in schema.shape)
      .map((key) => [key, true]),
  );
  const text = textFailures(known, resource, options.multiline ?? []);
  const parsed = (schema.omit(mask as never) as z.ZodObject).safeParse(known, { error: readableIssue });
  if (parsed.success && text.length === 0) {
    return { inputs: { ...parsed.data, ...passthrough }, failures: [] };
  }
  // A field with a control character gets that failure alone: what else its parse says follows from the character.
  const failed = new Set(text.map((failure) => failure.property.split('.')[0]));
  const rest = parsed.success ? [] : failuresFromZod(parsed.error, resource).filter((f) => !failed.has(f.property.split('.')[0]));
  return { inputs: news, failures: [...text, ...rest] };
}

/**
 * One failure per input that holds a text with a control character, a bidirectional control or a zero-width
 * character (docs/inputs.md#text), nested texts included, naming the character and its position. `multiline` inputs
 * (expressions) may hold tabs and line breaks; a description may hold the joiners of its language.
 */
export function textFailures(inputs: Record<string, unknown>, resource: string, multiline: readonly string[]): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const [field, value] of Object.entries(inputs)) {
    const found = firstControlCharacter(value, [field], multiline.includes(field));
    if (found) failures.push({ property: found.path, reason: `${resource}.${found.path}: ${found.problem}` });
  }
  return failures;
}

function firstControlCharacter(value: unknown, path: string[], multiline: boolean): { path: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = controlCharacterProblem(value, { multiline }) ?? invisibleCharacterProblem(value, { prose: path.at(-1) === 'description' });
    return problem === undefined ? undefined : { path: path.join('.'), problem };
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = firstControlCharacter(item, [...path, key], multiline);
    if (found) return found;
  }
  return undefined;
}

/**
 * How deep an input may nest. The deepest input of any resource is 4 levels (`adjustments.rules.0.ruleId`); past
 * this bound the walk stops before recursion (ours, zod's) can overflow the stack on hostile input.
 */
export const MAX_INPUT_DEPTH = 32;

/** Longest reason a failure carries: a value quoted in it is cut to an excerpt, and the reason itself to this. */
export const MAX_REASON_LENGTH = 500;

/**
 * Failures of the input's shape, found before the schema sees it: a `__proto__` key (as an own key, or as the
 * prototype a deserializer set from it), which would smuggle keys past the schema through the prototype chain, and
 * nesting deeper than MAX_INPUT_DEPTH. Iterative, so hostile input cannot overflow the stack here either.
 */
export function shapeFailures(news: Record<string, unknown>, resource: string): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: news, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    const property = excerptPath(path);
    if (path.length > MAX_INPUT_DEPTH) {
      const top = excerptPath(path.slice(0, 1));
      failures.push({ property: top, reason: `${resource}.${top}: nested more than ${MAX_INPUT_DEPTH} levels deep; no input of ${resource} nests that deep` });
      continue;
    }
    const where = `${resource}.${property}`;
    const prototype = Object.getPrototypeOf(value);
    const plain = Array.isArray(value) ? prototype === Array.prototype : prototype === Object.prototype || prototype === null;
    if (!plain || Object.hasOwn(value, '__proto__')) {
      failures.push(
        property
          ? { property, reason: `${where}: a "__proto__" key is not allowed; remove it` }
          : { property: '__proto__', reason: `${resource}: unknown input "__proto__"; a "__proto__" key is not allowed, remove it` },
      );
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (path.length === 0 && ENGINE_KEYS.has(key)) continue;
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return failures.sort((a, b) => a.property.localeCompare(b.property));
}

/** A property path with each over-long key cut, for a failure's property and reason. */
function excerptPath(path: readonly (string | number)[]): string {
  return path.map((key) => (String(key).length > 60 ? `${String(key).slice(0, 60)}…` : String(key))).join('.');
}

/**
 * A reason with every quoted value over 80 characters cut to an excerpt (quoteExcerpt), and the whole cut to
 * MAX_REASON_LENGTH: a 10 MB value must not come back to the user (and into the engine's log) whole. A plain scan,
 * not a regular expression: a backtracking match over a 10 MB literal overflows the stack.
 */
export function boundedReason(reason: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = reason.indexOf('"', at);
    if (open < 0) break;
    let close = open + 1;
    while (close < reason.length && reason[close] !== '"') close += reason[close] === '\\' ? 2 : 1;
    if (close >= reason.length) break;
    const literal = reason.slice(open, close + 1);
    out += reason.slice(at, open) + (literal.length > 82 ? quoteExcerpt(unquote(literal)) : literal);
    at = close + 1;
  }
  out += reason.slice(at);
  return out.length > MAX_REASON_LENGTH ? `${out.slice(0, MAX_REASON_LENGTH)}… (${out.length} characters)` : out;
}

function unquote(literal: string): string {
  try {
    const text: unknown = JSON.parse(literal);
    if (typeof text === 'string') return text;
  } catch {
    // Not a JSON string: its characters between the quotes, as they are.
  }
  return literal.slice(1, -1);
}

/** One check failure per zod issue: the property path as the engine names it, and a reason that says what to do. */
export function failuresFromZod(error: z.ZodError, resource: string): pulumi.dynamic.CheckFailure[] {
  return error.issues.map((issue) => {
    const failure = failureFromIssue(issue, resource);
    return { property: failure.property, reason: boundedReason(failure.reason) };
  });
}

function failureFromIssue(issue: z.core.$ZodIssue, resource: string): pulumi.dynamic.CheckFailure {
  const property = excerptPath(issue.path.map(String));
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => quoteExcerpt(k)).join(', ');
    // At the top an unknown key is an input of the resource; deeper it is a key of that input.
    return property
      ? { property, reason: `${resource}.${property}: unknown key ${keys}; remove it or check its spelling` }
      : { property: excerptPath([issue.keys[0] ?? '']), reason: `${resource}: unknown input ${keys}; remove it or check its spelling` };
  }
  return { property, reason: `${resource}.${property || 'inputs'}: ${issue.message}` };
}
