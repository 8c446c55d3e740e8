import { CspPolicy } from '../../src/resources/csp-policy';
import { WafMigration } from '../../src/resources/waf-migration';
import { engineFailure, openSandbox, type EngineSandbox } from './harness';
import { zoneOfPlan } from '../support/emulator';

// A failed up, then at once the next operation on the same stack, in the same jest process, several times: the next
// preview must see the whole program (an incomplete one would show the deployed policy as a delete). The engine
// suites were once retried for such an overlap of the Automation API's in-process language server, seen once in
// about five runs of test/e2e/waf-migration.test.ts; this test is what would show it again.
jest.setTimeout(580_000);

let sandbox: EngineSandbox;
beforeAll(async () => {
  sandbox = await openSandbox('failed-up');
});
afterAll(() => sandbox?.close());

const ROUNDS = Number(process.env.ZONEGUARD_FAILED_UP_ROUNDS ?? 4);

test(`after a failed up, the next preview sees the whole program (${ROUNDS} rounds)`, async () => {
  const zoneId = zoneOfPlan(sandbox.emulator, 'pro');
  let failing = false;
  const stack = await sandbox.stack('overlap', async () => {
    new CspPolicy('keep', { zoneId, description: 'kept', expression: 'http.host eq "keep.example"', value: "script-src 'self'", action: 'log' });
    // Refused by the service at create (validation mode is for Enterprise zones), changing nothing.
    if (failing) new WafMigration('refused', { zoneId, mode: 'validation' });
  });
  await stack.up({ color: 'never' });
  const seen: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    failing = true;
    const text = await engineFailure((onOutput) => stack.up({ color: 'never', onOutput }));
    expect(text).toContain('validation mode is available to Enterprise zones only');
    failing = false;
    let preview = '';
    const result = await stack.preview({ color: 'never', onOutput: (out) => (preview += out) });
    const summary = JSON.stringify(result.changeSummary);
    // The preview's text goes with a wrong summary, so a failure shows what the engine saw.
    seen.push(summary === JSON.stringify({ same: 2 }) ? summary : `round ${round}: ${summary}\n${preview}`);
  }
  expect(seen).toEqual(Array.from({ length: ROUNDS }, () => JSON.stringify({ same: 2 })));
  await stack.destroy({ color: 'never' });
});
