import { execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { secretsOf } from '../../src/client/credentials';
import { storeKeyOf, storeWindows, storeUrlForMessages } from '../../src/client/rate-budget-store';
import { ZONE, useClientZones } from './harness';
import { freePort, useRedisServer } from './redis-server';

// The rate budget shared through a real Redis server by processes with the same credentials
// (zoneguard:rateBudgetStore, README "Many stacks"), against the emulator's own limit (a fixed window, 429 code 971).

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '../..');
const child = path.join(__dirname, 'fixtures/budget-child.mts');
const emulator = useClientZones();
const redis = useRedisServer();

/** The budget of every process, and the service's limit the emulator enforces: 20 requests per 2 s. */
const LIMIT = { requests: 20, windowMs: 2_000 };
/** Reads each of the two processes makes at once: together more than one window allows. */
const READS = 14;

beforeAll(async () => {
  // The children load the built client, as a user's program does.
  await promisify(execFile)(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    cwd: root,
  });
});

beforeEach(async () => {
  await emulator().admin.setFaults({ rateLimit: LIMIT });
  const store = new Redis(redis().url);
  await store.flushall();
  store.disconnect();
});

interface ChildResult {
  code: number | null;
  ok: number;
  failed: string[];
  stderr: string;
  ms: number;
}

/** One process of the fleet: READS reads at once, no retries, the budget and store from the environment. */
function runChild(env: Record<string, string>): Promise<ChildResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ZONE, String(READS)], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        ZONEGUARD_BASE_URL: emulator().baseUrl,
        ZONEGUARD_API_TOKEN: emulator().credentials.apiToken,
        ZONEGUARD_RATE_BUDGET: `${LIMIT.requests}/${LIMIT.windowMs}`,
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => {
      const parsed = JSON.parse(stdout || '{"ok":0,"failed":["no output"]}') as { ok: number; failed: string[] };
      resolve({ code, ...parsed, stderr, ms: Date.now() - started });
    });
  });
}

async function statuses(): Promise<number[]> {
  return (await emulator().admin.requests()).map((r) => r.status);
}

describe('storeWindows: short fixed windows whose budget no span of windowMs can exceed', () => {
  describe.each([
    // requests, windowMs, durationSec, points
    [1200, 300_000, 30, 100],
    [20, 2_000, 1, 5],
    [5, 1_200, 1, 1],
    [1, 1_000, 1, 1],
    [100_000, 60_000, 6, 8_333],
  ])('%i per %i ms', (requests, windowMs, durationSec, points) => {
    it(`counts ${points} per ${durationSec} s`, () => {
      expect(storeWindows({ requests, windowMs })).toEqual({ durationSec, points });
    });
  });
});

describe('storeKeyOf', () => {
  it('is a hash of the credentials, never the credentials', () => {
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['t0ken-value'], limits: LIMIT });
    expect(key).toMatch(/^zoneguard:rate-budget:[0-9a-f]{64}$/);
    expect(key).not.toContain('t0ken');
  });

  it('shows a store without its password', () => {
    expect(storeUrlForMessages('redis://:s3cret@redis.internal:6380/2')).toBe('redis://redis.internal:6380');
  });
});

describe('two processes with the same credentials', () => {
  it('share one budget through the store: no 429', async () => {
    const store = { ZONEGUARD_RATE_BUDGET_STORE: redis().url };
    // Every command the store receives, watched while the two processes run (its counters expire with their window).
    const probe = new Redis(redis().url);
    const monitor = await probe.monitor();
    const commands: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => commands.push(args.join(' ')));
    const [a, b] = await Promise.all([runChild(store), runChild(store)]);
    monitor.disconnect();
    probe.disconnect();
    expect([a.code, b.code]).toEqual([0, 0]);
    expect([a.failed, b.failed]).toEqual([[], []]);
    expect(a.ok + b.ok).toBe(2 * READS);
    const seen = await statuses();
    expect(seen).toHaveLength(2 * READS);
    expect(seen.filter((s) => s === 429)).toEqual([]);
    // The store counts under the hash of the credentials only.
    const key = storeKeyOf({ baseUrl: emulator().baseUrl, secrets: secretsOf({ apiToken: emulator().credentials.apiToken }), limits: LIMIT });
    expect(commands.filter((command) => command.includes(key)).length).toBeGreaterThanOrEqual(2 * READS);
    expect(commands.join('\n')).not.toContain(emulator().credentials.apiToken);
    expect(stderrWarnings(a.stderr + b.stderr)).toEqual([]);
  });

  it('without the store each keeps its own budget and together they trip the limit (the control)', async () => {
    const [a, b] = await Promise.all([runChild({}), runChild({})]);
    expect(a.ok + b.ok).toBeLessThan(2 * READS);
    expect((await statuses()).filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});

describe('the store unreachable', () => {
  it('says so once, falls back to the process budget and does not hang', async () => {
    const port = await freePort();
    const result = await runChild({ ZONEGUARD_RATE_BUDGET_STORE: `redis://:pa55word@127.0.0.1:${port}` });
    expect(result.code).toBe(0);
    expect(result.failed).toEqual([]);
    expect(result.ok).toBe(READS);
    const warnings = stderrWarnings(result.stderr);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the rate budget store redis://127.0.0.1:${port} cannot be used`);
    expect(warnings[0]).toContain('this process keeps to its own budget');
    expect(result.stderr).not.toContain('pa55word');
    // Not hung: the whole process (start-up on a loaded machine included) ends long before a test's timeout.
    expect(result.ms).toBeLessThan(30_000);
    expect((await statuses()).filter((s) => s === 429)).toEqual([]);
  });
});

function stderrWarnings(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.includes('rate budget store'));
}
