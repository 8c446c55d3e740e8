// A pull request's preview as a reviewer reads it: what `pulumi preview --json` printed, turned into Markdown for a
// CI step summary or a PR comment. The CLI prints either one JSON document (its PreviewDigest, which leaves out the
// stack outputs from v3.259 to v3.276: pkg/display/json.go) or, with PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true, the
// engine's events one a line, stack outputs included; both read into the digest's shape. Per zone, what `up` would
// change; the sources each CSP policy gains or loses; the firewall rules and WAF custom rules added, changed or
// removed; the WAF migration plan a stack output carries while the migration is pending; the firewall rules upgrade
// plan a stack output carries; and each failure in one line. Pure: the preview's JSON in, the text out.
import { stripVTControlCharacters } from 'node:util';
import { z } from 'zod';
import { PREVIEW_UNKNOWN } from '../unknown';
import { undoneChanges, type RefreshedResource, type UndoneChange } from '../seal/undone';
import { STACK_OWNER, type ResourceKind } from '../kinds';

const StateSchema = z.looseObject({
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});

/** One step of `pulumi preview --json` (the CLI's PreviewStep): unchanged resources are left out by the CLI. */
export const PreviewStepSchema = z.looseObject({
  op: z.string(),
  urn: z.string(),
  oldState: StateSchema.optional(),
  newState: StateSchema.optional(),
  diffReasons: z.array(z.string()).optional(),
  replaceReasons: z.array(z.string()).optional(),
  detailedDiff: z.record(z.string(), z.unknown()).nullish(),
});

/** What `pulumi preview --json` prints (the CLI's PreviewDigest), the parts the report reads. */
export const PreviewDigestSchema = z.looseObject({
  steps: z.array(PreviewStepSchema).optional(),
  diagnostics: z.array(z.looseObject({ urn: z.string().optional(), message: z.string().optional(), severity: z.string().optional() })).optional(),
  changeSummary: z.record(z.string(), z.number()).optional(),
  /** What a `preview --refresh` read of each resource of the state (streamed events only): its state before, and live. */
  refreshed: z.array(z.looseObject({ urn: z.string(), old: StateSchema.nullish(), new: StateSchema.nullish() })).optional(),
});
export type PreviewDigest = z.infer<typeof PreviewDigestSchema>;
type Step = z.infer<typeof PreviewStepSchema>;
type Inputs = Record<string, unknown>;

const EventMetadataSchema = z.looseObject({
  op: z.string(),
  urn: z.string(),
  old: StateSchema.nullish(),
  new: StateSchema.nullish(),
  diffs: z.array(z.string()).nullish(),
  detailedDiff: z.record(z.string(), z.unknown()).nullish(),
});

/** One engine event of the streamed preview (the CLI's apitype.EngineEvent), the kinds the report reads. */
export const EngineEventSchema = z.looseObject({
  resourcePreEvent: z.looseObject({ metadata: EventMetadataSchema }).optional(),
  resOutputsEvent: z.looseObject({ metadata: EventMetadataSchema }).optional(),
  diagnosticEvent: z.looseObject({ urn: z.string().optional(), message: z.string().optional(), severity: z.string().optional() }).optional(),
  summaryEvent: z.looseObject({ resourceChanges: z.record(z.string(), z.number()).nullish() }).optional(),
});
export type EngineEvent = z.infer<typeof EngineEventSchema>;

