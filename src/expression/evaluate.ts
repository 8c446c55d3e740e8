// An evaluator of the rules language over one request, on the parser's syntax tree: what a rule's expression says
// of a request, for the firewall upgrade's equivalence check. Pure. The semantics followed, and where they come
// from, are in docs/expressions.md#evaluation; what it cannot know offline (named lists, JWT and HMAC checks) is
// refused with an EvaluationError rather than guessed.
import type { CallNode, ComparisonNode, ExpressionNode, IndexNode, IpNode, RangeNode, StringNode, ValueLiteral } from './ast';
import { checkExpression, parseExpression } from './index';
import { FIELDS } from './fields';
import { decodeQuoted } from './literals';
import { callFunction } from './evaluate-functions';
import { Each, EvaluationError, inRange, isAddress, parseAddress, rangeOf, wildcardMatches, type Address, type Value } from './values';

export { Each, EvaluationError, type Value } from './values';

/** A field's value in a request: text, a whole number, a flag, an address (as text), an array or a map of arrays. */
export type FieldValue = string | number | boolean | readonly string[] | readonly number[] | Readonly<Record<string, readonly string[]>>;

/** A request as the evaluator sees it: the fields it sets, by name; a field left out has its type's empty value. */
export type TestRequest = Readonly<Record<string, FieldValue>>;

/** A compiled expression: `test(request)` says whether the expression matches it (throws EvaluationError). */
export interface CompiledExpression {
  readonly text: string;
  /** Its syntax tree (the firewall upgrade builds requests from the values it tests). */
  readonly ast: ExpressionNode;
  readonly fields: readonly string[];
  test(request: TestRequest): boolean;
}

/** Parses, checks and compiles an expression; the checker's first problem when it is refused. */
export function compileExpression(text: string): { ok: true; expression: CompiledExpression } | { ok: false; problem: string } {
  const checked = checkExpression(text);
  if (!checked.ok) {
    const [first] = checked.errors;
    return { ok: false, problem: first ? `line ${first.line}, column ${first.column}: ${first.message}` : 'refused' };
  }
  const parsed = parseExpression(text);
  if (!parsed.ok) return { ok: false, problem: 'refused' };
  const { ast } = parsed;
  return { ok: true, expression: { text, ast, fields: checked.fields, test: (request) => truth(evaluate(ast, request)) } };
}

/** Whether an expression matches a request (compiles it each time: compileExpression once for many requests). */
export function matches(text: string, request: TestRequest): boolean {
  const compiled = compileExpression(text);
  if (!compiled.ok) throw new EvaluationError(`expression refused: ${compiled.problem}`);
  return compiled.expression.test(request);
}

function truth(value: Value): boolean {
  if (value instanceof Each) return value.items.some((item) => item === true);
  return value === true;
}

/** The value of a node for a request. */
export function evaluate(node: ExpressionNode, request: TestRequest): Value {
  switch (node.kind) {
    case 'logical': {
      const left = truth(evaluate(node.left, request));
      if (node.operator === 'and') return left && truth(evaluate(node.right, request));
      if (node.operator === 'or') return left || truth(evaluate(node.right, request));
      return left !== truth(evaluate(node.right, request));
    }
    case 'not': {
      const operand = evaluate(node.operand, request);
      if (operand instanceof Each) return new Each(operand.items.map((item) => item !== true));
      if (Array.isArray(operand)) return (operand as readonly Value[]).map((item) => item !== true);
      return operand !== true;
    }
    case 'group':
      return evaluate(node.expression, request);
    case 'comparison':
      return comparison(node, request);
    case 'field':
      return fieldValue(node.name, request);
    case 'call':
      return call(node, request);
    case 'index':
      return index(node, request);
    default:
      return literal(node);
  }
}

/** A field of the request, or its type's empty value: '' , 0, false, no address, [] or an empty map. */
function fieldValue(name: string, request: TestRequest): Value {
  const type = FIELDS.get(name);
  if (type === undefined) throw new EvaluationError(`unknown field ${name}`);
  const raw = Object.hasOwn(request, name) ? request[name] : undefined;
  if (type.kind === 'IP') return typeof raw === 'string' ? parseAddress(raw) : undefined;
  if (raw === undefined) {
    switch (type.kind) {
      case 'String':
      case 'Bytes':
        return '';
      case 'Int':
        return 0;
      case 'Boolean':
        return false;
      case 'Array':
        return [];
      case 'Map':
        return new Map();
      default:
        return undefined;
    }
  }
  if (type.kind === 'Map' && typeof raw === 'object' && !Array.isArray(raw)) return new Map(Object.entries(raw as Record<string, readonly string[]>));
  return raw as Value;
}

const decoded = new WeakMap<StringNode, string>();

/** A string literal's content: escapes decoded, except in a regular expression, which takes them as written. */
export function stringValue(node: StringNode, regex = false): string {
  if (regex || node.rawSyntax) return node.raw;
  let value = decoded.get(node);
  if (value === undefined) {
    const result = decodeQuoted(node.raw);
    value = 'value' in result ? result.value : node.raw;
    decoded.set(node, value);
  }
  return value;
}

