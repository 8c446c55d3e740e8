import { createHash, scryptSync } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { secretsOf } from '../../src/client/credentials';
import { RateBudget, systemClock, type Release } from '../../src/client/rate-budget';
import { STORE_COMMAND_TIMEOUT_MS, STORE_KEY_KDF, StoreConnection, StoreRateBudget, storeIntervalMs, storeKeyOf, storeUrlForMessages } from '../../src/client/rate-budget-store';
import { ZONE, useClientZones } from './harness';
import { freePort, useRedisServer } from './redis-server';

// The rate budget shared through a real Redis server by processes with the same credentials
// (zoneguard:rateBudgetStore, README "Many stacks", docs/many-stacks.md), against the emulator's own limit (any window, 429 code 971).

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

/** One process of the fleet: READS (or `reads`) reads at once, no retries, the budget and store from the environment. */
function runChild(env: Record<string, string>, reads = READS): Promise<ChildResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ZONE, String(reads)], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        // As scripts/env.sh ran every process before it used --disable-warning, and as a user's --no-warnings does: this
        // silences every process warning, so what the store says must reach stderr another way
        // (docs/client.md#rate-budget-store).
        NODE_OPTIONS: '--no-warnings=ExperimentalWarning',
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

describe('storeIntervalMs: the window plus 5% of it, for the time between reservation and arrival', () => {
  describe.each([
    // requests, windowMs, intervalMs
    [1200, 300_000, 315_000],
    [1200, 3_600_000, 3_780_000],
    [20, 2_000, 2_100],
    [5, 1_200, 1_260],
    [1, 1, 2],
    [10, 20_000, 21_000],
    [10, 19_999, 20_999],
  ])('%i per %i ms', (requests, windowMs, intervalMs) => {
    it(`counts intervals of ${intervalMs} ms`, () => {
      expect(storeIntervalMs({ requests, windowMs })).toBe(intervalMs);
    });
  });
});

