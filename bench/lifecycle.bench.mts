// API calls per lifecycle of the demo stack (examples/demo/index.mts), counted by the emulator, and the bytes each
// resource takes in the state. The real Pulumi CLI and engine; the program served inline (Automation API). The steps:
// up (create), preview, up (unchanged), up with one field changed on every resource (the demo's optional config),
// refresh, preview, destroy.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/lifecycle.bench.mts
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startEmulator } from 'pulumi-zoneguard/emulator';
import type { RequestLogEntry } from 'pulumi-zoneguard/emulator';
import type { EngineEvent } from '@pulumi/pulumi/automation/index.js';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/lifecycle.bench.mts';
const TYPE_PREFIX = 'pulumi-nodejs:dynamic/zoneguard:';
/** Routes the demo PROGRAM reads (cspFromObservedScripts), not any provider: no provider calls the detected lists. */
const UPDATE_STEP = 'up (one field changed on every resource)';
const DESCRIPTION_NOTE = 'reviewed';
const PROGRAM_ROUTE = /^GET \/zones\/:zone_id\/page_guard\/(scripts|connections|cookies)$/;
/** The calls of CustomRule and RateLimitRule, told apart from the others by route. */
const RULES = 'CustomRule, RateLimitRule';
/** A read of a zone's entry point of a phase: a rules create reads it once a zone and phase for the run. */
const ENTRYPOINT_READ = /^GET \/zones\/:zone_id\/rulesets\/phases\/[a-z_]+\/entrypoint$/;