function literal(node: ValueLiteral): Value {
  switch (node.kind) {
    case 'string':
      return stringValue(node);
    case 'int':
      return node.value;
    case 'boolean':
      return node.value;
    case 'ip':
      return parseAddress(node.address);
  }
}

function index(node: IndexNode, request: TestRequest): Value {
  const target = evaluate(node.target, request);
  const pick = (value: Value): Value => {
    if (node.index.kind === 'all') return value instanceof Map ? [...value.values()].flatMap((v) => (Array.isArray(v) ? v : [v])) : value;
    if (value instanceof Map) return node.index.kind === 'string' ? value.get(stringValue(node.index)) : undefined;
    if (Array.isArray(value) && node.index.kind === 'int') return (value as readonly Value[])[node.index.value];
    return undefined;
  };
  if (target instanceof Each) {
    const items = target.items.map(pick);
    return new Each(node.index.kind === 'all' ? items.flatMap((item) => (Array.isArray(item) ? (item as Value[]) : [item])) : items);
  }
  const picked = pick(target);
  if (node.index.kind === 'all') {
    if (target instanceof Map) return new Each(picked as Value[]);
    return new Each(Array.isArray(picked) ? (picked as Value[]) : []);
  }
  return picked;
}

function call(node: CallNode, request: TestRequest): Value {
  const args = node.args.map((arg) => evaluate(arg, request));
  const spread = args.findIndex((arg) => arg instanceof Each);
  // A function of an expanded argument applies to each element (docs/expressions.md#evaluation).
  if (spread >= 0 && node.name !== 'any' && node.name !== 'all') {
    const each = args[spread] as Each;
    return new Each(each.items.map((item) => callFunction(node.name, args.map((arg, i) => (i === spread ? item : arg)))));
  }
  return callFunction(node.name, args.map((arg) => (arg instanceof Each ? arg.items : arg)));
}

const regexes = new WeakMap<StringNode, RegExp>();

function regexOf(node: StringNode): RegExp {
  let regex = regexes.get(node);
  if (regex === undefined) {
    try {
      regex = new RegExp(stringValue(node, true));
    } catch (error) {
      throw new EvaluationError(`regular expression ${node.image} is not one JavaScript can run: ${(error as Error).message}`);
    }
    regexes.set(node, regex);
  }
  return regex;
}

function comparison(node: ComparisonNode, request: TestRequest): Value {
  const left = evaluate(node.left, request);
  if (left instanceof Each) return new Each(left.items.map((item) => compare(node, item)));
  return compare(node, left);
}

/** One comparison of a value with the right side of `node`; false whenever the value is missing. */
function compare(node: ComparisonNode, left: Value): boolean {
  const right = node.right;
  if (right.kind === 'list') throw new EvaluationError(`named list $${right.name} cannot be evaluated offline: its items live in the account`);
  if (left === undefined) return false;
  if (right.kind === 'set') return right.items.some((item) => inSetItem(left, item));
  switch (node.operator) {
    case 'eq':
      return equals(left, right);
    case 'ne':
      return !equals(left, right);
    case 'contains':
      return typeof left === 'string' && left.includes(stringValue(right as StringNode));
    case 'matches':
      return typeof left === 'string' && regexOf(right as StringNode).test(left);
    case 'wildcard':
    case 'strict wildcard':
      return typeof left === 'string' && wildcardMatches(stringValue(right as StringNode), left, node.operator === 'strict wildcard');
    case 'in':
      return equals(left, right);
    default:
      return ordered(node.operator, left, literal(right));
  }
}

function equals(left: Value, right: ValueLiteral): boolean {
  if (right.kind === 'ip') return isAddress(left) && addressIn(left, right);
  const value = literal(right);
  return left === value;
}

function ordered(operator: string, left: Value, right: Value): boolean {
  if (!((typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string'))) return false;
  switch (operator) {
    case 'lt':
      return left < right;
    case 'le':
      return left <= right;
    case 'gt':
      return left > right;
    default:
      return left >= right;
  }
}

function addressIn(address: Address, node: IpNode): boolean {
  const base = parseAddress(node.address);
  return base !== undefined && inRange(address, rangeOf(base, node.prefix?.value));
}

function inSetItem(left: Value, item: ValueLiteral | RangeNode): boolean {
  if (item.kind === 'range') {
    if (item.from.kind === 'ip' && item.to.kind === 'ip') {
      const from = parseAddress(item.from.address);
      const to = parseAddress(item.to.address);
      return isAddress(left) && from !== undefined && to !== undefined && inRange(left, { family: from.family, first: from.value, last: to.value });
    }
    const from = literal(item.from);
    const to = literal(item.to);
    return typeof left === 'number' && typeof from === 'number' && typeof to === 'number' && left >= from && left <= to;
  }
  return equals(left, item);
}
