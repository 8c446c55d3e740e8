// The budget calibrated by the service's word (docs/client.md#rate-budget), engine-free: processes of the client as
// shipped read against the emulator's rate limit, scaled down, counted per user across that user's tokens, with the
// service's Ratelimit headers on every answer. Two processes with two tokens of one user, each budget set to the
// limit, with and without the shared store (whose key is per credential, so it does not join two tokens): the
// service's word is what keeps them together under the limit; the control is the same without the headers. Then one
// process whose budget is the default scaled, against a raised limit and against the default.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/calibration.bench.mts
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/calibration.bench.mts';
/** The service's 1200 per 300 s scaled down as in the rate-limit bench: 20 per 2 s. */
const LIMIT = { requests: 20, windowMs: 2000 };
/** A raised limit (one account seen at 5000 per 300 s) at the same scale: 5000 / 1200 × 20 = 83 per 2 s. */
const RAISED = { requests: 83, windowMs: 2000 };
const READS = 50;
const CONCURRENCY = 4;

const redis = await lib.startRedis();
const emulatorProcess = await lib.startEmulatorProcess();
const { admin, baseUrl } = emulatorProcess;
const zoneId = (await admin.zones())[0]!.id;
const tokens = [(await admin.addToken({})).token, (await admin.addToken({})).token];

interface ChildResult {
  ok: number;
  failed: string[];
  ms: number;
}

function child(token: string, store: boolean, reads: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.join(lib.root, 'bench/calibration-child.mts'), zoneId, String(reads), String(CONCURRENCY)], {
      cwd: lib.root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        PATH: process.env.PATH ?? '',
        ZONEGUARD_BASE_URL: baseUrl,
        ZONEGUARD_API_TOKEN: token,
        ZONEGUARD_RATE_BUDGET: `${LIMIT.requests}/${LIMIT.windowMs}`,
        ...(store ? { ZONEGUARD_RATE_BUDGET_STORE: redis.url } : {}),
      },
    });
    let stdout = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout) as ChildResult) : reject(new Error(`calibration-child exited with ${code}`))));
  });
}

interface Run {
  scenario: string;
  limit: { requests: number; windowMs: number };
  processes: number;
  reads: number;
  ok: number;
  failed: number;
  limited: number;
  ms: number;
  floorMs: number;
}

async function scenario(name: string, options: { limit: typeof LIMIT; said: boolean; store: boolean; tokens: string[] }): Promise<Run> {
  await admin.setFaults({ rateLimit: options.limit, ...(options.said ? {} : { rateLimitHeaders: false }) });
  // A fresh window (and the end of any block), so a run does not start on what the previous one counted.
  await new Promise((resolve) => setTimeout(resolve, 2 * options.limit.windowMs));
  await admin.clearRequests();
  const started = performance.now();
  const results = await Promise.all(options.tokens.map((token) => child(token, options.store, READS)));
  const ms = performance.now() - started;
  const statuses = (await admin.requests()).map((entry) => entry.status);
  const reads = READS * options.tokens.length;
  const run: Run = {
    scenario: name,
    limit: options.limit,
    processes: options.tokens.length,
    reads,
    ok: results.reduce((sum, result) => sum + result.ok, 0),
    failed: results.reduce((sum, result) => sum + result.failed.length, 0),
    limited: statuses.filter((status) => status === 429).length,
    ms,
    floorMs: lib.floorMs(reads, options.limit),
  };
  console.log(`${name}: ${run.ok}/${reads} ok, ${run.limited} x 429, ${fmt.ms(ms)} (floor ${fmt.ms(run.floorMs)})`);
  return run;
}

const twoTokens = await scenario('two tokens of one user, no store', { limit: LIMIT, said: true, store: false, tokens });
const twoTokensStore = await scenario('two tokens of one user, with the store', { limit: LIMIT, said: true, store: true, tokens });
const control = await scenario('two tokens of one user, no store, no Ratelimit headers (the control)', { limit: LIMIT, said: false, store: false, tokens });
const single = await scenario('one token, limit as the budget assumes', { limit: LIMIT, said: true, store: false, tokens: [tokens[0]!] });
const raised = await scenario('one token, raised limit', { limit: RAISED, said: true, store: false, tokens: [tokens[0]!] });

emulatorProcess.child.kill('SIGTERM');
redis.stop();

const runs = [twoTokens, twoTokensStore, control, single, raised];
lib.emitResult({
  bench: 'The budget calibrated by the service (Ratelimit headers)',
  command: COMMAND,
  figures: [
    {
      what: `2 processes, 2 tokens of one user, each budget = the limit (${LIMIT.requests} per ${LIMIT.windowMs / 1000} s), ${READS} reads each: 429s without the store / with it`,
      value: `${twoTokens.limited} / ${twoTokensStore.limited} × 429 (${fmt.ms(twoTokens.ms)} / ${fmt.ms(twoTokensStore.ms)}; floor ${fmt.ms(twoTokens.floorMs)})`,
      goal: '0 × 429',
      met: twoTokens.limited === 0 && twoTokensStore.limited === 0 && twoTokens.failed + twoTokensStore.failed === 0,
    },
    {
      what: `The same without the service's Ratelimit headers (the control)`,
      value: `${control.limited} × 429, ${control.failed} reads failed, ${fmt.ms(control.ms)}`,
    },
    {
      what: `1 process, budget ${LIMIT.requests} per ${LIMIT.windowMs / 1000} s, ${READS} reads: against a raised limit (${RAISED.requests} per ${RAISED.windowMs / 1000} s) / the default scaled`,
      value: `${fmt.ms(raised.ms)} / ${fmt.ms(single.ms)} (${(raised.ms / single.ms).toFixed(2)} ×), ${raised.limited + single.limited} × 429`,
      goal: 'raised faster than the default',
      met: raised.ms < single.ms && raised.limited + single.limited === 0,
    },
  ],
  section: [
    `The emulator (a process of its own) enforces \`rateLimit\` per user across the user's tokens and key (every credential of the emulator belongs to its one user) and sends \`Ratelimit\` and \`Ratelimit-Policy\` on every answer. ` +
      `Each process is bench/calibration-child.mts: the client as shipped (retries on), its budget set to ${LIMIT.requests} per ${LIMIT.windowMs} ms (\`ZONEGUARD_RATE_BUDGET\`), ${READS} reads, ${CONCURRENCY} at a time. ` +
      `A request over the limit blocks the user for a window, as the service blocks one for its 5 minutes. **Floor**: (⌈reads / quota⌉ − 1) × window, the least time under the limit.`,
    '',
    table(
      ['scenario', 'limit', 'processes', 'reads', 'ok', 'failed', '429', 'time', 'floor'],
      runs.map((run) => [
        run.scenario,
        `${run.limit.requests} per ${run.limit.windowMs / 1000} s`,
        run.processes,
        run.reads,
        run.ok,
        run.failed,
        run.limited,
        fmt.ms(run.ms),
        fmt.ms(run.floorMs),
      ]),
    ),
  ].join('\n'),
});