const emulator = await startEmulator({ port: 0 });
const dir = lib.workDir('lifecycle');
try {
  const zoneOf = (plan: string) => emulator.zones.find((zone) => zone.plan === plan)!.id;
  const bankZoneId = zoneOf('enterprise');
  const storeZoneId = zoneOf('pro');
  const stack = await lib.engineStack(dir, {
    project: 'zoneguard-demo',
    stack: 'bench',
    program: lib.moduleProgram(path.join(lib.root, 'examples/demo/index.mts')),
    emulator,
    config: { 'zoneguard-demo:bankZoneId': { value: bankZoneId }, 'zoneguard-demo:storeZoneId': { value: storeZoneId } },
  });

  /** Which resource type a provider call served: the store zone holds only the migration; the bank zone by route. */
  const ownerOf = (entry: RequestLogEntry): string => {
    const route = lib.routeOf(entry);
    if (PROGRAM_ROUTE.test(route)) return 'program (detected scripts)';
    if (entry.zoneId === storeZoneId) return 'WafMigration';
    if (/\/page_guard\/policies/.test(route)) return 'CspPolicy';
    if (/\/page_guard$/.test(route)) return 'PageGuardSettings';
    if (/\/(firewall\/rules|filters)/.test(route)) return 'FirewallRuleWithFilter';
    // A rule's POST, PATCH and DELETE name the ruleset by id, not its phase: both kinds of rule as one.
    if (/\/rulesets\//.test(route)) return RULES;
    return `other (${route})`;
  };

  const types = async () => {
    const deployment = (await stack.exportStack()).deployment as { resources?: Array<{ type: string; urn: string; protect?: boolean }> };
    const counts = new Map<string, number>();
    for (const resource of deployment.resources ?? []) {
      if (!resource.type.startsWith(TYPE_PREFIX)) continue;
      const kind = resource.type.slice(TYPE_PREFIX.length);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    return counts;
  };

  interface Step {
    name: string;
    /** Resource operations the engine reported for the step, by type (from the event stream). */
    ops: Map<string, Map<string, number>>;
    requests: RequestLogEntry[];
    total: number;
    ms: number;
  }
  const steps: Step[] = [];

  /** Runs one engine command, counting its requests and the resource operations it reports. */
  const run = async (name: string, command: (onEvent: (event: EngineEvent) => void) => Promise<unknown>, refresh = false) => {
    const ops = new Map<string, Map<string, number>>();
    const onEvent = (event: EngineEvent) => {
      const outputs = event.resOutputsEvent?.metadata;
      if (!outputs || !outputs.type.startsWith(TYPE_PREFIX)) return;
      const kind = outputs.type.slice(TYPE_PREFIX.length);
      const byOp = ops.get(kind) ?? new Map<string, number>();
      // A refresh reads every resource; the engine reports the unchanged ones as `same`.
      const op = refresh ? 'read' : outputs.op;
      byOp.set(op, (byOp.get(op) ?? 0) + 1);
      ops.set(kind, byOp);
    };
    const measured = await lib.measureRequests(emulator, () => command(onEvent));
    if (measured.counters.total !== measured.requests.length) {
      throw new Error(`${name}: the request log (${measured.requests.length}) and the counters (${measured.counters.total}) disagree`);
    }
    steps.push({ name, ops, requests: measured.requests, total: measured.counters.total, ms: measured.ms });
    console.log(`${name}: ${measured.counters.total} requests in ${fmt.ms(measured.ms)}`);
  };

  await run('up (create)', (onEvent) => stack.up({ color: 'never', onEvent }));
  const state = await stateFigures();
  await run('preview (unchanged)', (onEvent) => stack.preview({ color: 'never', expectNoChanges: true, onEvent }));
  await run('up (unchanged)', (onEvent) => stack.up({ color: 'never', onEvent }));
  // The demo's optional config: a note after every policy's and rule's description, and the settings' one field.
  await stack.setAllConfig({
    'zoneguard-demo:descriptionNote': { value: DESCRIPTION_NOTE },
    'zoneguard-demo:useConnectionUrlPath': { value: 'false' },
  });
  await run(UPDATE_STEP, (onEvent) => stack.up({ color: 'never', onEvent }));
  await run('refresh', (onEvent) => stack.refresh({ color: 'never', onEvent }), true);
  await run('preview after refresh', (onEvent) => stack.preview({ color: 'never', expectNoChanges: true, onEvent }));
  const beforeDestroy = await types();
  // The migration is protected (it cannot be undone, and its delete refuses): a user destroys the rest with
  // --exclude-protected; the zone keeps the new WAF and the stack keeps the migration's record.
  await run('destroy --exclude-protected', (onEvent) => stack.destroy({ color: 'never', excludeProtected: true, onEvent }));
  const afterDestroy = await types();

  // Per step: provider calls (program reads apart) and calls per resource operation, by type.
  const stepRows = steps.map((step) => {
    const program = step.requests.filter((entry) => ownerOf(entry).startsWith('program')).length;
    const provider = step.total - program;
    const ops = [...step.ops.values()].flatMap((byOp) => [...byOp.entries()]).filter(([op]) => op !== 'same').reduce((sum, [, n]) => sum + n, 0);
    return { step, program, provider, ops };
  });

  const perType = (step: Step) => {
    const rows: Array<[string, string, number, number, string, string]> = [];
    const byOwner = new Map<string, RequestLogEntry[]>();
    for (const entry of step.requests) {
      const owner = ownerOf(entry);
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), entry]);
    }
    // The two kinds of rule are served as one (RULES): their operations are counted together too.
    const grouped = new Map<string, Map<string, number>>();
    for (const [kind, byOp] of step.ops) {
      const key = kind === 'CustomRule' || kind === 'RateLimitRule' ? RULES : kind;
      const sum = grouped.get(key) ?? new Map<string, number>();
      for (const [op, n] of byOp) sum.set(op, (sum.get(op) ?? 0) + n);
      grouped.set(key, sum);
    }
    const kinds = new Set([...grouped.keys(), ...byOwner.keys()]);
    for (const kind of [...kinds].sort()) {
      const entries = byOwner.get(kind) ?? [];
      const ops = grouped.get(kind);
      const opText = ops ? [...ops.entries()].map(([op, n]) => `${n} ${op}`).join(', ') : '-';
      const opCount = ops ? [...ops.values()].reduce((a, b) => a + b, 0) : 0;
      const routes = new Map<string, number>();
      for (const entry of entries) routes.set(lib.routeOf(entry), (routes.get(lib.routeOf(entry)) ?? 0) + 1);
      const routeText = [...routes.entries()].map(([route, n]) => `${n}× \`${route}\``).join('<br>') || '-';
      const perOp = opCount > 0 && !kind.startsWith('program') ? (entries.length / opCount).toFixed(2) : '-';
      rows.push([kind, opText, opCount, entries.length, perOp, routeText]);
    }
    return table(['served', 'resource operations', 'ops', 'API calls', 'calls per op', 'calls by route'], rows);
  };

  const find = (name: string) => stepRows.find((row) => row.step.name === name)!;
  const preview = find('preview (unchanged)');
  const upUnchanged = find('up (unchanged)');
  const create = find('up (create)');
  const update = find(UPDATE_STEP);
  const refresh = find('refresh');
  const destroy = find('destroy --exclude-protected');
  const migrationCalls = create.step.requests.filter((entry) => ownerOf(entry) === 'WafMigration');
  /** A step's provider calls (GETs are reads) and resource operations, the migration apart. */
  const nonMigration = (row: (typeof stepRows)[number]) => {
    const entries = row.step.requests.filter((entry) => !ownerOf(entry).startsWith('program') && ownerOf(entry) !== 'WafMigration');
    const readCalls = entries.filter((entry) => entry.method === 'GET').length;
    const ops = [...row.step.ops.entries()]
      .filter(([kind]) => kind !== 'WafMigration')
      .flatMap(([, byOp]) => [...byOp.entries()])
      .filter(([op]) => op !== 'same')
      .reduce((sum, [, n]) => sum + n, 0);
    return { calls: entries.length, reads: readCalls, writes: entries.length - readCalls, ops };
  };
  const perOperation = (counts: ReturnType<typeof nonMigration>, operations: string) =>
    `${(counts.calls / counts.ops).toFixed(2)} (${counts.calls} calls: ${reads(counts.reads)}, ${writes(counts.writes)}; ${counts.ops} ${operations})`;
  const createOthers = nonMigration(create);
  // The rules' one read of a zone's entry point a phase (docs/custom-rules.md): apart from the per-operation count.
  const entrypointReads = create.step.requests.filter((entry) => ENTRYPOINT_READ.test(lib.routeOf(entry)));
  /** The zones and phases whose entry point the rules read (the path names both). */
  const entrypointsRead = new Set(entrypointReads.map((entry) => entry.path)).size;
  const updateOthers = nonMigration(update);
  // The kinds whose update reads the object for its owner marker first (the demo's others: PageGuardSettings).
  const markedKinds = ['CspPolicy', 'FirewallRuleWithFilter', 'CustomRule', 'RateLimitRule'];
  const markedCalls = update.step.requests.filter((entry) => [...markedKinds, RULES].includes(ownerOf(entry)));
  const markedUpdates = markedKinds.reduce((sum, kind) => sum + (update.step.ops.get(kind)?.get('update') ?? 0), 0);
  const markedReads = markedCalls.filter((entry) => entry.method === 'GET');
  const singleReads = markedReads.filter((entry) => lib.routeOf(entry).endsWith('/:id')).length;
  const refreshOthers = nonMigration(refresh);
  const destroyOthers = nonMigration(destroy);

  const reads = (n: number) => `${n} read${n === 1 ? '' : 's'}`;
  const writes = (n: number) => `${n} write${n === 1 ? '' : 's'}`;
  const figures: Lib.Figure[] = [
    {
      what: 'Demo stack, preview of the unchanged stack: provider API calls',
      value: `${preview.provider} (+ ${reads(preview.program)} by the demo program itself)`,
      goal: '0',
      met: preview.provider === 0,
    },
    {
      what: 'Demo stack, up of the unchanged stack: provider API calls',
      value: `${upUnchanged.provider} (+ ${reads(upUnchanged.program)} by the demo program itself)`,
      goal: '0',
      met: upUnchanged.provider === 0,
    },
    {
      what: 'Demo stack, up (create): API calls per resource operation, migration apart',
      value: `${perOperation(createOthers, 'creates')}, of which ${reads(entrypointReads.length)} of an entry point by the rules; migration ${migrationCalls.length} calls`,
      goal: "1 per operation, plus the rules' one read of a zone's entry point a phase",
      met: createOthers.calls - entrypointReads.length <= createOthers.ops && entrypointReads.length <= entrypointsRead,
    },
    {
      what: 'Demo stack, up with one field changed on every resource: API calls per update, migration apart (none of its fields can change)',
      value: `${perOperation(updateOthers, 'updates')}; a policy's or rule's update ${(markedCalls.length / markedUpdates).toFixed(2)} (${markedCalls.length} calls, ${markedUpdates} updates)`,
      goal: "≤ 2 per operation (the owner marker's read and the write)",
      met: updateOthers.calls <= 2 * updateOthers.ops,
    },
    {
      what: 'Demo stack, refresh: API calls per resource read, migration apart',
      value: perOperation(refreshOthers, 'resource reads'),
      goal: '1 per operation',
      met: refreshOthers.calls <= refreshOthers.ops,
    },
    {
      what: 'Demo stack, destroy --exclude-protected: API calls per delete',
      value: perOperation(destroyOthers, 'deletes'),
      goal: "≤ 2 per operation (the owner marker's read and the delete)",
      met: destroyOthers.calls <= 2 * destroyOthers.ops,
    },
    {
      what: 'Serialized provider (`__provider`) per resource in state',
      value: [...new Set(state.rows.map((row) => fmt.bytes(row.provider)))].join(', '),
      goal: '≤ 2 KB',
      met: state.rows.every((row) => row.provider <= 2048),
    },
  ];

  const section = [
    `The demo stack of \`npm run demo\` (examples/demo/index.mts: ${[...beforeDestroy.entries()].map(([kind, n]) => `${n} ${kind}`).join(', ')}) against the emulator's demo seed, ` +
      'driven through the real Pulumi CLI and engine (Automation API, inline program). The emulator logs every service request; ' +
      "each step empties the log first. Requests on the detected-scripts routes are the demo program's own reads " +
      "(`cspFromObservedScripts` builds a CSP from the scripts the service observed, each time the program runs), counted apart from the providers'.",
    '',
    table(
      ['step', 'wall time', 'API calls', 'provider calls', 'program reads', 'resource operations (not `same`)'],
      stepRows.map((row) => [row.step.name, fmt.ms(row.step.ms), row.step.total, row.provider, row.program, row.ops]),
    ),
    '',
    `**Update.** Between the unchanged up and the refresh, the bench sets the demo's optional config (\`descriptionNote: ${DESCRIPTION_NOTE}\`, ` +
      "`useConnectionUrlPath: false`; `npm run demo` sets neither): every policy's and rule's description gains the note, and the " +
      'page security settings stop reporting connection URLs with their path. An update of a policy or rule reads the object first for its ' +
      'owner marker (docs/ownership.md), then writes it. Reads of one zone and kind that arrive within a few milliseconds of each other share ' +
      `one walk of the zone's list, as a refresh's do; in this run the ${markedUpdates} updates read ${singleReads} objects alone (a GET ` +
      `each) and ${markedReads.length - singleReads} pages of a list. ` +
      'The WafMigration has no field an update can change once the migration is complete (`direct` is final, its adjustments cannot be ' +
      'submitted again, `wait` is not a change): it stays `same`.',
    '',
    ...stepRows.flatMap((row) => [`#### ${row.step.name}`, '', perType(row.step), '']),
    "#### The migration's calls on `up` (in order)",
    '',
    'The WafMigration (store zone, Pro, `mode: direct`) reads what it needs to plan the migration, submits the converted configuration ' +
      'once (the PUT of the entry point), then polls the status until the migration is `complete` (the emulator completes it at once: ' +
      '`migrationDelayMs` 0), in this order:',
    '',
    table(
      ['#', 'call', 'status'],
      migrationCalls.map((entry, i) => [i + 1, `\`${lib.routeOf(entry)}\``, entry.status]),
    ),
    '',
    `**Destroy.** The WafMigration is protected by default and its delete refuses (a migration cannot be undone), so a plain \`pulumi destroy\` stops on it. ` +
      'What a user does, and what this bench does: `pulumi destroy --exclude-protected` deletes everything else; the migration stays in the state ' +
      `(${afterDestroy.get('WafMigration') ?? 0} left after the destroy) and on the zone. To forget it as well: \`pulumi state delete --force <urn>\` (no API call), ` +
      'or `protect: false` + `retainOnDelete: true` in the program, then `pulumi up` and `pulumi destroy`.',
    '',
    '#### Bytes per resource in the state',
    '',
    `Read from \`pulumi stack export\` after the first up: the serialized provider text stored in the inputs and again in the outputs of every dynamic resource, and the resource's whole entry. The checkpoint file on disk is ${fmt.bytes(state.fileBytes)} for ${state.total} resources (the stack, the default provider and the demo's resources).`,
    '',
    table(
      ['resource', 'type', '`__provider` (inputs)', '`__provider` (outputs)', 'whole entry (JSON)'],
      state.rows.map((row) => [row.name, row.kind, fmt.bytes(row.provider), fmt.bytes(row.providerOut), fmt.bytes(row.entry)]),
    ),
  ].join('\n');

  lib.emitResult({ bench: 'Demo stack: API calls per lifecycle, state size', command: COMMAND, figures, section });

  async function stateFigures() {
    const deployment = (await stack.exportStack()).deployment as {
      resources: Array<{ type: string; urn: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }>;
    };
    const rows = deployment.resources
      .filter((resource) => resource.type.startsWith(TYPE_PREFIX))
      .map((resource) => ({
        name: resource.urn.split('::').pop()!,
        kind: resource.type.slice(TYPE_PREFIX.length),
        provider: Buffer.byteLength(String(resource.inputs?.__provider ?? '')),
        providerOut: Buffer.byteLength(String(resource.outputs?.__provider ?? '')),
        entry: Buffer.byteLength(JSON.stringify(resource)),
      }));
    const stateDir = path.join(dir, 'state');
    const files = fs
      .readdirSync(stateDir, { recursive: true, encoding: 'utf8' })
      .map((file) => path.join(stateDir, file))
      .filter((file) => /\/stacks\/.*\.json$/.test(file) && fs.statSync(file).isFile());
    const checkpoint = files.find((file) => file.endsWith(`${path.sep}bench.json`));
    if (!checkpoint) throw new Error(`no checkpoint file among ${files.join(', ')}`);
    return { rows, fileBytes: fs.statSync(checkpoint).size, total: deployment.resources.length };
  }
} finally {
  await emulator.close();
}
