// How `zoneguard export` declares each kind: from its field table (src/kinds) in the program's words (the order of the
// inputs, the names, the comment), or, where a kind's program is not its field table, by a program of its own. One
// entry per kind of the registry: a kind without one is a compile error. Pure.
import { isDeepStrictEqual } from 'node:util';
import type { RulesetRule, SavedRuleset } from '../schemas';
import { rulesFromRuleset } from '../rulesets';
import { splitMarked } from '../schemas/owner-marker';
import {
  PHASE_RULE_WIRE_FIELDS,
  declarationOf,
  defaultsOf,
  phaseRuleFromWire,
  wireValue,
  type Declarations,
  type ObjectType,
  type ResourceKind,
} from '../kinds';
import { block, nameObjects, tsLiteral, tsString } from './program-text';
import { migrationModeOf, objectsOf, type ZoneSnapshot } from './zone-snapshot';

/** One declaration of the program: its kind, where it goes (section, then the object's id), and its text. */
export interface Block {
  kind: ResourceKind;
  section: number;
  id: string;
  text: string;
}

/** An object of the service as export reads it: its id, and its description when it has one. */
export type WireObject = { id: string; description?: string };

/** The variable each declared object of a type has, by its id: a declaration references another by it. */
export type VariableOf = (type: ObjectType, id: string) => string | undefined;

/** A kind declared from its field table: each input read from the object at its field's wire name. */
export interface FieldTableExport<I extends string = string> {
  /** Where its declarations go in the program: sections in order, objects by id within one. */
  section: number;
  /**
   * The resource name and variable of an object without a description (the variable's prefix for a kind of many
   * objects, the name then the slug of its description). Kinds of one object type are named together, so theirs agree.
   */
  names: { name: string; variable: string };
  /** The inputs the program declares, in its order. */
  order: readonly I[];
  /** Inputs left out when empty ('' or []): the kind's args default them. */
  quiet?: readonly I[];
  /** An input whose value is not the wire's: a reference to another declaration (a rule's shared filter by its variable). */
  values?: Partial<Record<I, (object: WireObject, variableOf: VariableOf) => string | undefined>>;
  comment: (object: WireObject, snapshot: ZoneSnapshot) => string[];
}

/** A kind whose program is not its field table (a mode derived from the zone's state, rules converted as a whole). */
export interface ProgramExport {
  section: number;
  /** Its declarations, each with the id that orders it within its section. */
  program: (snapshot: ZoneSnapshot) => Array<Pick<Block, 'id' | 'text'>>;
}

type InputOf<K extends ResourceKind> = Declarations[K]['fields'][number]['input'];

/** Whether a kind is declared from its field table. */
export const isFieldTable = (how: FieldTableExport | ProgramExport): how is FieldTableExport => 'order' in how;

/** Both firewall rule kinds: one list of rules, named together. */
const RULE_NAMES = { name: 'firewall-rule', variable: 'rule' };
/** The fields of a rule every form declares, after its filter. */
const RULE_ORDER = ['action', 'paused', 'priority', 'ref', 'products'] as const;

const WAF_MANAGED_RULES_COMMENT = [
  'The new WAF: the zone migrated, and its managed rules entry point holds these rules, in this order. Declared',
  'with the refs the zone holds, so the first `pulumi up` takes them over with one write (its owner marker); delete puts them back',
  '(docs/firewall-and-migration.md, "Then manage it").',
];