/** The streamed events as a digest: a step per resource event, the stack's outputs from its outputs event. */
export function digestOfEvents(events: EngineEvent[]): PreviewDigest {
  const steps: Step[] = [];
  const diagnostics: NonNullable<PreviewDigest['diagnostics']> = [];
  const refreshed: NonNullable<PreviewDigest['refreshed']> = [];
  let changeSummary: Record<string, number> | undefined;
  for (const event of events) {
    const pre = event.resourcePreEvent?.metadata;
    // A refresh's read is no change of the up's: kept apart, as what the zone holds (src/seal, the report's live changes).
    if (event.resOutputsEvent?.metadata.op === 'refresh') {
      const { urn, old, new: now } = event.resOutputsEvent.metadata;
      refreshed.push({ urn, old, new: now });
      continue;
    }
    if (pre?.op === 'refresh') continue;
    if (pre) {
      steps.push({
        op: pre.op,
        urn: pre.urn,
        oldState: pre.old ?? undefined,
        newState: pre.new ?? undefined,
        diffReasons: pre.diffs ?? [],
        detailedDiff: pre.detailedDiff ?? null,
      });
    }
    const outputs = event.resOutputsEvent?.metadata;
    if (outputs && resourceOfUrn(outputs.urn).kind === 'Stack') {
      const stack = steps.find((step) => step.urn === outputs.urn);
      if (stack) stack.newState = { ...stack.newState, outputs: outputs.new?.outputs ?? {} };
      else steps.push({ op: outputs.op, urn: outputs.urn, newState: { outputs: outputs.new?.outputs ?? {} } });
    }
    if (event.diagnosticEvent) diagnostics.push(event.diagnosticEvent);
    if (event.summaryEvent?.resourceChanges) changeSummary = event.summaryEvent.resourceChanges;
  }
  return { steps, diagnostics, ...(changeSummary ? { changeSummary } : {}), ...(refreshed.length > 0 ? { refreshed } : {}) };
}

/** A resource of the preview: its kind (the type's last part), its name and the zone it is on. */
export interface PreviewResource {
  kind: string;
  name: string;
  zoneId: string | undefined;
}

/** Kind and name from a URN (`urn:pulumi:stack::project::parent$type::name`). */
export function resourceOfUrn(urn: string): { stack: string; kind: string; name: string } {
  const [head = '', , type = '', ...name] = urn.split('::');
  return { stack: head.replace(/^urn:pulumi:/, ''), kind: type.split('$').at(-1)!.split(':').at(-1)!, name: name.join('::') };
}

/** A value as the report shows it: the preview's unknown placeholder as "(known after up)". */
export function shown(value: unknown): string {
  if (value === PREVIEW_UNKNOWN) return '(known after up)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const VERBS: Record<string, string> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  'create-replacement': 'replace',
  delete: 'delete',
  'delete-replaced': 'replace',
  read: 'read',
  refresh: 'refresh',
  import: 'import',
  'discard-replaced': 'replace',
};

/**
 * The input names a step changes, without the providers' own (`__provider`, `__zoneguardName`): those the engine
 * names, else those whose old and new inputs differ (a dynamic provider's diff names none).
 */
