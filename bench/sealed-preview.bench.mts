// Sealed previews (docs/sealed-previews.md), counted by the emulator: 100 changes in one zone (40 CSP policies and
// 40 custom rules updated, 20 custom rules created between them), previewed with --refresh as ci.sh pr does, without
// and with the seal's record, then applied by an up that keeps the seal and, from the same start, by an up without it.
// The real Pulumi CLI and engine; the program served inline (Automation API); the seal written by the built CLI.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/sealed-preview.bench.mts
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CspPolicy, CustomRule } from 'pulumi-zoneguard';
import type { EngineEvent } from '@pulumi/pulumi/automation/index.js';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);

const COMMAND = 'node bench/sealed-preview.bench.mts';
const POLICIES = 40;
const RULES = 40;
const CREATES = 20;

await lib.emulatorBench('sealed-preview', {}, async ({ emulator, dir, stack: stackOf, steps }) => {
  const zoneId = emulator.zones.find((zone) => zone.plan === 'enterprise')!.id;
  let version = 'v1';
  let creates = false;
  const stack = await stackOf('zoneguard-bench-sealed-preview', async () => {
    for (let i = 0; i < POLICIES; i += 1) {
      new CspPolicy(`policy-${i}`, {
        zoneId,
        action: 'log',
        expression: `http.host eq "shop-${i}.example"`,
        value: "script-src 'self'",
        description: `policy ${i} ${version}`,
      });
    }
    for (let i = 0; i < RULES; i += 1) {
      new CustomRule(`rule-${i}`, {
        zoneId,
        action: 'log',
        expression: `(http.request.uri.path eq "/path-${i}")`,
        ref: `rule-${i}`,
        description: `rule ${i} ${version}`,
      });
    }
    // Each create lands after a rule of the stack: its seal records the two rules around it.
    for (let i = 0; creates && i < CREATES; i += 1) {
      new CustomRule(`added-${i}`, {
        zoneId,
        action: 'block',
        expression: `(http.request.uri.path eq "/added-${i}")`,
        ref: `added-${i}`,
        position: { after: `rule-${i * 2}` },
      });
    }
    return {};
  });
  const { run, count, callText, stepsTable } = steps;
  const seal = path.join(dir, 'seal.json');
  const landings = path.join(dir, 'landings.jsonl');
  const events: EngineEvent[] = [];

  await stack.up({ color: 'never' });
  [version, creates] = ['v2', true];
  await run('preview --refresh (100 changes), not sealed', () => stack.preview({ refresh: true, color: 'never' }));
  stack.workspace.envVars.ZONEGUARD_SEAL_RECORD = landings;
  await run('preview --refresh (100 changes), sealed: its record and zoneguard preview-report --seal', async () => {
    await stack.preview({ refresh: true, color: 'never', onEvent: (event) => events.push(event) });
    fs.writeFileSync(path.join(dir, 'preview.json'), events.map((event) => JSON.stringify(event)).join('\n'));
    execFileSync('node', [path.join(lib.root, 'dist/cli/index.js'), 'preview-report', '--seal', seal, '--landings', landings, path.join(dir, 'preview.json')], {
      stdio: 'ignore',
    });
  });
  delete stack.workspace.envVars.ZONEGUARD_SEAL_RECORD;
  const sealed = JSON.parse(fs.readFileSync(seal, 'utf8')) as { resources: Array<{ op: string; landing: unknown }> };

  stack.workspace.envVars.ZONEGUARD_SEAL = seal;
  await run('up (100 changes), keeping the seal', () => stack.up({ color: 'never' }));
  delete stack.workspace.envVars.ZONEGUARD_SEAL;
  [version, creates] = ['v1', false];
  await stack.up({ color: 'never' });
  [version, creates] = ['v2', true];
  await run('up (the same 100 changes from the same start), no seal', () => stack.up({ color: 'never' }));

  const [previewPlain, previewSealed] = [count('preview --refresh (100 changes), not'), count('preview --refresh (100 changes), sealed')];
  const [upSealed, upPlain] = [count('up (100 changes), keeping'), count('up (the same')];
  const figures: Lib.Figure[] = [
    {
      what: `Sealed preview of 100 changes (${POLICIES} policies and ${RULES} rules updated, ${CREATES} rules created): API calls, preview --refresh sealed against not`,
      value: `${callText(previewSealed)} against ${callText(previewPlain)}; the seal holds ${sealed.resources.length} changes, ${sealed.resources.filter((r) => r.landing !== null).length} landings`,
      goal: 'no added call',
      met: previewSealed.calls === previewPlain.calls && sealed.resources.length === 100,
    },
    {
      what: 'Up of the same 100 changes keeping the seal, against an up without it from the same start: API calls',
      value: `${callText(upSealed)} against ${callText(upPlain)}`,
      goal: 'at most 1 read more a zone and phase (≤ 2: the policies, the custom rules)',
      met: upSealed.writes === upPlain.writes && upSealed.reads - upPlain.reads <= 2,
    },
  ];
  const section = [
    `${POLICIES} CspPolicies and ${RULES} CustomRules in the emulator's demo Enterprise zone, made by a first up; then ` +
      `each gets a new description and ${CREATES} CustomRules are added, each after a rule of the stack: 100 changes. ` +
      'Each step empties the request log first; the real Pulumi CLI and engine (Automation API, inline program).',
    '',
    stepsTable(),
    '',
    "The seal is made of what the preview's refresh read (one list of the zone's policies, one read of its entry point) " +
      "and of where each create lands, which the preview's dry run of the create read anyway; the providers append it to " +
      'the file ZONEGUARD_SEAL_RECORD names. The up that keeps the seal compares each object with what the owner marker\'s ' +
      "read before the write answers, and each create's neighbours with the entry point the create reads: no call of its own.",
  ].join('\n');
  return { bench: 'sealed-preview', command: COMMAND, figures, section };
});
