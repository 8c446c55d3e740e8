/** Where a node starts and ends in the text: 1-based line and column, 0-based offsets (end exclusive). */
export interface Span {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
  readonly endOffset: number;
}

/** Comparison operators by their English name; `~` is `matches`, `==` is `eq` and so on. */
export type ComparisonOperator =
  | 'eq'
  | 'ne'
  | 'lt'
  | 'le'
  | 'gt'
  | 'ge'
  | 'contains'
  | 'matches'
  | 'wildcard'
  | 'strict wildcard'
  | 'in';

export type LogicalOperator = 'and' | 'xor' | 'or';

export interface LogicalNode {
  readonly kind: 'logical';
  readonly operator: LogicalOperator;
  /** The operator as written (`and` or `&&`). */
  readonly image: string;
  readonly left: ExpressionNode;
  readonly right: ExpressionNode;
  readonly span: Span;
  /** Where the operator is. */
  readonly operatorSpan: Span;
}

export interface NotNode {
  readonly kind: 'not';
  readonly image: string;
  readonly operand: ExpressionNode;
  readonly span: Span;
}

export interface ComparisonNode {
  readonly kind: 'comparison';
  readonly operator: ComparisonOperator;
  /** The operator as written (`eq`, `==`, `strict wildcard`). */
  readonly image: string;
  readonly left: ExpressionNode;
  readonly right: ValueLiteral | SetNode | ListNode;
  readonly span: Span;
  readonly operatorSpan: Span;
}

export interface FieldNode {
  readonly kind: 'field';
  readonly name: string;
  readonly span: Span;
}

export interface CallNode {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly ExpressionNode[];
  readonly span: Span;
  readonly nameSpan: Span;
}

/** `target[0]`, `target["key"]` or `target[*]`. */
export interface IndexNode {
  readonly kind: 'index';
  readonly target: ExpressionNode;
  readonly index: StringNode | IntNode | { readonly kind: 'all'; readonly span: Span };
  readonly span: Span;
}

/** A parenthesised expression; kept so messages and tests can see the grouping the author wrote. */
export interface GroupNode {
  readonly kind: 'group';
  readonly expression: ExpressionNode;
  readonly span: Span;
}

export interface StringNode {
  readonly kind: 'string';
  /** The source text of the literal, quotes included. */
  readonly image: string;
  /** The content between the delimiters, escapes left as written. */
  readonly raw: string;
  /** `r"..."` / `r#"..."#` literal: no escapes. */
  readonly rawSyntax: boolean;
  /** How many `#` delimit a raw string. */
  readonly hashes: number;
  /** False when the closing delimiter is missing (the literal then runs to the end of the input). */
  readonly terminated: boolean;
  readonly span: Span;
}

export interface IntNode {
  readonly kind: 'int';
  readonly image: string;
  /** The value as a JavaScript number (exact up to 2^53; `image` keeps the digits as written). */
  readonly value: number;
  readonly span: Span;
}

export interface BooleanNode {
  readonly kind: 'boolean';
  readonly value: boolean;
  readonly span: Span;
}

/** An IPv4 or IPv6 address, with a prefix length when written as a CIDR range. */
export interface IpNode {
  readonly kind: 'ip';
  readonly address: string;
  readonly prefix?: IntNode;
  readonly image: string;
  readonly span: Span;
}

/** `80..443` or `198.51.100.3..198.51.100.7`, only inside a set. */
export interface RangeNode {
  readonly kind: 'range';
  readonly from: IntNode | IpNode;
  readonly to: IntNode | IpNode;
  readonly span: Span;
}

/** `{ ... }` after `in`. */
export interface SetNode {
  readonly kind: 'set';
  readonly items: readonly (ValueLiteral | RangeNode)[];
  readonly span: Span;
}

/** `$name`: a named list after `in`. */
export interface ListNode {
  readonly kind: 'list';
  readonly name: string;
  readonly span: Span;
}

export type ValueLiteral = StringNode | IntNode | IpNode | BooleanNode;

/** Any node that can stand where an expression or an operand stands. */
export type ExpressionNode =
  | LogicalNode
  | NotNode
  | ComparisonNode
  | FieldNode
  | CallNode
  | IndexNode
  | GroupNode
  | ValueLiteral;
