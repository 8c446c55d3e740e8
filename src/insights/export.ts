import { NotFoundError, type ZoneGuardClient } from '../client';
import {
  CSP_POLICY_FIELDS,
  PAGE_GUARD_SETTING_FIELDS,
  type CspPolicyWire,
  type Filter,
  type FirewallRuleWire,
  type PageGuardSettingsWire,
  type RulesetPhase,
  type SavedRuleset,
  CUSTOM_PHASE,
  MANAGED_PHASE,
  RATELIMIT_PHASE,
} from '../schemas';
import { managedEntrypointBlocker, phaseRuleFromWire, rulesFromRuleset } from '../rulesets';
import { compareText } from './classification';
import { isInvisible } from '../schemas/text';
import { splitMarked } from '../schemas/owner-marker';
import { RESOURCE_KINDS, declarationOf, wireValue, type KindDeclaration, type ObjectType, type ResourceKind } from '../kinds';

/**
 * What `export` reads from a zone: its page security settings, CSP policies, firewall rules and filters, and, once
 * the zone has migrated to the new WAF, its managed rules entry point.
 */
export interface ZoneSnapshot {
  zoneId: string;
  settings: PageGuardSettingsWire;
  cspPolicies: CspPolicyWire[];
  firewallRules: FirewallRuleWire[];
  filters: Filter[];
  /** The http_request_firewall_managed entry point of a migrated zone; absent before the migration or in validation. */
  wafRules?: SavedRuleset;
  /** The zone's migration state (`start`, `validation`, `pending`, `complete`); absent when not read. */
  migrationState?: string;
  /** The zone's entry points of the custom and rate limiting phases; absent while the zone has none. */
  customRules?: SavedRuleset;
  rateLimitRules?: SavedRuleset;
}

