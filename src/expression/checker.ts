import type {
  CallNode,
  ComparisonNode,
  ComparisonOperator,
  ExpressionNode,
  IndexNode,
  IntNode,
  IpNode,
  ListNode,
  RangeNode,
  SetNode,
  Span,
  StringNode,
  ValueLiteral,
} from './ast';
import { excerpt, positionAt, type ExpressionError } from './errors';
import { FIELD_NAMES, FIELDS } from './fields';
import { arity, FUNCTION_NAMES, FUNCTIONS, ONCE_PER_EXPRESSION, type ArgumentInfo } from './functions';
import { decodeQuoted, doubleStarAt, isIPv4, isIPv6 } from './literals';
import { closest } from './suggest';
import { arrayOf, BOOLEAN, INT, IP, STRING, typeName, UNKNOWN_TYPE } from './types';

/** What the checker learns about a sub-expression. */
interface Info extends ArgumentInfo {
  /** Expanded with `[*]`: `type` is the type of one element, and operators and functions apply element-wise. */
  readonly each: boolean;
}

const unknown: Info = { type: UNKNOWN_TYPE, each: false, literal: false };

// Which comparison operators apply to which field types (the operators table of the documentation; String and
// Bytes alike). Booleans, arrays and maps take none: a Boolean stands alone, containers are indexed first.
const OPERATORS_BY_TYPE: Record<string, ReadonlySet<ComparisonOperator>> = {
  String: new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains', 'matches', 'wildcard', 'strict wildcard', 'in']),
  Int: new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in']),
  IP: new Set(['eq', 'ne', 'in']),
};

// Integers are 64-bit signed in the engine; compared exactly on the digits as written.
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// Named lists: lowercase letters, digits and _ (documentation); Cloudflare's managed lists are `cf.`-prefixed.
function isListName(name: string): boolean {
  const own = name.startsWith('cf.') ? name.slice(3) : name;
  if (own.length === 0) return false;
  for (const ch of own) {
    const c = ch.charCodeAt(0);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95)) return false;
  }
  return true;
}

/** The result of checking a parsed expression. */
export interface AstCheckResult {
  readonly errors: ExpressionError[];
  readonly fields: string[];
}

/** Type-checks an AST against the field and function catalogs. */
export function checkAst(ast: ExpressionNode, text: string): AstCheckResult {
  const checker = new Checker(text);
  checker.condition(ast, false);
  const errors = checker.errors.sort((a, b) => a.offset - b.offset).map(({ line, column, message }) => ({ line, column, message }));
  return { errors, fields: [...checker.fields] };
}

class Checker {
  readonly errors: (ExpressionError & { offset: number })[] = [];
  readonly fields = new Set<string>();
  private readonly onceUsed = new Set<string>();
  private readonly onceOpen: string[] = [];

  constructor(private readonly text: string) {}

  private report(at: Span | number, message: string): void {
    const offset = typeof at === 'number' ? at : at.offset;
    const { line, column } = typeof at === 'number' ? positionAt(this.text, at) : at;
    this.errors.push({ line, column, message, offset });
  }

  private source(span: Span): string {
    return excerpt(this.text.slice(span.offset, span.endOffset).replace(/\s+/g, ' '));
  }

  /** How messages name an operand: `field ip.src`, `field http.request.headers["x"][0]`, `lower(http.host)`. */
  private describe(node: ExpressionNode): string {
    let root = node;
    while (root.kind === 'index' || root.kind === 'group') root = root.kind === 'index' ? root.target : root.expression;
    return root.kind === 'field' ? `field ${this.source(node.span)}` : this.source(node.span);
  }

  /** Checks a sub-expression that must be a Boolean (the whole expression, operands of and/or/xor/not). */
  condition(node: ExpressionNode, expand: boolean): void {
    this.requireBoolean(node, this.value(node, expand), false);
  }

  private requireBoolean(node: ExpressionNode, info: Info, allowArray: boolean): void {
    const t = info.type;
    if (t.kind === 'Boolean' || t.kind === 'Unknown') return;
    if (t.kind === 'Array' && (t.of.kind === 'Boolean' || t.of.kind === 'Unknown')) {
      if (!allowArray) this.report(node.span, `${this.describe(node)} is of type ${typeName(t)}, not Boolean: wrap it in any() or all()`);
      return;
    }
    this.report(node.span, `${this.describe(node)} is of type ${typeName(t)}, not Boolean: compare it with an operator`);
  }

