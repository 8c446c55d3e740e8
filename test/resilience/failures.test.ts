import { openSandbox, type EngineSandbox } from '../e2e/harness';
import { engine, fleet, freshZone, programOf, unique, upOrThrow, type EngineRun } from './support';

// What a user reads when many resources fail at once: one line per resource, naming it and saying what failed, and
// no stack trace. Before, the dynamic provider host echoed every failure of check, diff, read and delete on its
// stderr, with a stack trace, and the engine printed that under the stack besides the resource's own line
// (src/providers/kit/context.ts `withQuietFailures`; docs/failures.md). The fleet is six resources: settings, two policies, three rules.
jest.setTimeout(180_000);

const RESOURCES = 6;
const WRONG_TOKEN = 'zg_Wr0ngT0kenWr0ngT0kenWr0ngT0kenWr0ng';

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('resilience-failures');
});
afterAll(() => sandbox?.close());

/** The engine's Diagnostics section: from its heading to the outputs or the resource summary. */
function diagnostics(run: EngineRun): string[] {
  const start = run.output.indexOf('Diagnostics:');
  const end = run.output.search(/^(Outputs|Resources):/m);
  expect(start).toBeGreaterThanOrEqual(0);
  return run.output
    .slice(start, end > start ? end : undefined)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** What every failed run must show: no stack trace, nothing under the stack, and every error line a single line. */
function expectReadable(run: EngineRun, lines: string[]): void {
  expect(run.ok).toBe(false);
  expect(run.output).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(run.output).not.toMatch(/ProviderError|SettingsError|ZoneGuardError/);
  expect(lines.filter((line) => line.includes('pulumi:pulumi:Stack'))).toEqual([]);
  for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}pulumi-nodejs:dynamic\/zoneguard:\w+ \(\w+\):$|^ {4}error: (PageGuardSettings|CspPolicy|FirewallRuleWithFilter|zoneguard)\b/);
}

test(`a refresh of ${RESOURCES} resources refused by the service prints one error line per resource`, async () => {
  const zoneId = await freshZone(sandbox.emulator, 'failures-refresh');
  const stack = await sandbox.stack(unique('refresh'), programOf(zoneId, () => fleet('failures')));
  await upOrThrow(stack);
  await stack.setConfig('zoneguard:apiToken', { value: WRONG_TOKEN, secret: true });
  const run = await engine((opts) => stack.refresh({ ...opts, runProgram: true }));
  const lines = diagnostics(run);
  expectReadable(run, lines);
  const errors = lines.filter((line) => line.startsWith('    error: '));
  for (const line of errors) expect(line).toMatch(/: reading the (settings|policy|rule): GET \/zones\/[0-9a-f]{32}\S* failed: HTTP 403 Forbidden: 10000 /);
  // The heading, a heading per resource, and its error line; the engine repeats the first failure once more.
  expect(new Set(errors).size).toBe(RESOURCES);
  expect(errors).toHaveLength(RESOURCES + 1);
  expect(lines).toHaveLength(1 + RESOURCES + RESOURCES + 1);
  // The whole output: the progress lines (at most three a resource) and the summary, nowhere near 16 a resource.
  expect(run.output.split('\n').length).toBeLessThanOrEqual(6 * RESOURCES + 30);

  await stack.setConfig('zoneguard:apiToken', { value: sandbox.emulator.credentials.apiToken, secret: true });
  await stack.destroy({ color: 'never', runProgram: true });
});

test('an up without credentials stops on the first check, in one line saying what to set', async () => {
  const zoneId = await freshZone(sandbox.emulator, 'failures-up');
  const stack = await sandbox.stack(unique('up'), programOf(zoneId, () => fleet('failures')));
  await stack.removeConfig('zoneguard:apiToken');
  const run = await engine((opts) => stack.up(opts));
  const lines = diagnostics(run);
  expectReadable(run, lines);
  // The engine stops at the first failed check (docs/failures.md), so one resource, one line.
  expect(lines).toEqual([
    'Diagnostics:',
    expect.stringMatching(/^ {2}pulumi-nodejs:dynamic\/zoneguard:\w+ \(\w+\):$/),
    expect.stringMatching(/^ {4}error: zoneguard: no credentials; set zoneguard:apiToken \(pulumi config set --secret zoneguard:apiToken <token>\) or ZONEGUARD_API_TOKEN, or both/),
  ]);
});
