// The move of a stack's firewall resources to CustomRule resources, in one `pulumi up` (docs/firewall-and-migration.md#move):
// which CustomRule replaces each firewall rule the stack holds, in the planned order, and the program that declares
// them. Pure.
import { CustomRuleKind, phaseRuleFromWire } from '../kinds';
import type { RulesetRule } from '../schemas';
import { readableIssue } from '../schemas/messages';
import { splitMarked } from '../schemas/owner-marker';
import { block, slug, tsString } from '../insights/export';
import { phaseRuleFields } from '../insights/export-kinds';
import type { Holder } from './match';

/** One CustomRule of the move: what the stack declares in place of one of its firewall rules. */
export interface MoveRule {
  /** The resource's name: the firewall resource's it replaces (from its URN), else one made of the rule's ids. */
  name: string;
  /** The URN of the stack's resource that holds the rule now (a firewall resource, or a CustomRule after the move). */
  replaces: string | null;
  /** The legacy rule, while the legacy API answers reads. */
  legacyRuleId: string | null;
  /** The converted custom rule it adopts (`adoptRuleId`); null while the conversion is still to come (it is created). */
  customRuleId: string | null;
  /** Whether the custom rule carries an owner marker (the firewall resource's, kept by the conversion): adopting it needs takeOver. */
  takeOver: boolean;
  /** The custom rule it declares (its ref without the owner marker). */
  rule: RulesetRule;
}

/** The move of a zone: how the `up` goes, in one line, and the CustomRules in the order they run. */
export interface Move {
  /** `create then delete` while the legacy API is available; `adopt` once the zone's rules were converted. */
  steps: 'create then delete' | 'adopt';
  note: string;
  /** The id of the phase's rule the first created rule goes after (`available`); null: first in the phase, or nothing created. */
  after: string | null;
  rules: MoveRule[];
  /**
   * The requests tried that the zone decides otherwise after the move than before it, with both outcomes: while the
   * legacy API is available, the legacy rules the move leaves (no resource of the given stacks holds them) still run
   * first, before every custom rule (docs/service.md#zone-evaluation). Empty when the move's end decides as before.
   */
  differences: { request: string; before: string; after: string }[];
}

/** What the plan knows of one rule the stack holds. */
export interface MoveEntry {
  holder: Holder;
  legacyRuleId: string | null;
  customRuleId: string | null;
  rule: RulesetRule;
}

/** The last part of a URN (the resource's logical name), or undefined. */
export function nameOfUrn(urn: string | undefined): string | undefined {
  const name = urn?.split('::').at(-1);
  return name === undefined || name === '' ? undefined : name;
}

/**
 * The move of the rules the stack holds (`entries`, in the planned order), after the phase's rule `after`; `differences`:
 * the requests its end decides otherwise than the zone did (Move.differences). Pure.
 */
export function moveOf(entries: readonly MoveEntry[], after: string | null, differences: Move['differences'] = []): Move {
  const used = new Set<string>();
  const rules = entries.map((entry): MoveRule => {
    const urn = entry.holder.by === 'this stack' ? entry.holder.urn : undefined;
    const base = nameOfUrn(urn) ?? `custom-rule-${(entry.legacyRuleId ?? entry.customRuleId ?? '').slice(0, 8)}`;
    let name = base;
    for (let n = 2; used.has(name); n += 1) name = `${base}-${n}`;
    used.add(name);
    const { own, marker } = splitMarked(entry.rule.ref);
    const rule: RulesetRule = { ...entry.rule, ref: entry.rule.ref === entry.rule.id ? '' : own };
    return {
      name,
      replaces: urn ?? null,
      legacyRuleId: entry.legacyRuleId,
      customRuleId: entry.customRuleId,
      takeOver: entry.customRuleId !== null && marker !== undefined,
      rule,
    };
  });
  const creates = rules.filter((rule) => rule.customRuleId === null).length;
  const note =
    creates > 0
      ? `the up creates these ${creates} custom rule(s) first, in this order, then deletes the firewall rules they replace: ` +
        'the two overlap, both run meanwhile, so every request is covered by one or the other at every moment' +
        endNote(differences)
      : `the up adopts each of these ${rules.length} converted rule(s) (one write each: its owner marker) and the firewall ` +
        'resources leave the state without a call to the legacy API: nothing is deleted';
  return { steps: creates > 0 ? 'create then delete' : 'adopt', note, after: creates > 0 ? after : null, rules, differences };
}