/** The most arrivals in any span of `windowMs` (arrivals sorted). Pure. */
function mostInAnyWindow(arrivals: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < arrivals.length; i++) {
    while (arrivals[i]! - arrivals[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('mostInAnyWindow', () => {
  it.each([
    [[], 0],
    [[0, 1999, 2000, 2001], 3],
    [[0, 1, 2, 5000], 3],
  ])('%j', (arrivals, most) => {
    expect(mostInAnyWindow(arrivals, 2_000)).toBe(most);
  });
});

/** The calls of the store's reservation script since the last CONFIG RESETSTAT (ioredis sends EVALSHA, EVAL on NOSCRIPT). */
async function scriptCalls(store: Redis): Promise<number> {
  const stats = await store.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

describe('clients with their own connections to the store', () => {
  /** A tiny HTTP server that records when each request arrives, on its own clock, as the service counts. */
  let server: http.Server;
  let arrivals: number[];
  /** How long the server takes to answer. */
  let answerMs: number;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      arrivals.push(performance.now());
      setTimeout(() => response.end('{}'), answerMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    arrivals = [];
    answerMs = 0;
  });

  const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['shared-token'], limits: LIMIT });
  const noWarnings: string[] = [];
  const opened: StoreConnection[] = [];
  const connect = () => {
    const connection = new StoreConnection(redis().url, (message) => noWarnings.push(message));
    opened.push(connection);
    return connection;
  };
  afterEach(async () => {
    for (const connection of opened.splice(0)) (await connection.ready())?.disconnect();
  });
  /** One process of a fleet: its own connection to the store and its own budget. */
  const fleetMember = () => new StoreRateBudget(connect(), new RateBudget(LIMIT), key);

  /** Takes a slot, sends one request, gives the slot back when the answer is in: as the transport does. */
  async function send(budget: StoreRateBudget): Promise<void> {
    const release: Release = await budget.acquire();
    try {
      await (await fetch(url)).text();
    } finally {
      release();
    }
  }

  it('counts a request from when it ended: its reservation is moved to the end, once, on the server clock', async () => {
    const probe = new Redis(redis().url);
    const micros = async () => {
      const [seconds, micro] = await probe.time();
      return Number(seconds) * 1e6 + Number(micro);
    };
    const budget = fleetMember();
    answerMs = 300;
    const before = await micros();
    await Promise.all([send(budget), send(budget), send(budget)]);
    const after = await micros();
    // The move is sent when the slot is given back; it has run once every member is past the answers' 300 ms.
    const members = async () => (await probe.zrange(key, '0', '-1', 'WITHSCORES')).map(Number);
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline && (await members()).some((value, i) => i % 2 === 1 && value < before + 300_000)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const entries = await members();
    probe.disconnect();
    const scores = entries.filter((_, i) => i % 2 === 1);
    // Three requests, three entries (the start of each replaced, not added to), each its own member and score.
    expect(entries.filter((_, i) => i % 2 === 0)).toEqual(scores);
    expect(scores).toHaveLength(3);
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(before + 300_000);
    for (const score of scores) expect(score).toBeLessThanOrEqual(after + 1_000_000);
  });

  it('never let the server receive more than the limit in any window, and let through all of it', async () => {
    const clients = 4;
    const each = 15;
    const fleet = Array.from({ length: clients }, fleetMember);
    const probe = new Redis(redis().url);
    await probe.config('RESETSTAT');
    await Promise.all(fleet.flatMap((budget) => Array.from({ length: each }, () => send(budget))));
    const calls = await scriptCalls(probe);
    probe.disconnect();
    expect(arrivals).toHaveLength(clients * each);
    arrivals.sort((a, b) => a - b);
    // The whole budget in the first window (fixed windows of a share would let through far fewer), never more.
    expect(mostInAnyWindow(arrivals, LIMIT.windowMs)).toBe(LIMIT.requests);
    // 60 requests at 20 per 2.1 s of the store: the last two windows' worth waited at least two intervals.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(2 * storeIntervalMs(LIMIT) - 50);
    // Waiters sleep until the slot the store names frees, one per client at a time: a few reservations per request,
    // where polling would make hundreds.
    expect(calls).toBeLessThanOrEqual((clients + 1) * clients * each);
    expect(noWarnings).toEqual([]);
  });

  it('wait as long as the store says a slot takes to free, once', async () => {
    const first = fleetMember();
    await Promise.all(Array.from({ length: LIMIT.requests }, () => send(first)));
    const sleeps: number[] = [];
    const told: number[] = [];
    const sleepy = new StoreRateBudget(connect(), new RateBudget(LIMIT), key, {
      now: systemClock.now, sleep: (ms) => (sleeps.push(ms), systemClock.sleep(ms)),
    });
    const started = performance.now();
    const release = await sleepy.acquire((waitMs) => told.push(waitMs));
    const waited = performance.now() - started;
    release();
    expect(sleeps).toHaveLength(1);
    expect(told).toEqual(sleeps);
    // The first 20 were reserved a moment ago: the 21st frees one interval after the first of them.
    expect(sleeps[0]).toBeGreaterThan(storeIntervalMs(LIMIT) - 1_000);
    expect(sleeps[0]).toBeLessThanOrEqual(storeIntervalMs(LIMIT));
    expect(waited).toBeGreaterThanOrEqual(sleeps[0]! - 1);
    expect(noWarnings).toEqual([]);
  });
});

describe('members dated in the future', () => {
  it('are removed once the window is full, and a member past the window never makes a request wait', async () => {
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['future-token'], limits: LIMIT });
    const probe = new Redis(redis().url);
    const [seconds, micros] = await probe.time();
    const now = Number(seconds) * 1e6 + Number(micros);
    // A stale writer's whole window, 30 days ahead: the window is full until then for the counting script.
    const ahead = now + 30 * 86_400 * 1e6;
    for (let i = 0; i < LIMIT.requests; i += 1) await probe.zadd(key, String(ahead + i), String(ahead + i));
    const warnings: string[] = [];
    const said = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const connection = new StoreConnection(redis().url, (message) => warnings.push(message));
    const budget = new StoreRateBudget(connection, new RateBudget(LIMIT), key);
    const started = performance.now();
    for (let i = 0; i < 5; i += 1) (await budget.acquire())();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await probe.zcount(key, String(now + storeIntervalMs(LIMIT) * 1000), '+inf')).toBe(0);
    expect(warnings).toEqual([]);
    // Said once on stderr, not as a warning that the store cannot be used: the store is used.
    expect(said.mock.calls).toEqual([
      [`zoneguard: the rate budget store ${redis().url} held 20 requests dated past its own time and the window (a writer with a skewed clock, or not ours): removed`],
    ]);
    said.mockRestore();
    (await connection.ready())?.disconnect();
    probe.disconnect();
  });
});