export function changedFields(step: Step): string[] {
  const named = [...Object.keys(step.detailedDiff ?? {}), ...(step.replaceReasons ?? []), ...(step.diffReasons ?? [])];
  const [before, after] = [step.oldState?.inputs, step.newState?.inputs];
  const compared =
    before && after
      ? [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      : [];
  const keys = named.some((key) => !key.startsWith('__')) ? named : compared;
  return [...new Set(keys.map((key) => key.split(/[.[]/)[0]!))].filter((key) => !key.startsWith('__')).sort();
}

/** A CSP value's sources per directive: `script-src 'self' a; img-src b` → { script-src: ['self', a], img-src: [b] }. */
export function cspSources(value: unknown): Map<string, Set<string>> {
  const directives = new Map<string, Set<string>>();
  if (typeof value !== 'string' || value === PREVIEW_UNKNOWN) return directives;
  for (const directive of value.split(';')) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (name) directives.set(name, new Set([...(directives.get(name) ?? []), ...sources]));
  }
  return directives;
}

/** Per directive, the sources `after` has and `before` lacks, and the reverse. */
export function cspSourceChanges(before: unknown, after: unknown): Array<{ directive: string; gained: string[]; lost: string[] }> {
  const [old, now] = [cspSources(before), cspSources(after)];
  return [...new Set([...old.keys(), ...now.keys()])].sort().flatMap((directive) => {
    const [o, n] = [old.get(directive) ?? new Set<string>(), now.get(directive) ?? new Set<string>()];
    const gained = [...n].filter((s) => !o.has(s));
    const lost = [...o].filter((s) => !n.has(s));
    return gained.length + lost.length > 0 ? [{ directive, gained, lost }] : [];
  });
}

/** A WAF managed rules resource's rules by `ref`: which are added, changed (by value) or removed. */
export function rulesByRef(before: unknown, after: unknown): { added: string[]; changed: string[]; removed: string[] } {
  const byRef = (rules: unknown) =>
    new Map((Array.isArray(rules) ? rules : []).map((rule: Record<string, unknown>) => [String(rule.ref), JSON.stringify(rule)]));
  const [old, now] = [byRef(before), byRef(after)];
  return {
    added: [...now.keys()].filter((ref) => !old.has(ref)),
    changed: [...now.keys()].filter((ref) => old.has(ref) && old.get(ref) !== now.get(ref)),
    removed: [...old.keys()].filter((ref) => !now.has(ref)),
  };
}

/** One resource's change, as the report lists it. */
export interface ResourceChange extends PreviewResource {
  verb: string;
  fields: string[];
  before: Inputs;
  after: Inputs;
}

/** The changes of a preview, one per resource (a replacement's several steps are one change), stack left out. */
export function resourceChanges(digest: PreviewDigest): ResourceChange[] {
  const changes = new Map<string, ResourceChange>();
  for (const step of digest.steps ?? []) {
    const verb = VERBS[step.op];
    const { kind, name } = resourceOfUrn(step.urn);
    // A refresh's read (a non-streamed `preview --refresh`) is not a change the up makes.
    if (!verb || verb === 'refresh' || kind === 'Stack') continue;
    const before = step.oldState?.inputs ?? {};
    const after = step.newState?.inputs ?? {};
    const zoneId = (after.zoneId ?? before.zoneId) as string | undefined;
    const seen = changes.get(step.urn);
    const fields = [...new Set([...(seen?.fields ?? []), ...changedFields(step)])].sort();
    changes.set(step.urn, {
      kind,
      name,
      zoneId: typeof zoneId === 'string' ? zoneId : undefined,
      verb: seen && seen.verb !== verb ? 'replace' : verb,
      fields,
      // The first step's: a later one may be of an object the state keeps only to delete (a replacement stopped before its delete).
      before: seen !== undefined && Object.keys(seen.before).length > 0 ? seen.before : before,
      after: Object.keys(after).length > 0 ? after : (seen?.after ?? {}),
    });
  }
  return [...changes.values()];
}

/** A stack output that is a WAF migration plan (planWafMigration's, whole or in part) still to be carried out. */
export interface PendingPlan {
  output: string;
  plan: { compatible?: unknown; migrationState?: unknown; problems?: unknown; changed?: unknown; dropped?: unknown };
}

/** The stack outputs shaped as a WAF migration plan whose migration is not complete. */
export function pendingPlans(digest: PreviewDigest): PendingPlan[] {
  const stack = (digest.steps ?? []).find((step) => resourceOfUrn(step.urn).kind === 'Stack');
  const outputs = stack?.newState?.outputs ?? {};
  return Object.entries(outputs).flatMap(([output, value]) => {
    if (typeof value !== 'object' || value === null || !('compatible' in value) || !('migrationState' in value)) return [];
    const plan = value as PendingPlan['plan'] & { conversion?: { changed?: unknown; dropped?: unknown } };
    if (plan.migrationState === 'complete') return [];
    return [{ output, plan: { ...plan, changed: plan.changed ?? plan.conversion?.changed, dropped: plan.dropped ?? plan.conversion?.dropped } }];
  });
}

/** A stack output that is a firewall rules upgrade plan (planFirewallRulesUpgrade's), whole or in part. */
export interface FirewallUpgradeOutput {
  output: string;
  plan: { zoneId?: unknown; legacyApi?: unknown; converted?: unknown; equivalence?: unknown; rules?: unknown; problems?: unknown; move?: unknown };
}

/** The stack outputs shaped as a firewall rules upgrade plan. */
export function firewallUpgradePlans(digest: PreviewDigest): FirewallUpgradeOutput[] {
  const stack = (digest.steps ?? []).find((step) => resourceOfUrn(step.urn).kind === 'Stack');
  return Object.entries(stack?.newState?.outputs ?? {}).flatMap(([output, value]) =>
    typeof value === 'object' && value !== null && 'legacyApi' in value && 'rules' in value ? [{ output, plan: value as FirewallUpgradeOutput['plan'] }] : [],
  );
}

/** The Markdown of one firewall rules upgrade plan: the verdict, the problems, each rule with a difference in behaviour. */
function firewallUpgradeLines({ output, plan }: FirewallUpgradeOutput): string[] {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const field = (value: unknown, name: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined);
  const verdict = field(plan.equivalence, 'verdict');
  const state = plan.legacyApi === 'retired' ? 'legacy API retired' : plan.converted === true ? 'converted' : 'conversion to come';
  const rules = list(plan.rules).flatMap((rule) => {
    const differences = list(field(rule, 'differences')).map(String);
    if (differences.length === 0) return [];
    const custom = field(rule, 'customRuleId');
    const where = `custom rule #${String(field(rule, 'position'))}${typeof custom === 'string' ? ` ${code(custom)}` : ' (to come)'}, held by ${String(field(rule, 'holder'))}`;
    return differences.map((difference) => `- rule ${code(String(field(rule, 'legacyRuleId')))} → ${where}: ${difference}`);
  });
  return [
    `**Firewall rules upgrade plan** (stack output ${code(output)}) of zone ${code(String(plan.zoneId))}: ${state}; ${typeof verdict === 'string' ? verdict : 'no verdict (nothing to compare)'}`,
    '',
    ...list(plan.problems).map((problem) => `- problem: ${String(problem)}`),
    ...rules,
    // How the move's up goes (create then delete, overlapping; or adopt): docs/firewall-and-migration.md#move.
    ...(typeof field(plan.move, 'note') === 'string'
      ? [`- the move of ${list(field(plan.move, 'rules')).length} rule(s) of this stack: ${String(field(plan.move, 'note'))}`]
      : []),
  ];
}

/** Each error of the preview in one line: the resource (kind and name) and the message's first line. */
export function failureLines(digest: PreviewDigest): string[] {
  return (digest.diagnostics ?? [])
    .filter((d) => d.severity === 'error' && d.message)
    .map((d) => {
      // The engine wraps a check failure as `error: <type> resource '<name>': property <field> value {…} has a problem:
      // <the provider's line>`; the provider's line already names the kind and the field.
      const message = stripVTControlCharacters(d.message!)
        .trim()
        .split('\n')[0]!
        .trim()
        .replace(/^error: /, '')
        .replace(/^\S+ resource '[^']*': property \S+ value \{.*\} has a problem: /, '');
      if (!d.urn) return message;
      const { kind, name } = resourceOfUrn(d.urn);
      return kind === 'Stack' ? message : `${kind} \`${name}\`: ${message}`;
    });
}

/** Inline code that survives any text: a longer fence when the text holds backticks, pipes escaped for tables. */
export function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  const padded = fence.length > 1 ? ` ${text} ` : text;
  return `${fence}${padded.replace(/\|/g, '\\|')}${fence}`;
}