/** How each kind of the registry is exported. Both firewall rule kinds share section 3, so the rules stay in id order whichever form each takes. */
export const EXPORTS: { [K in ResourceKind]: FieldTableExport<InputOf<K>> | ProgramExport } = {
  PageGuardSettings: {
    section: 0,
    names: { name: 'page-guard', variable: 'pageGuard' },
    order: ['enabled', 'useVendorReportingEndpoint', 'useConnectionUrlPath'],
    comment: () => ['The page security settings (one per zone).'],
  },
  CspPolicy: {
    section: 1,
    names: { name: 'csp-policy', variable: 'csp' },
    order: ['description', 'action', 'expression', 'enabled', 'value'],
    comment: (policy) => [`CSP policy ${policy.id}.`],
  },
  FirewallFilter: {
    section: 2,
    names: { name: 'filter', variable: 'filter' },
    order: ['description', 'expression', 'paused', 'ref'],
    quiet: ['ref'],
    comment: (filter, { firewallRules }) => {
      const users = firewallRules.filter((rule) => rule.filter.id === filter.id).length;
      return [`Filter ${filter.id}, ${users === 0 ? 'used by no rule' : `shared by ${users} rules`}.`];
    },
  },
  FirewallRule: {
    section: 3,
    names: RULE_NAMES,
    order: ['description', 'filterId', ...RULE_ORDER],
    quiet: ['ref', 'products'],
    values: { filterId: (rule, variableOf) => `${variableOf('filter', String(wireValue(rule, 'filter.id')))}.id` },
    comment: (rule) => [`Firewall rule ${rule.id} on the shared filter ${String(wireValue(rule, 'filter.id'))}.`],
  },
  FirewallRuleWithFilter: {
    section: 3,
    names: RULE_NAMES,
    order: ['description', 'expression', ...RULE_ORDER],
    quiet: ['ref', 'products'],
    comment: (rule) => [`Firewall rule ${rule.id} with its filter ${String(wireValue(rule, 'filter.id'))}.`],
  },
  WafMigration: {
    section: 4,
    program: ({ migrationState }) => {
      const mode = migrationModeOf(migrationState);
      if (!mode) return [];
      const comment = [
        `The zone's migration to the new WAF (now ${migrationState}). Declared so that the stack holds it: its create takes`,
        'the zone as it is, with no write; it can never be undone, so it is protected (docs/firewall-and-migration.md).',
      ];
      return [
        {
          id: '',
          text: block(
            'WafMigration',
            'wafMigration',
            'waf-migration',
            [
              ['zoneId', 'zoneId'],
              ['mode', tsString(mode)],
            ],
            comment,
          ),
        },
      ];
    },
  },
  WafManagedRules: {
    section: 5,
    // The rules as a whole, converted from the entry point's (src/rulesets/managed-rules.ts).
    program: (snapshot) =>
      (objectsOf('WafManagedRules', snapshot) as SavedRuleset[]).map((wafRules) => ({
        id: '',
        text: block(
          'WafManagedRules',
          'wafManagedRules',
          'waf-managed-rules',
          [
            ['zoneId', 'zoneId'],
            ['rules', tsLiteral(rulesFromRuleset(wafRules), 2)],
          ],
          WAF_MANAGED_RULES_COMMENT,
        ),
      })),
  },
  CustomRule: { section: 6, program: (snapshot) => phaseRuleBlocks('CustomRule', snapshot) },
  RateLimitRule: { section: 7, program: (snapshot) => phaseRuleBlocks('RateLimitRule', snapshot) },
};

/**
 * A phase rule's inputs in a program, from the fields it holds (its kind's wire fields, src/kinds/phase-rule-wire.ts),
 * each left out where it is the default; the ref by its own text, without an owner marker (docs/ownership.md). What
 * `zoneguard export` and the firewall move's program declare of a rule. Pure.
 */
export function phaseRuleFields(kind: 'CustomRule' | 'RateLimitRule', rule: RulesetRule): [string, string | undefined][] {
  const defaults: Readonly<Record<string, unknown>> = defaultsOf(declarationOf(kind));
  const declared = phaseRuleFromWire(rule);
  const { own } = splitMarked(declared.ref);
  return PHASE_RULE_WIRE_FIELDS.map((input) => {
    const value = input === 'ref' ? own : declared[input];
    return [input, value === undefined || isDeepStrictEqual(value, defaults[input]) ? undefined : tsLiteral(value, 2)];
  });
}

/**
 * The rules of a phase's entry point, one resource each, in the order they run, each adopting its rule with the
 * fields it holds (its kind's wire fields, src/kinds/phase-rule-wire.ts), each left out where it is the default. The
 * ref is declared without an owner marker (docs/ownership.md): a rule another stack marked is adopted only with
 * takeOver, which the comment says and the program leaves to the reader. No position: adoption leaves every rule where
 * it runs.
 */
function phaseRuleBlocks(kind: 'CustomRule' | 'RateLimitRule', snapshot: ZoneSnapshot): Array<Pick<Block, 'id' | 'text'>> {
  // Named after the description, else the ref its program declared.
  const rules = (objectsOf(kind, snapshot) as SavedRuleset['rules']).flatMap((rule) =>
    rule.id ? [{ id: rule.id, description: rule.description || splitMarked(rule.ref).own, rule }] : [],
  );
  const names = kind === 'CustomRule' ? (['custom-rule', 'customRule'] as const) : (['rate-limit-rule', 'rateLimitRule'] as const);
  return nameObjects(rules, names[0], names[1]).map(({ object: { rule }, name, variable }, index) => {
    const { marker } = splitMarked(rule.ref);
    const fields: [string, string | undefined][] = [['zoneId', 'zoneId'], ['adoptRuleId', tsString(rule.id!)], ...phaseRuleFields(kind, rule)];
    const noun = kind === 'CustomRule' ? 'Custom rule' : 'Rate limiting rule';
    // As noteMarker words it for the other kinds.
    const held =
      marker === undefined
        ? []
        : [
            `Marked ${marker} by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).`,
          ];
    // Padded, so the blocks keep the order the rules run in.
    return {
      id: String(index).padStart(6, '0'),
      text: block(kind, variable, name, fields, [`${noun} ${rule.id}, number ${index + 1} of its phase.`, ...held]),
    };
  });
}