  value(node: ExpressionNode, expand: boolean): Info {
    switch (node.kind) {
      case 'logical': {
        // Long and/or chains are left-deep trees: walk the left spine iteratively, not by recursion.
        const rights: ExpressionNode[] = [];
        let left: ExpressionNode = node;
        while (left.kind === 'logical') {
          rights.push(left.right);
          left = left.left;
        }
        this.condition(left, expand);
        for (let i = rights.length - 1; i >= 0; i--) this.condition(rights[i] as ExpressionNode, expand);
        return { type: BOOLEAN, each: false, literal: false };
      }
      case 'not': {
        const operand = this.value(node.operand, expand);
        // `not` also negates element-wise, as in all(not len(x[*])[*] in {3 4}).
        this.requireBoolean(node.operand, operand, true);
        return operand.type.kind === 'Array' ? { type: operand.type, each: false, literal: false } : { type: BOOLEAN, each: false, literal: false };
      }
      case 'group':
        return this.value(node.expression, expand);
      case 'comparison':
        return this.comparison(node, expand);
      case 'field': {
        const type = FIELDS.get(node.name);
        if (!type) {
          this.unknownField(node.name, node.span);
          return unknown;
        }
        this.fields.add(node.name);
        return { type, each: false, literal: false, field: node.name };
      }
      case 'call':
        return this.call(node);
      case 'index':
        return this.index(node, expand);
      case 'string':
        this.stringLiteral(node, false);
        return { type: STRING, each: false, literal: true };
      case 'int':
        this.intLiteral(node);
        return { type: INT, each: false, literal: true, intValue: node.value };
      case 'boolean':
        return { type: BOOLEAN, each: false, literal: true };
      case 'ip':
        this.ipLiteral(node, false);
        return { type: IP, each: false, literal: true };
    }
  }