/**
 * What a rule's (or filter's) change does, field by field: `expression: a → b`, or, added or removed, the fields
 * that say what it does (`summary`: its action and expression, and a rate limiting rule's rate).
 */
function ruleLine(change: ResourceChange, summary: readonly string[]): string {
  const what = `${change.kind} ${code(change.name)}`;
  const field = (name: string) => (change.after[name] ?? change.before[name]) as unknown;
  const values = summary.filter((name) => field(name) !== undefined).map((name) => `${name} ${code(shown(field(name)))}`);
  if (change.verb === 'create') return `${what} added: ${values.join(', ')}`;
  if (change.verb === 'delete') return `${what} removed (was ${values.join(', ')})`;
  const fields = change.fields.map((name) => `${name} ${code(shown(change.before[name]))} → ${code(shown(change.after[name]))}`);
  return `${what} ${change.verb === 'replace' ? 'replaced' : 'changed'}: ${fields.join('; ')}`;
}

/** A CSP policy's sources gained and lost, per directive. */
function cspLines(change: ResourceChange): string[] {
  if (change.verb === 'update' && !change.fields.includes('value')) return [];
  const before = change.verb === 'create' ? undefined : change.before.value;
  const after = change.verb === 'delete' ? undefined : change.after.value;
  if (after === PREVIEW_UNKNOWN) return [`CSP policy ${code(change.name)}: its sources are known after up`];
  return cspSourceChanges(before, after).map(({ directive, gained, lost }) => {
    const parts = [gained.length > 0 ? `gains ${gained.map(code).join(', ')}` : '', lost.length > 0 ? `loses ${lost.map(code).join(', ')}` : ''];
    return `CSP policy ${code(change.name)}, ${directive}: ${parts.filter(Boolean).join('; ')}`;
  });
}

