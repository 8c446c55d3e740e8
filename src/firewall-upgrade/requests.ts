// The requests the equivalence check tries, built from the rules' own values: every address, path, host, header
// and number an expression tests, and its neighbours (docs/firewall-and-migration.md#equivalence). Pure.
import type { CallNode, ComparisonNode, ExpressionNode, RangeNode, ValueLiteral } from '../expression/ast';
import { stringValue, type FieldValue, type TestRequest } from '../expression/evaluate';
import { FIELDS } from '../expression/fields';
import { addressNeighbours, formatAddress, parseAddress, rangeOf } from '../expression/values';

/** Where a value goes in a request: a field, a key of a map field, or the elements of an array field. */
interface Slot {
  readonly field: string;
  readonly key?: string;
}

/** One place an expression tests, the value that meets the test (`hit`) and values around it (`around`). */
export interface Probe {
  readonly slot: Slot;
  readonly hit: FieldValue;
  readonly around: readonly FieldValue[];
}

/** Functions that hand their argument's value on unchanged enough for a probe (the literal is compared after them). */
const PASS_THROUGH = new Set(['lower', 'upper', 'url_decode', 'remove_bytes']);

/** The slot a comparison's left side reads, or undefined when it is computed in a way a probe cannot invert. */
function slotOf(node: ExpressionNode): Slot | undefined {
  switch (node.kind) {
    case 'field':
      return { field: node.name };
    case 'group':
      return slotOf(node.expression);
    case 'call':
      return PASS_THROUGH.has(node.name) && node.args[0] ? slotOf(node.args[0]) : undefined;
    case 'index': {
      const inner = slotOf(node.target);
      if (inner === undefined) return undefined;
      if (node.index.kind === 'string' && inner.key === undefined) return { ...inner, key: stringValue(node.index) };
      return inner;
    }
    default:
      return undefined;
  }
}

/** A text that a regular expression probably matches: its literal characters, `x` for what repeats. Best effort. */
function regexSample(pattern: string): string {
  return pattern
    .replace(/^\^|\$$/g, '')
    .replace(/\(\?[a-z]+\)/g, '')
    .replace(/\[[^\]]*\][*+?]?|\.[*+?]|\\[dws][*+?]?/g, 'x')
    .replace(/\\(.)/g, '$1')
    .replace(/[()|*+?{}]/g, '');
}

/** A text a wildcard pattern matches, `filler` in place of each `*`; `\*` and `\\` become the character they escape. */
function wildcardSample(pattern: string, filler: string): string {
  return pattern.replace(/\\(.)|\*/g, (_match, escaped: string | undefined) => (escaped === undefined ? filler : escaped));
}

/** The values of one literal's test: the value that meets it first, then its neighbours. */
function valuesFor(operator: string, item: ValueLiteral | RangeNode): FieldValue[] {
  if (item.kind === 'range') {
    if (item.from.kind === 'int' && item.to.kind === 'int') return [item.from.value, item.from.value - 1, item.to.value, item.to.value + 1];
    return [...valuesFor('eq', item.from), ...valuesFor('eq', item.to)];
  }
  switch (item.kind) {
    case 'int': {
      const v = item.value;
      const hit = operator === 'lt' ? v - 1 : operator === 'gt' ? v + 1 : v;
      return [hit, v - 1, v, v + 1];
    }
    case 'boolean':
      return [item.value, !item.value];
    case 'ip': {
      const address = parseAddress(item.address);
      if (address === undefined) return [];
      const range = rangeOf(address, item.prefix?.value);
      const first = { family: address.family, value: range.first };
      const last = { family: address.family, value: range.last };
      return [first, ...addressNeighbours(first), last, ...addressNeighbours(last)].map(formatAddress);
    }
    case 'string': {
      const text = stringValue(item, operator === 'matches');
      if (operator === 'contains') return [`x${text}x`, text.slice(0, -1)];
      if (operator === 'matches') return [regexSample(text), ''];
      if (operator === 'wildcard' || operator === 'strict wildcard') {
        const hit = wildcardSample(text, 'x');
        return [hit, wildcardSample(text, ''), hit.toUpperCase(), `${hit}-`];
      }
      const other = text.toUpperCase() === text ? text.toLowerCase() : text.toUpperCase();
      return [operator === 'ne' ? `${text}-` : text, `${text}-`, ...(other === text ? [] : [other]), text.slice(0, -1)];
    }
  }
}