/** What the note adds when the move's end decides some requests otherwise (Move.differences says why). */
function endNote(differences: Move['differences']): string {
  const first = differences[0];
  if (first === undefined) return '';
  return (
    `; but the legacy rules it leaves (no resource of the given stacks holds them) still run first, before every custom rule, so after the move ` +
    `${differences.length} request(s) of those tried are decided otherwise than before, e.g. ${first.request}: before ${first.before}, after ${first.after} ` +
    '(move those rules too, or change them, before the up)'
  );
}

/**
 * Why the program of the move would fail its CustomRules' check: one line per input the kind's args refuse (a ref with
 * no room left for the owner marker, say: a hand-made firewall rule's ref may take the service's 50 characters), naming
 * the firewall rule and what to do, so the plan says it before the up does. Pure.
 */
export function moveProblems(zoneId: string, move: Move): string[] {
  return move.rules.flatMap((entry) => {
    const declared = Object.fromEntries(Object.entries(phaseRuleFromWire(entry.rule)).filter(([, value]) => value !== undefined));
    const parsed = CustomRuleKind.args.safeParse({ zoneId, ...declared }, { error: readableIssue });
    if (parsed.success) return [];
    const rule = entry.legacyRuleId === null ? `custom rule ${entry.customRuleId ?? ''}` : `firewall rule ${entry.legacyRuleId}`;
    return parsed.error.issues.map(
      (issue) =>
        `${rule}: the CustomRule '${entry.name}' the move declares for it would be refused (CustomRule.${issue.path.join('.')}: ${issue.message}); ` +
        'change that input in the program the plan writes (an adoption writes it), or the firewall rule while the legacy API is available',
    );
  });
}

/** A resource's variable: camel case of its name. */
const variableOf = (name: string) => `rule${(slug(name) || 'x').split('-').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}`;

/**
 * The Pulumi program of the move: one CustomRule per rule the stack holds, declared with the fields the rule holds or
 * will hold. Converted: each adopts its rule (`adoptRuleId`, `takeOver` when the firewall resource's marker is on it)
 * and keeps its place. Still to come: each is placed after the one before it, the first after the phase's rules. Pure.
 */
export function renderMoveProgram(zoneId: string, move: Move): string {
  const lines = [
    "import { CustomRule } from 'pulumi-zoneguard';",
    '',
    `const zoneId = ${tsString(zoneId)};`,
    '',
    `// The move of this stack's firewall rules to custom rules (docs/firewall-and-migration.md#move): ${move.note}.`,
    '// Remove the FirewallRuleWithFilter, FirewallFilter and FirewallRule resources of this zone from the program.',
  ];
  let previous: string | undefined;
  const variables = new Set<string>();
  for (const entry of move.rules) {
    let variable = variableOf(entry.name);
    for (let n = 2; variables.has(variable); n += 1) variable = `${variableOf(entry.name)}${n}`;
    variables.add(variable);
    const placed = previous !== undefined ? `{ after: ${previous}.ruleId }` : move.after !== null ? `{ after: ${tsString(move.after)} }` : '{ first: true }';
    const fields: [string, string | undefined][] = [
      ['zoneId', 'zoneId'],
      ...phaseRuleFields('CustomRule', entry.rule),
      ['position', entry.customRuleId === null ? placed : undefined],
      ['adoptRuleId', entry.customRuleId === null ? undefined : tsString(entry.customRuleId)],
      ['takeOver', entry.takeOver ? 'true' : undefined],
    ];
    const was = [entry.legacyRuleId ? `firewall rule ${entry.legacyRuleId}` : undefined, entry.replaces ? `held by ${entry.replaces}` : undefined]
      .filter(Boolean)
      .join(', ');
    lines.push('', block('CustomRule', variable, entry.name, fields, [was === '' ? `Custom rule ${entry.customRuleId ?? ''}.` : `Was ${was}.`]));
    if (entry.customRuleId === null) previous = variable;
  }
  return `${lines.join('\n')}\n`;
}