/** A WAF managed rules resource's rules added, changed and removed, by ref. */
function wafRulesLines(change: ResourceChange): string[] {
  const { added, changed, removed } = rulesByRef(change.verb === 'create' ? [] : change.before.rules, change.verb === 'delete' ? [] : change.after.rules);
  const parts = [['added', added], ['changed', changed], ['removed', removed]] as const;
  const text = parts.filter(([, refs]) => refs.length > 0).map(([verb, refs]) => `${verb} ${refs.map(code).join(', ')}`);
  return text.length > 0 ? [`WAF rules ${code(change.name)}: ${text.join('; ')}`] : [];
}

const RULE_SUMMARY = ['action', 'expression'] as const;

/**
 * The detail lines of a change, for every kind of the registry and the stack's owner id: a kind added to src/kinds
 * without its entry here is a compile error. `none` for a kind whose table row already says it all (its fields are
 * flags or a mode).
 */
const none = (): string[] => [];
const DETAILS: Record<ResourceKind | typeof STACK_OWNER, (change: ResourceChange) => string[]> = {
  PageGuardSettings: none,
  CspPolicy: cspLines,
  FirewallRuleWithFilter: (change) => [ruleLine(change, RULE_SUMMARY)],
  FirewallFilter: (change) => [ruleLine(change, RULE_SUMMARY)],
  FirewallRule: (change) => [ruleLine(change, RULE_SUMMARY)],
  WafMigration: none,
  WafManagedRules: wafRulesLines,
  CustomRule: (change) => [ruleLine(change, RULE_SUMMARY)],
  RateLimitRule: (change) => [ruleLine(change, [...RULE_SUMMARY, 'ratelimit'])],
  // docs/ownership.md#owner-id
  StackOwner: (change) =>
    change.verb === 'create' ? [`the stack's owner id ${code(change.name)}: drawn by the up, its owner markers are made from it; no call to the service`] : [],
};

/** The detail lines of one zone's changes: CSP sources, firewall rules, custom and rate limiting rules, WAF managed rules. */
export function detailLines(changes: ResourceChange[]): string[] {
  // A resource of another package (its kind is the type's last part) has none.
  return changes.flatMap((change) => (Object.hasOwn(DETAILS, change.kind) ? DETAILS[change.kind as keyof typeof DETAILS](change) : []));
}

/** "1 to create, 2 to replace" from the preview's change summary; unchanged resources are not counted. */
export function summaryText(digest: PreviewDigest): string {
  const summary = digest.changeSummary ?? {};
  const parts = ['create', 'update', 'replace', 'delete'].flatMap((op) => ((summary[op] ?? 0) > 0 ? [`${summary[op]} to ${op}`] : []));
  return parts.length > 0 ? parts.join(', ') : 'no changes';
}