function comparisonProbes(node: ComparisonNode): Probe[] {
  const slot = slotOf(node.left);
  if (slot === undefined || node.right.kind === 'list') return [];
  const items = node.right.kind === 'set' ? node.right.items : [node.right];
  return items.flatMap((item) => {
    const [hit, ...around] = valuesFor(node.operator, item);
    return hit === undefined ? [] : [{ slot, hit, around }];
  });
}

function callProbes(node: CallNode): Probe[] {
  const [target, literal] = node.args;
  const slot = target ? slotOf(target) : undefined;
  if (slot === undefined || literal?.kind !== 'string') return [];
  const text = stringValue(literal);
  if (node.name === 'starts_with') return [{ slot, hit: `${text}x`, around: [text.slice(0, -1)] }];
  if (node.name === 'ends_with') return [{ slot, hit: `x${text}`, around: [text.slice(1)] }];
  if (node.name === 'has_key') return [{ slot: { field: slot.field, key: text }, hit: 'x', around: [] }];
  return [];
}

/** Every probe of an expression's syntax tree, in the order written; `not` turns a probe's hit into its first neighbour. */
export function probesOf(node: ExpressionNode, negated = false): Probe[] {
  const flip = (probes: Probe[]): Probe[] =>
    negated ? probes.map((probe) => ({ slot: probe.slot, hit: probe.around[0] ?? probe.hit, around: [probe.hit, ...probe.around.slice(1)] })) : probes;
  switch (node.kind) {
    case 'logical':
      return [...probesOf(node.left, negated), ...probesOf(node.right, negated)];
    case 'not':
      return probesOf(node.operand, !negated);
    case 'group':
      return probesOf(node.expression, negated);
    case 'comparison':
      return flip(comparisonProbes(node));
    case 'call':
      return node.args.some((arg) => arg.kind === 'comparison' || arg.kind === 'logical')
        ? node.args.flatMap((arg) => probesOf(arg, negated))
        : flip(callProbes(node));
    case 'field':
      return FIELDS.get(node.name)?.kind === 'Boolean' ? [{ slot: { field: node.name }, hit: !negated, around: [negated] }] : [];
    default:
      return [];
  }
}

/** A request with one more value set, at its slot (a map's key, an array's one element, or the field). */
export function withValue(request: TestRequest, slot: Slot, value: FieldValue): TestRequest {
  const type = FIELDS.get(slot.field);
  if (type?.kind === 'Map') {
    const current = (request[slot.field] ?? {}) as Readonly<Record<string, readonly string[]>>;
    return { ...request, [slot.field]: { ...current, [slot.key ?? '']: [String(value)] } };
  }
  if (type?.kind === 'Array') return { ...request, [slot.field]: [value] as readonly string[] };
  return { ...request, [slot.field]: value };
}

/** The request that meets every probe of a list (later ones win a shared slot). */
export function witness(probes: readonly Probe[], base: TestRequest = {}): TestRequest {
  return probes.reduce((request, probe) => withValue(request, probe.slot, probe.hit), base);
}

/**
 * The requests to try for rules whose probes are given, one list per rule: nothing set; each rule's witness; each
 * witness with one value moved to a neighbour; and each witness over every other rule's values, so that rules that
 * overlap meet the same request. Deduplicated, in a stable order.
 */
export function requestsFor(rules: readonly (readonly Probe[])[]): TestRequest[] {
  const everything = witness(rules.flat());
  const seen = new Map<string, TestRequest>();
  const add = (request: TestRequest) => {
    const key = JSON.stringify(Object.entries(request).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (!seen.has(key)) seen.set(key, request);
  };
  add({});
  for (const probes of rules) {
    const own = witness(probes);
    add(own);
    for (const probe of probes) for (const value of probe.around) add(withValue(own, probe.slot, value));
    add(witness(probes, everything));
  }
  return [...seen.values()];
}
