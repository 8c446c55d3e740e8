import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { previewReportCommand, runCommand } from '../../src/cli/commands';
import { SEAL_RECORD_VARIABLE, SEAL_VARIABLE } from '../../src/seal/session';
import { capture } from '../insights/helpers';
import type { EngineSandbox } from './harness';

// A sealed preview and the up that keeps its seal, through the real engine, as examples/ci-preview/ci.sh runs them
// (docs/sealed-previews.md): test/e2e/sealed-preview.test.ts and test/resilience/replace.test.ts drive them.

let previews = 0;

/**
 * A sealed preview as ci.sh pr makes it: `preview --refresh` with ZONEGUARD_SEAL_RECORD set for its providers, its
 * engine events as the streamed JSON, and `zoneguard preview-report --seal`. Answers the seal's file and the report.
 */
export async function sealedPreview(sandbox: EngineSandbox, stack: Stack): Promise<{ seal: string; report: string }> {
  const base = path.join(sandbox.dir, `${stack.name}-${++previews}`);
  stack.workspace.envVars[SEAL_RECORD_VARIABLE] = `${base}.landings.jsonl`;
  const events: EngineEvent[] = [];
  try {
    await stack.preview({ refresh: true, color: 'never', onEvent: (event) => events.push(event) });
  } finally {
    delete stack.workspace.envVars[SEAL_RECORD_VARIABLE];
  }
  fs.writeFileSync(`${base}.preview.json`, events.map((event) => JSON.stringify(event)).join('\n'));
  const out = capture();
  const code = await runCommand(previewReportCommand, ['--seal', `${base}.seal.json`, '--landings', `${base}.landings.jsonl`, `${base}.preview.json`], out.io);
  expect({ code, stderr: out.stderr() }).toEqual({ code: 0, stderr: '' });
  return { seal: `${base}.seal.json`, report: out.stdout() };
}

/**
 * `up` keeping the seal `file`; answers what the engine printed. Without --continue-on-error: under it, @pulumi/pulumi
 * (3.270.0 as installed here) rejects a failed resource's outputs in the program, which Jest takes for the suite's unhandled rejections (the
 * inline program runs in its process). Without it the engine starts no step after the first failure, so whether a
 * step runs beside a refused one is the engine's timing (1 run in 4 here refused the rule before the policy's step
 * started): a program orders what must be written before a refusal after it (dependsOn).
 */
export async function sealedUp(stack: Stack, file: string): Promise<{ failed: boolean; text: string }> {
  stack.workspace.envVars[SEAL_VARIABLE] = file;
  let text = '';
  try {
    await stack.up({ color: 'never', onOutput: (out) => (text += out) });
    return { failed: false, text };
  } catch (error) {
    return { failed: true, text: `${text}\n${error instanceof Error ? error.message : String(error)}` };
  } finally {
    delete stack.workspace.envVars[SEAL_VARIABLE];
  }
}