describe('a slow store, and one that never answers', () => {
  /** Ten acquires at once against a store whose every command waits `pauseMs` (CLIENT PAUSE on a real redis-server). */
  async function tenAtOnce(pauseMs: number): Promise<{ ms: number; warnings: string[] }> {
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: [`slow-${pauseMs}`], limits: LIMIT });
    const warnings: string[] = [];
    const connection = new StoreConnection(redis().url, (message) => warnings.push(message));
    const redisClient = await connection.ready();
    const budget = new StoreRateBudget(connection, new RateBudget(LIMIT), key);
    const probe = new Redis(redis().url);
    await probe.call('CLIENT', 'PAUSE', String(pauseMs), 'ALL');
    const started = performance.now();
    const releases = await Promise.all(Array.from({ length: 10 }, () => budget.acquire()));
    const ms = performance.now() - started;
    for (const release of releases) release();
    // The pause ends by itself (CLIENT UNPAUSE would wait behind it too), before the next test uses the server.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pauseMs - ms + 100)));
    probe.disconnect();
    redisClient?.disconnect();
    return { ms, warnings };
  }

  it.each([
    ['answers in 800 ms', 800],
    ['does not answer within ten deadlines', 10 * STORE_COMMAND_TIMEOUT_MS],
  ])('%s: ten requests at once wait one deadline in all, not one each, and it is said once', async (_name, pauseMs) => {
    const { ms, warnings } = await tenAtOnce(pauseMs);
    expect(ms).toBeGreaterThanOrEqual(STORE_COMMAND_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(STORE_COMMAND_TIMEOUT_MS + 500);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cannot be used');
    expect(warnings[0]).toContain('this process keeps to its own budget');
  });
});

describe('storeKeyOf', () => {
  it('is a hash of the credentials, never the credentials', () => {
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['t0ken-value'], limits: LIMIT });
    expect(key).toMatch(/^zoneguard:rate-budget:v2:[0-9a-f]{64}$/);
    expect(key).not.toContain('t0ken');
    // Not a fast hash of the parts: testing a guessed token against a key costs a slow KDF (STORE_KEY_KDF).
    const fast = createHash('sha256').update(JSON.stringify(['https://api.example.com/client/v4', ['t0ken-value'], LIMIT.requests, LIMIT.windowMs])).digest('hex');
    expect(key).not.toContain(fast);
    const { N, r, p, keyLength, salt } = STORE_KEY_KDF;
    const started = performance.now();
    scryptSync('a guess', salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 });
    expect(performance.now() - started).toBeGreaterThan(20);
  });

  it('shows a store without its password', () => {
    expect(storeUrlForMessages('redis://:s3cret@redis.internal:6380/2')).toBe('redis://redis.internal:6380');
    // Not a URL (an unencoded / in the password): none of the password either.
    expect(storeUrlForMessages('redis://:s3c/r@et@redis.internal:6380/2')).toBe('redis://***@redis.internal:6380');
  });
});

describe('two processes with the same credentials', () => {
  it('share one budget through the store: no 429', async () => {
    const store = { ZONEGUARD_RATE_BUDGET_STORE: redis().url };
    // Every command the store receives, watched while the two processes run (reservations leave the sorted set as the window slides).
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

  it("without the store (and without the service's word on its answers) each keeps its own budget and together they trip the limit (the control)", async () => {
    // With the Ratelimit headers the budgets would follow the service's count (test/client/calibration.test.ts).
    await emulator().admin.setFaults({ rateLimit: LIMIT, rateLimitHeaders: false });
    const [a, b] = await Promise.all([runChild({}), runChild({})]);
    expect(a.ok + b.ok).toBeLessThan(2 * READS);
    expect((await statuses()).filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});

describe('a fleet, with the service\'s word on every answer (docs/client.md#calibration)', () => {
  it('goes at the pace of the limit: four processes, 15 reads each, take about the floor and get no 429', async () => {
    // Counted as each process's alone, the others' requests made every answer show "another spender": the allowance
    // then added nothing before the service's reset, and each process went at one request a second (more than 10 s).
    const results = await Promise.all(Array.from({ length: 4 }, () => runChild({ ZONEGUARD_RATE_BUDGET_STORE: redis().url }, 15)));
    expect(results.map((result) => result.failed)).toEqual([[], [], [], []]);
    const log = await emulator().admin.requests();
    expect(log.filter((entry) => entry.status === 429)).toEqual([]);
    expect(log).toHaveLength(60);
    const arrivals = log.map((entry) => Date.parse(entry.at)).sort((a, b) => a - b);
    // 60 requests at 20 per 2 s: the last ones can arrive 4 s after the first (the floor), at the store's 20 per 2.1 s
    // 4.2 s, and the children start apart on a loaded machine.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(2 * LIMIT.windowMs);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeLessThan(7_000);
    expect(mostInAnyWindow(arrivals, LIMIT.windowMs)).toBeLessThanOrEqual(LIMIT.requests);
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