/** The zone's entry point of `phase`, or undefined while it has none. */
async function readEntrypoint(client: ZoneGuardClient, zoneId: string, phase: RulesetPhase): Promise<SavedRuleset | undefined> {
  try {
    return await client.rulesets.getEntrypoint({ zoneId, phase });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * The entry point WafManagedRules would take over: only on a zone its create accepts (migrated; in validation the
 * WafMigration resource owns it), and only when the zone has one.
 */
async function readWafRules(client: ZoneGuardClient, zoneId: string, migrationState: string): Promise<SavedRuleset | undefined> {
  if (managedEntrypointBlocker(migrationState) !== undefined) return undefined;
  return readEntrypoint(client, zoneId, MANAGED_PHASE);
}

/** Reads everything the exported program declares (reads only). */
export async function readZoneSnapshot({ client, zoneId }: { client: ZoneGuardClient; zoneId: string }): Promise<ZoneSnapshot> {
  const settings = await client.pageGuard.get({ zoneId });
  const cspPolicies = await client.cspPolicies.list({ zoneId }).toArray();
  const firewallRules = await client.firewallRules.list({ zoneId }).toArray();
  const filters = await client.filters.list({ zoneId }).toArray();
  const migrationState = String((await client.wafMigration.status({ zoneId })).migration_state);
  const wafRules = await readWafRules(client, zoneId, migrationState);
  const customRules = await readEntrypoint(client, zoneId, CUSTOM_PHASE);
  const rateLimitRules = await readEntrypoint(client, zoneId, RATELIMIT_PHASE);
  return {
    zoneId,
    settings,
    cspPolicies,
    firewallRules,
    filters,
    ...(wafRules ? { wafRules } : {}),
    migrationState,
    ...(customRules ? { customRules } : {}),
    ...(rateLimitRules ? { rateLimitRules } : {}),
  };
}

/** Options of the program text. */
export interface RenderOptions {
  /** The module the resources are imported from; default `pulumi-zoneguard`. */
  packageName?: string;
}

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

function camel(prefix: string, dashed: string): string {
  return prefix + dashed.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/**
 * Resource names and variable names for a list of objects: the slug of the description, or the kind and the
 * first characters of the id; a name whose variable another object would also get gets the id's first characters
 * appended, so names and variables stay unique and stable from one export to the next. Variables are compared, not
 * only names: "A1" and "A 1" are the names a1 and a-1 but would both be the variable `cspA1`.
 */
function nameObjects<T extends { id: string; description?: string }>(objects: T[], kind: string, prefix: string) {
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

const bool = (value: boolean | undefined) => (value === undefined ? undefined : String(value));
const str = (value: string | undefined) => (value === undefined ? undefined : tsString(value));

/**
 * The filters `export` declares as a FirewallFilter of their own (the two-call form): those several rules share, and
 * those no rule uses. A filter exactly one rule uses goes with that rule, as a FirewallRuleWithFilter
 * (docs/firewall-and-migration.md, "Which form"). Pure.
 */
export function standaloneFilterIds(rules: readonly FirewallRuleWire[], filters: readonly Filter[]): Set<string> {
  const uses = new Map<string, number>();
  for (const rule of rules) uses.set(rule.filter.id, (uses.get(rule.filter.id) ?? 0) + 1);
  const standalone = new Set([...uses].filter(([, count]) => count > 1).map(([id]) => id));
  for (const filter of filters) if (!uses.has(filter.id)) standalone.add(filter.id);
  return standalone;
}

/** The fields of a rule every form declares, after its filter. */
function ruleFieldLines(r: FirewallRuleWire): [string, string | undefined][] {
  return [
    ['action', tsString(r.action)],
    ['paused', bool(r.paused)],
    ['priority', r.priority === null || r.priority === undefined ? undefined : String(r.priority)],
    ['ref', r.ref ? tsString(r.ref) : undefined],
    ['products', r.products && r.products.length > 0 ? `[${r.products.map(tsString).join(', ')}]` : undefined],
  ];
}

/** The objects of a snapshot with their resource and variable names, named once for every kind that declares them. */
interface Named {
  policies: ReturnType<typeof nameObjects<CspPolicyWire>>;
  rules: ReturnType<typeof nameObjects<FirewallRuleWire>>;
  filters: ReturnType<typeof nameObjects<Filter>>;
  /** The variable of each filter declared as a FirewallFilter, by its id: the rules on it reference it. */
  filterVariable: Map<string, string>;
}

/** One declaration of the program: its kind, where it goes (section, then the object's id), and its text. */
export interface Block {
  kind: ResourceKind;
  section: number;
  id: string;
  text: string;
}

/**
 * How a kind is exported when its declarations need more than its field table (fields in an order of their own,
 * defaults left out, a shared filter referenced by variable, the form a rule takes): the blocks it declares for a
 * snapshot. Every other kind is exported from its declaration (fieldTableBlocks).
 */
const RENDERERS: { [K in ResourceKind]?: (snapshot: ZoneSnapshot, named: Named) => Block[] } = {
  PageGuardSettings: ({ settings }) => [
    {
      kind: 'PageGuardSettings',
      section: 0,
      id: '',
      text: block(
        'PageGuardSettings',
        'pageGuard',
        'page-guard',
        [['zoneId', 'zoneId'], ...Object.entries(PAGE_GUARD_SETTING_FIELDS).map(([name, wireName]): [string, string | undefined] => [name, bool(settings[wireName])])],
        ['The page security settings (one per zone).'],
      ),
    },
  ],
  CspPolicy: (_snapshot, { policies }) =>
    policies.map(({ object: p, name, variable }) => ({
      kind: 'CspPolicy',
      section: 1,
      id: p.id,
      text: block(
        'CspPolicy',
        variable,
        name,
        [['zoneId', 'zoneId'], ['adoptPolicyId', tsString(p.id)], ...CSP_POLICY_FIELDS.map((field): [string, string] => [field, field === 'enabled' ? String(p.enabled) : tsString(p[field])])],
        [`CSP policy ${p.id}.`],
      ),
    })),
  FirewallFilter: (snapshot, { filters }) =>
    filters.map(({ object: f, name, variable }) => {
      const users = snapshot.firewallRules.filter((r) => r.filter.id === f.id).length;
      const fields: [string, string | undefined][] = [
        ['zoneId', 'zoneId'],
        ['adoptFilterId', tsString(f.id)],
        ['description', str(f.description)],
        ['expression', tsString(f.expression)],
        ['paused', bool(f.paused)],
        ['ref', f.ref ? tsString(f.ref) : undefined],
      ];
      const comment = `Filter ${f.id}, ${users === 0 ? 'used by no rule' : `shared by ${users} rules`}.`;
      return { kind: 'FirewallFilter', section: 2, id: f.id, text: block('FirewallFilter', variable, name, fields, [comment]) };
    }),
  // Both rule kinds share section 3, so the rules stay in id order whichever form each takes.
  FirewallRule: (_snapshot, { rules, filterVariable }) =>
    rules.flatMap(({ object: r, name, variable }) => {
      const shared = filterVariable.get(r.filter.id);
      if (!shared) return [];
      const fields: [string, string | undefined][] = [['zoneId', 'zoneId'], ['adoptRuleId', tsString(r.id)], ['description', str(r.description)], ['filterId', `${shared}.id`], ...ruleFieldLines(r)];
      return [{ kind: 'FirewallRule', section: 3, id: r.id, text: block('FirewallRule', variable, name, fields, [`Firewall rule ${r.id} on the shared filter ${r.filter.id}.`]) }];
    }),
  FirewallRuleWithFilter: (_snapshot, { rules, filterVariable }) =>
    rules.flatMap(({ object: r, name, variable }) => {
      if (filterVariable.has(r.filter.id)) return [];
      const fields: [string, string | undefined][] = [['zoneId', 'zoneId'], ['adoptRuleId', tsString(r.id)], ['description', str(r.description)], ['expression', tsString(r.filter.expression)], ...ruleFieldLines(r)];
      return [{ kind: 'FirewallRuleWithFilter', section: 3, id: r.id, text: block('FirewallRuleWithFilter', variable, name, fields, [`Firewall rule ${r.id} with its filter ${r.filter.id}.`]) }];
    }),
  WafMigration: ({ migrationState }) => {
    const mode = migrationModeOf(migrationState);
    if (!mode) return [];
    const comment = [
      `The zone's migration to the new WAF (now ${migrationState}). Declared so that the stack holds it: its create takes`,
      'the zone as it is, with no write; it can never be undone, so it is protected (docs/firewall-and-migration.md).',
    ];
    return [{ kind: 'WafMigration', section: 4, id: '', text: block('WafMigration', 'wafMigration', 'waf-migration', [['zoneId', 'zoneId'], ['mode', tsString(mode)]], comment) }];
  },
  WafManagedRules: ({ wafRules }) =>
    wafRules
      ? [
          {
            kind: 'WafManagedRules',
            section: 5,
            id: '',
            text: block(
              'WafManagedRules',
              'wafManagedRules',
              'waf-managed-rules',
              [
                ['zoneId', 'zoneId'],
                ['rules', tsLiteral(rulesFromRuleset(wafRules), 2)],
              ],
              [
                'The new WAF: the zone migrated, and its managed rules entry point holds these rules, in this order. Declared',
                'with the refs the zone holds, so the first `pulumi up` takes them over with one write (its owner marker); delete puts them back',
                '(docs/firewall-and-migration.md, "Then manage it").',
              ],
            ),
          },
        ]
      : [],
  CustomRule: ({ customRules }) => phaseRuleBlocks('CustomRule', customRules, 6),
  RateLimitRule: ({ rateLimitRules }) => phaseRuleBlocks('RateLimitRule', rateLimitRules, 7),
};

/**
 * The rules of a phase's entry point, one resource each, in the order they run, each adopting its rule with the
 * fields it holds (src/rulesets/phase-rules.ts). The ref is declared without an owner marker (docs/ownership.md): a
 * rule another stack marked is adopted only with takeOver, which the comment says and the program leaves to the
 * reader. No position: adoption leaves every rule where it runs.
 */
function phaseRuleBlocks(kind: 'CustomRule' | 'RateLimitRule', ruleset: SavedRuleset | undefined, section: number): Block[] {
  // Named after the description, else the ref its program declared.
  const rules = (ruleset?.rules ?? []).flatMap((rule) => (rule.id ? [{ id: rule.id, description: rule.description || splitMarked(rule.ref).own, rule }] : []));
  const names = kind === 'CustomRule' ? (['custom-rule', 'customRule'] as const) : (['rate-limit-rule', 'rateLimitRule'] as const);
  return nameObjects(rules, names[0], names[1]).map(({ object: { rule }, name, variable }, index) => {
    const declared = phaseRuleFromWire(rule);
    const { own, marker } = splitMarked(declared.ref);
    const fields: [string, string | undefined][] = [
      ['zoneId', 'zoneId'],
      ['adoptRuleId', tsString(rule.id!)],
      ['action', tsString(declared.action)],
      ['expression', tsString(declared.expression)],
      ['description', declared.description === '' ? undefined : tsString(declared.description)],
      ['enabled', declared.enabled ? undefined : 'false'],
      ['ref', own === '' ? undefined : tsString(own)],
      ['response', declared.response ? tsLiteral(declared.response, 2) : undefined],
      ['skip', declared.skip ? tsLiteral(declared.skip, 2) : undefined],
      ['ratelimit', declared.ratelimit ? tsLiteral(declared.ratelimit, 2) : undefined],
    ];
    const noun = kind === 'CustomRule' ? 'Custom rule' : 'Rate limiting rule';
    // As noteMarker words it for the other kinds.
    const held = marker === undefined ? [] : [`Marked ${marker} by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).`];
    // Padded, so the blocks keep the order the rules run in.
    return { kind, section, id: String(index).padStart(6, '0'), text: block(kind, variable, name, fields, [`${noun} ${rule.id}, number ${index + 1} of its phase.`, ...held]) };
  });
}

/** The objects of each type a snapshot holds. A type of the registry (src/kinds) the snapshot does not read is a compile error. */
const OBJECTS: Record<ObjectType, (snapshot: ZoneSnapshot) => readonly object[]> = {
  pageGuardSettings: ({ settings }) => [settings],
  cspPolicy: ({ cspPolicies }) => cspPolicies,
  firewallRule: ({ firewallRules }) => firewallRules,
  filter: ({ filters }) => filters,
  wafMigration: ({ migrationState }) => (migrationModeOf(migrationState) ? [{ mode: migrationModeOf(migrationState) }] : []),
  managedEntrypoint: ({ wafRules }) => (wafRules ? [wafRules] : []),
  rulesetRule: ({ customRules, rateLimitRules }) => [...(customRules?.rules ?? []), ...(rateLimitRules?.rules ?? [])],
};

/** `FirewallRule` as a resource name (`firewall-rule`) and a variable (`firewallRule`). */
const kindNames = (kind: string) => ({ name: kind.replace(/(?<=.)[A-Z]/g, (letter) => `-${letter}`).toLowerCase(), variable: kind.charAt(0).toLowerCase() + kind.slice(1) });

/**
 * The blocks of a kind exported from its declaration: each object of its type the snapshot holds, declared with the
 * inputs of its field table read at their wire names (absent and null values left to their defaults) and, for a kind
 * of many objects, its adopt input; after the sections of RENDERERS, in registry order. Pure.
 */
export function fieldTableBlocks(kind: ResourceKind, snapshot: ZoneSnapshot): Block[] {
  const { identity, fields } = declarationOf(kind) as KindDeclaration;
  const section = RESOURCE_KINDS.length + RESOURCE_KINDS.indexOf(kind);
  const sent = fields.filter((field) => field.wire !== '' && field.wire !== 'zone_id' && (field.change === 'update' || field.change === 'replace'));
  const inputs = (object: object): [string, string | undefined][] =>
    sent.map((field) => {
      const value = wireValue(object, field.wire);
      return [field.input, value === undefined || value === null ? undefined : tsLiteral(value, 2)];
    });
  const objects = OBJECTS[identity.object](snapshot) as Array<{ id: string; description?: string }>;
  const names = kindNames(kind);
  const noun = identity.noun.charAt(0).toUpperCase() + identity.noun.slice(1);
  if (identity.scope === 'zone') {
    return objects.map((object) => ({ kind, section, id: '', text: block(kind, names.variable, names.name, [['zoneId', 'zoneId'], ...inputs(object)], [`${noun} ${snapshot.zoneId}.`]) }));
  }
  return nameObjects([...objects].sort((a, b) => compareText(a.id, b.id)), names.name, names.variable).map(({ object, name, variable }) => ({
    kind,
    section,
    id: object.id,
    text: block(kind, variable, name, [['zoneId', 'zoneId'], [identity.adoptInput ?? 'id', tsString(object.id)], ...inputs(object)], [`${noun} ${object.id}.`]),
  }));
}

/** An object's free texts without the owner marker at the end of one (docs/ownership.md). */
function unmarked<T extends { id: string; ref?: string | undefined; description?: string | undefined }>(object: T, markers: Map<string, string>): T {
  const texts: Partial<Record<'ref' | 'description', string>> = {};
  for (const field of ['ref', 'description'] as const) {
    const { own, marker } = splitMarked(object[field]);
    if (marker === undefined) continue;
    texts[field] = own;
    markers.set(object.id, marker);
  }
  return { ...object, ...texts };
}

/**
 * The snapshot with the owner markers taken out of the refs and descriptions they end, so the program declares the
 * user's own texts, and the marker each marked object carried, by its id. Pure.
 */
export function withoutMarkers(snapshot: ZoneSnapshot): { snapshot: ZoneSnapshot; markers: Map<string, string> } {
  const markers = new Map<string, string>();
  return {
    snapshot: {
      ...snapshot,
      cspPolicies: snapshot.cspPolicies.map((policy) => unmarked(policy, markers)),
      firewallRules: snapshot.firewallRules.map((rule) => ({ ...unmarked(rule, markers), filter: unmarked(rule.filter, markers) })),
      filters: snapshot.filters.map((filter) => unmarked(filter, markers)),
    },
    markers,
  };
}

/** A block of an object another owner marked, with a comment saying that its adoption needs `takeOver`. */
function noteMarker(block: Block, markers: ReadonlyMap<string, string>): Block {
  const marker = markers.get(block.id);
  if (marker === undefined) return block;
  const note = `// Marked ${marker} by the stack that manages it: adopting it is refused unless this resource also says takeOver: true (docs/ownership.md#take-over).\n`;
  const at = block.text.indexOf('export const ');
  return { ...block, text: block.text.slice(0, at) + note + block.text.slice(at) };
}

/** The mode a WafMigration declares for a zone in `state`, or undefined before the migration (nothing to hold). Pure. */
export function migrationModeOf(state: string | undefined): 'direct' | 'validation' | undefined {
  if (state === 'validation') return 'validation';
  if (state === 'pending' || state === 'complete') return 'direct';
  return undefined;
}

/**
 * The Pulumi program (TypeScript) declaring a zone's page security settings, CSP policies, firewall rules and
 * filters, and its WAF migration and managed rules once it migrated, exactly as the snapshot holds them, each with
 * its adoption input (`adoptPolicyId`, `adoptFilterId`, `adoptRuleId`), so that the first `pulumi up` takes them
 * over instead of creating new ones. A filter shared by several rules, or by none, is a FirewallFilter its rules
 * reference (standaloneFilterIds). Every kind of the registry is declared: by its renderer (RENDERERS) or from its
 * declaration (fieldTableBlocks). Pure and deterministic:
 * objects are sorted by id, and nothing varies from run to run (no date).
 */
export function renderPulumiProgram(zone: ZoneSnapshot, options: RenderOptions = {}): string {
  const { snapshot, markers } = withoutMarkers(zone);
  const packageName = options.packageName ?? 'pulumi-zoneguard';
  const byId = <T extends { id: string }>(objects: T[]) => [...objects].sort((a, b) => compareText(a.id, b.id));
  const standalone = standaloneFilterIds(snapshot.firewallRules, snapshot.filters);
  // A shared filter a rule lists but the filter list missed is still declared, from the rule's copy of it.
  const filterObjects = new Map(snapshot.firewallRules.map((r) => [r.filter.id, { paused: false, ...r.filter }] as const));
  for (const filter of snapshot.filters) filterObjects.set(filter.id, filter);
  const filters = nameObjects(byId([...filterObjects.values()].filter((f) => standalone.has(f.id))), 'filter', 'filter');
  const named: Named = {
    policies: nameObjects(byId(snapshot.cspPolicies), 'csp-policy', 'csp'),
    rules: nameObjects(byId(snapshot.firewallRules), 'firewall-rule', 'rule'),
    filters,
    filterVariable: new Map(filters.map(({ object, variable }) => [object.id, variable])),
  };
  const blocks = RESOURCE_KINDS.flatMap((kind) => RENDERERS[kind]?.(snapshot, named) ?? fieldTableBlocks(kind, snapshot))
    .map((block) => noteMarker(block, markers))
    .sort((a, b) => a.section - b.section || compareText(a.id, b.id));
  const imports = [...new Set(blocks.map((b) => b.kind))].sort(compareText);
  const header = [
    `// Page security of zone ${snapshot.zoneId}, generated by \`zoneguard export\`.`,
    '// Every resource declares what the zone holds now and adopts the existing object (the settings, and each',
    '// policy and rule by id), so the first `pulumi up` takes them over without creating anything. Review the',
    '// declarations, then edit them like any other code: later runs update the zone to match.',
    `import { ${imports.join(', ')} } from ${tsString(packageName)};`,
    '',
    `const zoneId = ${tsString(snapshot.zoneId)};`,
  ].join('\n');
  return `${[header, ...blocks.map((b) => b.text)].join('\n\n')}\n`;
}

/** Reads the zone and renders its program. */
export async function exportZoneProgram(args: { client: ZoneGuardClient; zoneId: string } & RenderOptions): Promise<{ program: string; snapshot: ZoneSnapshot }> {
  const snapshot = await readZoneSnapshot(args);
  return { program: renderPulumiProgram(snapshot, args), snapshot };
}