/** The Markdown of one WAF migration plan output. */
function planLines({ output, plan }: PendingPlan): string[] {
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  const state = plan.migrationState === PREVIEW_UNKNOWN ? 'known after up' : `state ${code(String(plan.migrationState))}`;
  return [
    `**WAF migration plan** (stack output ${code(output)}): ${plan.compatible === true ? 'compatible' : plan.compatible === false ? '**not compatible**' : 'compatibility known after up'}, ${state}`,
    '',
    ...list(plan.problems).map((problem) => `- problem: ${problem}`),
    ...list(plan.changed).map((change) => `- changes: ${change}`),
    ...list(plan.dropped).map((dropped) => `- dropped: ${dropped}`),
  ];
}

/** The resources a `preview --refresh` read, with what its steps do to them (src/seal/undone.ts). */
export function refreshedResources(digest: PreviewDigest): RefreshedResource[] {
  return (digest.refreshed ?? []).map(({ urn, old, new: live }) => {
    const steps = (digest.steps ?? []).filter((step) => step.urn === urn);
    const { kind, name } = resourceOfUrn(urn);
    return {
      kind,
      name,
      ops: new Set(steps.map((step) => step.op)),
      state: old?.outputs,
      live: live?.outputs,
      declared: steps.find((step) => step.newState?.inputs)?.newState?.inputs,
    };
  });
}

/** The live changes since the last up that the up would undo (a `preview --refresh` only), apart from the table. */
function undoneLines(undone: readonly UndoneChange[]): string[] {
  if (undone.length === 0) return [];
  const lines = undone.map(({ kind, name, fields, deleted }) =>
    deleted
      ? `- ${kind} ${code(name)}: deleted on the service since the last up; the up creates it again`
      : `- ${kind} ${code(name)}: ${fields.map(({ field, sealed, now }) => `${field} ${code(shown(now))} now, put back to ${code(shown(sealed))}`).join('; ')}`,
  );
  return ['**Live changes since the last up that this up undoes** (made on the service, not by this change)', '', ...lines, ''];
}

/** The whole report: a heading with the counts, a section per zone, the pending WAF plans, the failures. */
export function renderPreviewReport(digest: PreviewDigest, options: { stack?: string } = {}): string {
  const changes = resourceChanges(digest);
  const stack = options.stack ?? (digest.steps?.[0] ? resourceOfUrn(digest.steps[0].urn).stack : undefined);
  const failures = failureLines(digest);
  const lines = [`### Pulumi preview${stack ? ` of stack ${code(stack)}` : ''}: ${failures.length > 0 ? 'failed' : summaryText(digest)}`, ''];
  const zones = [...new Set(changes.map((change) => change.zoneId ?? ''))].sort();
  const undone = undoneChanges(refreshedResources(digest));
  if (changes.length === 0 && failures.length === 0) lines.push('`pulumi up` would change nothing.', '');
  for (const zone of zones) {
    const inZone = changes.filter((change) => (change.zoneId ?? '') === zone);
    lines.push(zone ? `**Zone ${code(zone)}**` : '**Not on a zone**', '', '| Change | Resource | Fields |', '|---|---|---|');
    for (const change of inZone) lines.push(`| ${change.verb} | ${change.kind} ${code(change.name)} | ${change.fields.join(', ')} |`);
    const details = detailLines(inZone);
    lines.push('', ...details.map((line) => `- ${line}`), ...(details.length > 0 ? [''] : []));
    lines.push(...undoneLines(undone.filter((change) => (change.zoneId ?? '') === zone)));
  }
  for (const plan of pendingPlans(digest)) lines.push(...planLines(plan), '');
  for (const plan of firewallUpgradePlans(digest)) lines.push(...firewallUpgradeLines(plan), '');
  if (failures.length > 0) lines.push('**Failed**', '', ...failures.map((failure) => `- ${failure}`), '');
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
