import type * as pulumi from '@pulumi/pulumi';
import type { Stack } from '@pulumi/pulumi/automation';
import { CspPolicy, type CspPolicyArgs } from '../../src/resources/csp-policy';
import { WafMigration } from '../../src/resources/waf-migration';
import { engineFailure, openSandbox, type EngineSandbox } from './harness';
import { zoneOfPlan } from '../support/emulator';

// A failed up, then at once the next preview of the same stack, in the same jest process: the next preview must
// answer, and see the whole program (an incomplete one would show the deployed policy as a delete). The engine
// suites were once retried for such an overlap, seen once in about five runs of test/e2e/waf-migration.test.ts; its
// cause is not found (the README's Tests section). What a failed up leaves in the process, with @pulumi/pulumi 3.259's
// Automation API, one case each below:
// - The engine answers the registrations it has not finished with UNAVAILABLE, and the SDK never settles the outputs
//   of such a resource (it skips gRPC errors): a program that returns one of them never ends, and its run stays
//   pending for the life of the process (six such runs by the end of the WAF suite of that time).
// - A registration still waiting for an input when the CLI exits is sent after it, while the next run is going.
// - The SDK sends the log messages of the whole process through one queue, each after the URN of the resource it is
//   about: a message about a resource that never registers holds up every later message, and every later run then
//   waits for ever. This one was ours: the last case got no answer to its previews until CspPolicy's warnings waited
//   for the policy's URN (src/resources/csp-policy.ts).
// Ruled out by tracing 3 runs of that WAF suite (26 program runs each, 156 registrations): each registration ran in its
// own run's state and went to that run's monitor (an old run's shutdown closes no client of a later run), and no run
// ended on a swallowed gRPC error. That is the one way we know for an incomplete program: the SDK reports a run that
// fails with an error carrying gRPC code CANCELLED or UNAVAILABLE as a success, and the engine takes what was
// registered so far for the whole program. A program that throws `Object.assign(new Error('x'), { code: 14 })` before
// declaring anything previews as `{ delete: 1, same: 1 }` for a stack of one policy (an up would delete the policy).
jest.setTimeout(580_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('failed-up');
});
afterAll(() => sandbox?.close());

const ROUNDS = Number(process.env.ZONEGUARD_FAILED_UP_ROUNDS ?? 2);
/** What a preview of the whole program sees: the stack, its owner id (docs/ownership.md#owner-id) and the policy it keeps. */
const WHOLE = JSON.stringify({ same: 3 });
/** A preview of these two resources took about 3 s here; a hung run would hold the engine for its 10-minute limit. */
const ANSWER_WITHIN_MS = 60_000;

interface Failing {
  /** The stack's name. */
  stack: string;
  /** What the failing program declares beside the refused migration, and what it returns. */
  declare(zoneId: string, refused: WafMigration): Record<string, unknown> | undefined;
  /** Called when the next run of the program starts. */
  nextRunStarted?(): void;
}

const policy = (zoneId: string, name: string, args: Partial<CspPolicyArgs> = {}, opts: pulumi.CustomResourceOptions = {}) =>
  new CspPolicy(name, { zoneId, description: name, expression: `http.host eq "${name}.example"`, value: "script-src 'self'", action: 'log', ...args }, opts);

let release: (() => void) | undefined;
const cases: Array<[string, Failing]> = [
  ['the failed run ends at once', { stack: 'ends', declare: () => undefined }],
  [
    'the failed run never ends: the program returns an output of the refused migration',
    { stack: 'pending', declare: (_zoneId, refused) => ({ state: refused.migrationState }) },
  ],
  [
    'a registration of the failed run is sent during the next run (its input resolves when that run starts)',
    {
      stack: 'late',
      declare: (zoneId) => {
        policy(zoneId, 'late', { description: new Promise<string>((resolve) => (release = () => resolve('late'))) });
        return undefined;
      },
      nextRunStarted: () => release?.(),
    },
  ],
  [
    'the failed run logs a warning about a policy that never registers (it waits for the refused migration)',
    {
      stack: 'warned',
      declare: (zoneId, refused) => {
        policy(zoneId, 'weak', { action: 'allow', value: "script-src 'self' 'unsafe-inline'" }, { dependsOn: [refused] });
        return undefined;
      },
    },
  ],
];

/** The next preview's change summary, or a line saying it did not answer in time (the preview is then cancelled). */
async function nextPreview(stack: Stack): Promise<string> {
  const cancel = new AbortController();
  const timer = setTimeout(() => cancel.abort(), ANSWER_WITHIN_MS);
  let printed = '';
  try {
    const result = await stack.preview({ color: 'never', onOutput: (out) => (printed += out), signal: cancel.signal });
    const summary = JSON.stringify(result.changeSummary);
    // The preview's text goes with a wrong summary, so a failure shows what the engine saw.
    return summary === WHOLE ? summary : `${summary}\n${printed}`;
  } catch (error) {
    if (cancel.signal.aborted) return `no answer within ${ANSWER_WITHIN_MS / 1000} s`;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

test.each(cases)(`after a failed up in which %s, the next preview answers and sees the whole program (${ROUNDS} rounds)`, async (_label, failing) => {
  const zoneId = zoneOfPlan(sandbox.emulator, 'pro');
  let failingRun = false;
  const stack = await sandbox.stack(failing.stack, async () => {
    if (!failingRun) failing.nextRunStarted?.();
    policy(zoneId, 'keep');
    // Refused by the service at create (validation mode is for Enterprise zones), changing nothing.
    return failingRun ? failing.declare(zoneId, new WafMigration('refused', { zoneId, mode: 'validation' })) : undefined;
  });
  await stack.up({ color: 'never' });
  const seen: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    failingRun = true;
    const text = await engineFailure((onOutput) => stack.up({ color: 'never', onOutput }));
    expect(text).toContain('validation mode is available to Enterprise zones only');
    failingRun = false;
    seen.push(await nextPreview(stack));
  }
  expect(seen).toEqual(Array.from({ length: ROUNDS }, () => WHOLE));
  await stack.destroy({ color: 'never' });
});
