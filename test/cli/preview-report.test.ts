import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { previewReportCommand, runCommand } from '../../src/cli/commands';
import { capture } from '../insights/helpers';

// `zoneguard preview-report` on the two forms `pulumi preview --json` prints: the engine's events one a line (with
// PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true, as examples/ci-preview/ci.sh runs it) and the one-document digest.
// The report of a real preview, through the engine: test/e2e/examples.test.ts.
const URN = 'urn:pulumi:ci::shop::';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-preview-report-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

const policy = (value: string) => ({ inputs: { zoneId: 'z1', value } });
const events = [
  { sequence: 0, preludeEvent: { config: {} } },
  { sequence: 1, resourcePreEvent: { metadata: { op: 'same', urn: `${URN}pulumi:pulumi:Stack::shop-ci`, type: 'pulumi:pulumi:Stack' }, planning: true } },
  {
    sequence: 2,
    resourcePreEvent: {
      metadata: { op: 'update', urn: `${URN}pulumi-nodejs:dynamic/zoneguard:CspPolicy::checkout`, old: policy("script-src 'self'"), new: policy("script-src 'self' https://js.example"), diffs: [], detailedDiff: null },
      planning: true,
    },
  },
  { sequence: 3, resOutputsEvent: { metadata: { op: 'same', urn: `${URN}pulumi:pulumi:Stack::shop-ci`, new: { outputs: { plan: { compatible: false, migrationState: 'start', problems: ['rule quota'] } } } } } },
  { sequence: 4, summaryEvent: { resourceChanges: { update: 1, same: 1 } } },
];

test('the streamed events: per zone the change, the sources gained, the pending plan from the stack outputs', async () => {
  const out = capture();
  const file = write('events.json', events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  expect(await runCommand(previewReportCommand, [file], out.io)).toBe(0);
  expect(out.stderr()).toBe('');
  expect(out.stdout()).toBe(
    [
      '### Pulumi preview of stack `ci`: 1 to update',
      '',
      '**Zone `z1`**',
      '',
      '| Change | Resource | Fields |',
      '|---|---|---|',
      '| update | CspPolicy `checkout` | value |',
      '',
      '- CSP policy `checkout`, script-src: gains `https://js.example`',
      '',
      '**WAF migration plan** (stack output `plan`): **not compatible**, state `start`',
      '',
      '- problem: rule quota',
      '',
    ].join('\n'),
  );
});

test('the one-document digest, with --stack naming the heading', async () => {
  const out = capture();
  const file = write('digest.json', JSON.stringify({ steps: [], changeSummary: { same: 4 } }));
  expect(await runCommand(previewReportCommand, [file, '--stack', 'prod'], out.io)).toBe(0);
  expect(out.stdout()).toBe('### Pulumi preview of stack `prod`: no changes\n\n`pulumi up` would change nothing.\n');
});

test.each([
  ['not JSON', 'pulumi: command not found\n', 'is not JSON (line 1): pass what pulumi preview --json writes'],
  ['an event of another shape', '{"resourcePreEvent": {"metadata": {"op": 1}}}\nnot json\n', ', line 1, is not an engine event: resourcePreEvent.metadata.op:'],
])('%s: one line, exit 2', async (_label, text, message) => {
  const out = capture();
  const file = write('bad.json', text);
  expect(await runCommand(previewReportCommand, [file], out.io)).toBe(2);
  expect(out.stdout()).toBe('');
  expect(out.stderr()).toContain(message);
  expect(out.stderr().trim().split('\n')).toHaveLength(1);
});
