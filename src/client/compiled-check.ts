import type Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';

/**
 * A check of a value against a zod schema that builds nothing: true when the value is valid as it stands, its
 * unknown keys removed in place (as zod's parse drops them from its copy). Where it says false, the caller parses
 * with zod, which gives the error text, so a failure reads the same either way (docs/client.md#list-walk-cost).
 */
export type CompiledCheck = (value: unknown) => boolean;

// zod 4 copies every object it parses; a list walk of 10,000 items spends about as much heap on those copies as on
// the answers themselves. Ajv compiles the same schema, as zod itself exports it to JSON Schema, to a function
// that only reads. Options: removeAdditional drops unknown keys where the schema says `additionalProperties:
// false` (zod's stripping); formats are not checked because zod writes each one it checks as a `pattern` too;
// `unicodeRegExp: false` compiles patterns as zod does (no `u` flag). String lengths are left to zod (see STRING_LENGTHS).
// The schema comes from zod, so it is not checked against the meta-schema (that compile alone costs tens of ms).
// Ajv is loaded on the first list page: a process that never walks a list (most provider operations) never pays for it.
let ajv: Ajv2020 | undefined;
function loadAjv(): Ajv2020 {
  if (!ajv) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when first needed, see above
    const { default: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
    ajv = new Ajv({ removeAdditional: true, validateFormats: false, unicodeRegExp: false, strict: false, validateSchema: false });
  }
  return ajv;
}

const compiled = new WeakMap<z.ZodType, CompiledCheck | null>();

/**
 * The compiled check of `schema`, or undefined when the schema does anything but validate (a transform, a default,
 * a coercion, a refinement, a strict object...): its JSON Schema would accept what zod refuses or give another
 * output, so zod alone parses it.
 */
export function compiledCheck(schema: z.ZodType): CompiledCheck | undefined {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema);
    compiled.set(schema, check);
  }
  return check ?? undefined;
}

function compile(schema: z.ZodType): CompiledCheck | null {
  let json: object;
  try {
    json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw', override: ({ zodSchema }) => requirePlain(zodSchema) });
  } catch {
    return null;
  }
  const validate = loadAjv().compile(json);
  return (value) => validate(value);
}

/** Node types whose JSON Schema says exactly what zod checks, and whose zod output is the input. */
const PLAIN_TYPES = new Set([
  'object',
  'string',
  'number',
  'boolean',
  'null',
  'enum',
  'literal',
  'union',
  'optional',
  'nullable',
  'array',
  'record',
  'unknown',
  'any',
]);
/** Checks written as JSON Schema keywords that ajv applies the same way; a refinement (`custom`) has none. */
const PLAIN_CHECKS = new Set(['min_length', 'max_length', 'length_equals', 'greater_than', 'less_than', 'number_format', 'string_format']);
/** Ajv counts a string's length in code points, zod in UTF-16 units: a schema bounding a string's length stays with zod. */
const STRING_LENGTHS = new Set(['min_length', 'max_length', 'length_equals']);
/** Types whose removal of unknown keys inside an `anyOf` could strip keys from a branch that then fails (ajv's caveat). */
const CONTAINERS = new Set(['object', 'array', 'record', 'union', 'nullable', 'optional']);

interface NodeDef {
  type: string;
  format?: string;
  pattern?: RegExp;
  coerce?: boolean;
  catchall?: unknown;
  checks?: ReadonlyArray<{ _zod: { def: NodeDef & { check: string } } }>;
  options?: ReadonlyArray<{ _zod: { def: NodeDef } }>;
  innerType?: { _zod: { def: NodeDef } };
}

/** Throws (and so leaves the schema to zod) at the first node that is not plain validation. */
function requirePlain(node: z.core.$ZodType): void {
  const def = node._zod.def as unknown as NodeDef;
  if (!PLAIN_TYPES.has(def.type) || def.coerce) throw new Error(`not plain: ${def.type}`);
  if (def.type === 'object' && def.catchall !== undefined) throw new Error('not plain: object with a catchall (strict or passthrough)');
  if (def.format !== undefined) requirePlainFormat(def);
  for (const check of def.checks ?? []) {
    const checkDef = check._zod.def;
    if (!PLAIN_CHECKS.has(checkDef.check)) throw new Error(`not plain: check ${checkDef.check}`);
    if (def.type === 'string' && STRING_LENGTHS.has(checkDef.check)) throw new Error('not plain: a bound on a string length');
    if (checkDef.check === 'string_format' || checkDef.check === 'number_format') requirePlainFormat(checkDef);
  }
  const members = def.type === 'union' ? (def.options ?? []) : def.type === 'nullable' && def.innerType ? [def.innerType] : [];
  if (members.some((member) => CONTAINERS.has(member._zod.def.type))) throw new Error(`not plain: ${def.type} of objects`);
}

/**
 * A string format zod checks with its pattern alone, a pattern JSON Schema carries as is (no flags), or an integer
 * format JSON Schema writes as `integer` with its bounds.
 */
function requirePlainFormat(def: NodeDef): void {
  const plain = ((def.format === 'regex' || def.format === 'datetime') && def.pattern?.flags === '') || def.format === 'safeint' || def.format === 'int32';
  if (!plain) throw new Error(`not plain: format ${String(def.format)}`);
}