  private unknownField(name: string, span: Span): void {
    if (FUNCTIONS.has(name)) {
      this.report(span, `${name} is a function: call it as ${name}(...)`);
      return;
    }
    const suggestion = closest(name, FIELD_NAMES);
    this.report(span, `unknown field "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
  }

  private comparison(node: ComparisonNode, expand: boolean): Info {
    const result = (each: boolean): Info => ({ type: each ? arrayOf(BOOLEAN) : BOOLEAN, each: false, literal: false });
    const left = node.left;
    if (left.kind === 'string' || left.kind === 'int' || left.kind === 'ip' || left.kind === 'boolean') {
      this.report(left.span, `a comparison starts with a field or a function call, found ${this.describeLiteral(left)}`);
      return unknown;
    }
    const info = this.value(left, expand);
    const t = info.type;
    if (t.kind === 'Unknown') {
      this.rightOfUnknown(node);
      return result(info.each);
    }
    const kind = t.kind === 'Bytes' ? 'String' : t.kind;
    const allowed = OPERATORS_BY_TYPE[kind];
    if (!allowed?.has(node.operator)) {
      const hint =
        t.kind === 'Boolean'
          ? ': use it alone, or with not'
          : t.kind === 'Map'
            ? ': index it with ["key"] first'
            : t.kind === 'Array'
              ? ': index it with [0], or use [*] inside any() or all()'
              : '';
      this.report(node.operatorSpan, `operator "${node.image}" does not apply to ${this.describe(left)} of type ${typeName(t)}${hint}`);
      this.rightOfUnknown(node);
      return unknown;
    }
    // Built only when a message needs it: describing the operand slices the source text.
    const context = (): string => `${this.describe(left)} is of type ${typeName(t)}`;
    const right = node.right;
    if (right.kind === 'set') this.set(right, kind, context, node);
    else if (right.kind === 'list') this.list(right);
    else this.scalar(right, kind, context, node);
    return result(info.each);
  }

  /** Still validates the literals on the right when the left side already failed. */
  private rightOfUnknown(node: ComparisonNode): void {
    const right = node.right;
    const items = right.kind === 'set' ? right.items : right.kind === 'list' ? [] : [right];
    for (const item of items) {
      for (const literal of item.kind === 'range' ? [item.from, item.to] : [item]) {
        if (literal.kind === 'string') this.stringLiteral(literal, node.operator === 'matches');
        else if (literal.kind === 'int') this.intLiteral(literal);
        else if (literal.kind === 'ip') this.ipLiteral(literal, true);
      }
    }
    if (right.kind === 'list') this.list(right);
  }

  private scalar(right: ValueLiteral, kind: string, context: () => string, node: ComparisonNode): void {
    const expected = kind === 'String' ? 'a string' : kind === 'Int' ? 'an integer' : 'an IP address';
    const wanted = kind === 'String' ? 'string' : kind === 'Int' ? 'int' : 'ip';
    if (right.kind !== wanted) {
      this.report(right.span, `expected ${expected} after "${node.image}" (${context()}), found ${this.describeLiteral(right)}`);
      return;
    }
    if (right.kind === 'string') {
      const value = this.stringLiteral(right, node.operator === 'matches');
      if (value !== undefined && (node.operator === 'wildcard' || node.operator === 'strict wildcard') && doubleStarAt(value) >= 0) {
        this.report(right.span, `a wildcard pattern must not contain "**"; escape a literal * as \\*`);
      }
    } else if (right.kind === 'int') this.intLiteral(right);
    else if (right.kind === 'ip') {
      if (right.prefix) {
        this.report(right.span, `a CIDR range cannot follow "${node.image}": write ${this.source(node.left.span)} in {${right.image}}`);
        return;
      }
      this.ipLiteral(right, false);
    }
  }

  private set(set: SetNode, kind: string, context: () => string, node: ComparisonNode): void {
    const expected = kind === 'String' ? 'a string' : kind === 'Int' ? 'an integer' : 'an IP address';
    for (const item of set.items) {
      if (item.kind === 'range') {
        this.range(item, kind, context);
        continue;
      }
      if (kind === 'String' && item.kind === 'string') this.stringLiteral(item, false);
      else if (kind === 'Int' && item.kind === 'int') this.intLiteral(item);
      else if (kind === 'IP' && item.kind === 'ip') this.ipLiteral(item, true);
      else this.report(item.span, `expected ${expected} in the set after "${node.image}" (${context()}), found ${this.describeLiteral(item)}`);
    }
  }

  private range(range: RangeNode, kind: string, context: () => string): void {
    const { from, to } = range;
    if (kind === 'Int' && from.kind === 'int' && to.kind === 'int') {
      this.intLiteral(from);
      this.intLiteral(to);
      return;
    }
    if (kind === 'IP' && from.kind === 'ip' && to.kind === 'ip') {
      if (from.prefix || to.prefix) {
        this.report(range.span, `a range joins two addresses, not CIDR ranges: ${this.source(range.span)}`);
        return;
      }
      const fromOk = this.ipLiteral(from, false);
      const toOk = this.ipLiteral(to, false);
      if (fromOk && toOk && from.address.includes(':') !== to.address.includes(':')) {
        this.report(range.span, `range ${this.source(range.span)} mixes IPv4 and IPv6 addresses`);
      }
      return;
    }
    if (kind === 'String') {
      this.report(range.span, `ranges apply to integers and IP addresses, not to strings (${context()})`);
      return;
    }
    const expected = kind === 'Int' ? 'integers' : 'IP addresses';
    this.report(range.span, `expected a range of ${expected} (${context()}), found ${this.source(range.span)}`);
  }

  private list(list: ListNode): void {
    if (!isListName(list.name)) {
      this.report(list.span, `invalid list name "$${list.name}": list names use lowercase letters, digits and _`);
    }
  }

  private call(node: CallNode): Info {
    const spec = FUNCTIONS.get(node.name);
    const isOnce = ONCE_PER_EXPRESSION.has(node.name);
    if (isOnce) {
      if (this.onceOpen.length > 0) {
        this.report(node.nameSpan, `${node.name}() cannot be used inside ${this.onceOpen[this.onceOpen.length - 1]}()`);
      } else if (this.onceUsed.has(node.name)) {
        this.report(node.nameSpan, `${node.name}() can be used only once in an expression`);
      }
      this.onceUsed.add(node.name);
      this.onceOpen.push(node.name);
    }
    // Only a function's first argument may expand an array with [*] (documentation, Arrays).
    const args = node.args.map((arg, i) => this.value(arg, i === 0));
    if (isOnce) this.onceOpen.pop();
    if (!spec) {
      if (FIELDS.has(node.name)) this.report(node.nameSpan, `${node.name} is a field, not a function`);
      else {
        const suggestion = closest(node.name, FUNCTION_NAMES);
        this.report(node.nameSpan, `unknown function "${node.name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
      }
      return unknown;
    }
    const { min, max } = arity(spec);
    if (args.length < min || args.length > max) {
      const range = max === Infinity ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`;
      const noun = max === 1 && min === 1 ? 'argument' : 'arguments';
      this.report(node.nameSpan, `function ${node.name}() takes ${range} ${noun}, found ${args.length}`);
      return { type: spec.returns([]), each: false, literal: false };
    }
    let failed = false;
    args.forEach((arg, i) => {
      const param = spec.params[Math.min(i, spec.params.length - 1)]!;
      const argNode = node.args[i]!;
      const label = `argument ${i + 1} of ${node.name}()`;
      if (!param.accepts(arg.type)) {
        const what = arg.field ? `field ${arg.field} of type ${typeName(arg.type)}` : typeName(arg.type);
        this.report(argNode.span, `${label} must be ${param.expects}, found ${what}`);
        failed = true;
      } else if (param.literal === 'forbidden' && arg.literal) {
        this.report(argNode.span, `${label} must be a field or a function result, not a literal`);
        failed = true;
      } else if (param.literal === 'required' && !arg.literal) {
        this.report(argNode.span, `${label} must be a literal value`);
        failed = true;
      } else if (param.range && arg.intValue !== undefined) {
        const [lo, hi] = param.range;
        if (arg.intValue < lo || arg.intValue > hi) {
          this.report(argNode.span, `${label} must be between ${lo} and ${hi}, found ${arg.intValue}`);
          failed = true;
        }
      }
    });
    if (!failed) {
      const problem = spec.extraCheck?.(args);
      if (problem) this.report(node.args[problem.arg]!.span, problem.message);
      if (node.name === 'wildcard_replace' && node.args[1]?.kind === 'string') {
        const pattern = this.stringLiteral(node.args[1], false, true);
        if (pattern !== undefined && doubleStarAt(pattern) >= 0) {
          this.report(node.args[1].span, `a wildcard pattern must not contain "**"; escape a literal * as \\*`);
        }
      }
    }
    const type = spec.returns(args);
    return args[0]?.each ? { type: arrayOf(type), each: false, literal: false } : { type, each: false, literal: false };
  }

  private index(node: IndexNode, expand: boolean): Info {
    const target = this.value(node.target, expand);
    const t = target.type;
    const index = node.index;
    if (index.kind === 'all' && !expand) {
      this.report(index.span, '[*] can only be used in the first argument of a function call');
      return unknown;
    }
    if (t.kind === 'Unknown') return { ...unknown, each: target.each || index.kind === 'all' };
    if (t.kind === 'Array') {
      if (index.kind === 'string') {
        this.report(index.span, `${this.describe(node.target)} is an array: index it with an integer or [*], found string ${index.image}`);
        return unknown;
      }
      if (index.kind === 'int' && index.value < 0) {
        this.report(index.span, `an array index cannot be negative, found ${index.image}`);
        return unknown;
      }
      return { type: t.of, each: target.each || index.kind === 'all', literal: false };
    }
    if (t.kind === 'Map') {
      if (index.kind === 'int') {
        this.report(index.span, `${this.describe(node.target)} is a map: index it with a string key, found integer ${index.image}`);
        return unknown;
      }
      if (index.kind === 'string') this.stringLiteral(index, false);
      return { type: t.of, each: target.each || index.kind === 'all', literal: false };
    }
    this.report(index.span, `${this.describe(node.target)} of type ${typeName(t)} cannot be indexed`);
    return unknown;
  }

  /** Validates a string literal; returns its decoded content, or undefined after reporting a problem. */
  private stringLiteral(node: StringNode, regex: boolean, quiet = false): string | undefined {
    if (!node.terminated) {
      if (!quiet) this.report(node.span, `unterminated ${node.rawSyntax ? 'raw ' : ''}string: missing closing "${'#'.repeat(node.hashes)}`);
      return undefined;
    }
    if (node.rawSyntax || regex) return node.raw;
    const decoded = decodeQuoted(node.raw);
    if ('problem' in decoded) {
      if (!quiet) this.report(node.span.offset + 1 + decoded.problem.at, decoded.problem.message);
      return undefined;
    }
    return decoded.value;
  }

  private intLiteral(node: IntNode): void {
    const value = BigInt(node.image);
    if (value < INT64_MIN || value > INT64_MAX) {
      this.report(node.span, `integer ${excerpt(node.image)} is out of range (64-bit signed)`);
    }
  }

  /** Validates an address and, where allowed, its CIDR prefix; returns whether it is valid. */
  private ipLiteral(node: IpNode, allowPrefix: boolean): boolean {
    const v6 = node.address.includes(':');
    if (v6 ? !isIPv6(node.address) : !isIPv4(node.address)) {
      this.report(node.span, `invalid IPv${v6 ? 6 : 4} address "${excerpt(node.address)}"`);
      return false;
    }
    if (node.prefix) {
      if (!allowPrefix) {
        this.report(node.span, `a CIDR range is only allowed in a set after "in", found ${node.image}`);
        return false;
      }
      const max = v6 ? 128 : 32;
      if (node.prefix.value < 0 || node.prefix.value > max) {
        this.report(node.prefix.span, `prefix length ${excerpt(node.prefix.image)} is out of range for an IPv${v6 ? 6 : 4} address (0-${max})`);
        return false;
      }
    }
    return true;
  }

  private describeLiteral(node: ValueLiteral): string {
    switch (node.kind) {
      case 'string':
        return `string ${excerpt(node.image)}`;
      case 'int':
        return `integer ${excerpt(node.image)}`;
      case 'ip':
        return `IP address ${node.image}`;
      case 'boolean':
        return String(node.value);
    }
  }
}
