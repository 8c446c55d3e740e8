import { execFile, spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { RateBudget, type Release } from '../../src/client/rate-budget';
import { STORE_SLOW_CALL_MS, StoreConnection, StoreRateBudget, storeKeyOf } from '../../src/client/rate-budget-store';
import { forgetNotices } from '../../src/client/notices';
import { useRedisServer } from './redis-server';
import { StubServer, json, ok } from './stub-server';

// The budget against hostile or broken answers and store contents (docs/client.md#rate-budget): replayed from a stub
// server to a real process of the built client, and from a real redis-server to the shared budget. Each must end in no
// busy loop, no wait longer than the service's window (5 minutes), no storm of requests, and one line said once.

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '../..');
const child = path.join(__dirname, 'fixtures/budget-child.mts');
const ZONE = '0123456789abcdef0123456789abcdef';
/**
 * What scripts/env.sh put in NODE_OPTIONS before it used `--disable-warning`: `--no-warnings` takes no value, so this
 * silences every process warning, as a user's `--no-warnings` does. The client's lines must be on stderr all the same.
 */
const ENV_SH_WARNINGS = '--no-warnings=ExperimentalWarning';

const redis = useRedisServer();
const stub = new StubServer();

beforeAll(async () => {
  await stub.start();
  // The children load the built client, as a user's program does.
  await promisify(execFile)(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root });
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.reset();
  forgetNotices();
});

interface Run {
  stdout: Record<string, unknown>;
  stderr: string;
}

/** One process of the built client: `reads` reads at once against the stub, watched for `watchMs` (or to the end). */
function runChild(reads: number, watchMs?: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const args = [child, ZONE, String(reads), ...(watchMs === undefined ? [] : [String(watchMs)])];
    const proc = spawn(process.execPath, args, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: ENV_SH_WARNINGS, ZONEGUARD_BASE_URL: stub.baseUrl, ZONEGUARD_API_TOKEN: 'zg_hostile-budget-token' },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('close', () => resolve({ stdout: JSON.parse(stdout || '{}') as Record<string, unknown>, stderr }));
  });
}

/** The stub answers every request with page security settings and these headers. */
function answerWith(headers: Record<string, string>): void {
  stub.always((_req, res) => json(res, 200, ok({ enabled: true }), headers));
}

/** The lines the client said of the service's word. */
const saidOfTheWord = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('zoneguard: the service said'));

describe('hostile answers, to a process of the built client under scripts/env.sh', () => {
  const THIRTY_DAYS_S = 30 * 86_400;
  it.each<[string, () => Record<string, string>, RegExp]>([
    ['a Ratelimit reset of 30 days (past what a timer holds)', () => ({ ratelimit: `"default";r=0;t=${THIRTY_DAYS_S}` }), /a reset of 2592000 s/],
    ['a Ratelimit reset of a day', () => ({ ratelimit: '"default";r=0;t=86400' }), /a reset of 86400 s/],
    [
      'an X-RateLimit-Reset in epoch milliseconds, 30 days ahead',
      () => ({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Date.now() + THIRTY_DAYS_S * 1000) }),
      /a reset of 259\d{4} s \(X-RateLimit-Reset \d{13}\)/,
    ],
    ['a policy of one request per 24.8 days', () => ({ ratelimit: '"default";r=5;t=10', 'ratelimit-policy': '"default";q=1;w=2142720' }), /a window of 2142720 s/],
  ])('%s: one request, then a wait of the window at most, no busy loop, said once', async (_name, headers, said) => {
    answerWith(headers());
    const { stdout, stderr } = await runChild(3, 1_500);
    // One request went (the first, alone: refused credentials are probed one at a time); the others wait.
    expect(stub.seen).toHaveLength(1);
    expect(stdout['ended']).toBe(1);
    const waits = stdout['waits'] as number[];
    expect(waits.length).toBeGreaterThan(0);
    for (const waitMs of waits) expect(waitMs).toBeLessThanOrEqual(300_000);
    // A wait that overflows a timer fires every millisecond: hundreds of timers in the watch, not a handful.
    expect(stdout['timers']).toBeLessThan(50);
    const lines = saidOfTheWord(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(said);
    expect(lines[0]).toMatch(/longer than its 300 s window \(docs\/service.md#rate-limit\): read as 300 s$/);
  });

  it('two policies in one header: the stricter is kept too (at most 2 a second here), and said once', async () => {
    answerWith({ ratelimit: '"default";r=1000;t=100', 'ratelimit-policy': '"default";q=1200;w=300, "burst";q=2;w=1' });
    const { stdout, stderr } = await runChild(6);
    expect(stdout).toEqual({ ok: 6, failed: [] });
    const arrivals = stub.seen.map((request) => request.at).sort((a, b) => a - b);
    expect(arrivals).toHaveLength(6);
    // A request's slot frees a window after its answer, which is after its arrival: 2 arrivals in any second at most.
    for (let i = 2; i < arrivals.length; i += 1) expect(arrivals[i]! - arrivals[i - 2]!).toBeGreaterThanOrEqual(1_000);
    expect(saidOfTheWord(stderr)).toEqual(['zoneguard: the service said 2 rate limit policies (1200 per 300 s, 2 per 1 s): keeping to all of them, at 2 per 1 s']);
  });
});

describe('hostile store contents, on a real redis-server', () => {
  const LIMIT = { requests: 20, windowMs: 2_000 };
  let errors: string[];
  let spy: jest.SpyInstance;
  /** What a test opened, closed after it whatever its outcome (an open connection keeps jest from exiting). */
  let opened: Array<() => Promise<unknown> | void>;
  const connectTo = (url: string, warn: (message: string) => void = () => undefined) => {
    const connection = new StoreConnection(url, warn);
    opened.push(async () => (await connection.ready())?.disconnect());
    return connection;
  };
  const probeOf = (): Redis => {
    const probe = new Redis(redis().url);
    opened.push(() => probe.disconnect());
    return probe;
  };
  beforeEach(async () => {
    opened = [];
    const store = new Redis(redis().url);
    await store.flushall();
    store.disconnect();
    errors = [];
    spy = jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
  });
  afterEach(async () => {
    spy.mockRestore();
    for (const close of opened) await close();
  });

  /** The waits five requests of `budget` are told, each taken before any is released. */
  async function waitsOfFive(budget: StoreRateBudget): Promise<number[]> {
    const waits: number[] = [];
    const releases: Release[] = [];
    for (let i = 0; i < 5; i += 1) releases.push(await budget.acquire((waitMs) => waits.push(waitMs)));
    for (const release of releases) release();
    return waits;
  }

  it('20,000 processes dated ahead in the set of processes: removed, said once, and the allowance is not drained', async () => {
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['ahead-token'], limits: LIMIT });
    const probe = probeOf();
    const [seconds, micros] = await probe.time();
    const aDayAhead = Number(seconds) * 1e6 + Number(micros) + 86_400e6;
    const pipeline = probe.pipeline();
    for (let i = 0; i < 20_000; i += 1) pipeline.zadd(`${key}:processes`, String(aDayAhead + i), `stale-${i}`);
    await pipeline.exec();
    const warnings: string[] = [];
    const connection = connectTo(redis().url, (message) => warnings.push(message));
    const budget = new StoreRateBudget(connection, new RateBudget(LIMIT), key);
    (await budget.acquire())();
    // The service's word after that request: 18 left of 20. The store's count of the fleet comes after it.
    budget.observe({ remaining: 18, resetMs: 2_000 });
    while ((await probe.zcount(`${key}:processes`, '(' + String(aDayAhead - 1), '+inf')) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 20,001 processes made each share nothing: every request waited for the service's reset, then one a second.
    const waits = await waitsOfFive(budget);
    expect(waits).toEqual([]);
    expect(await probe.zcard(`${key}:processes`)).toBe(1);
    expect(errors.filter((line) => line.includes('dated after its own time'))).toEqual([
      `zoneguard: the rate budget store ${redis().url} held 20000 processes dated after its own time (a writer with a skewed clock, or not ours): removed`,
    ]);
    expect(warnings).toEqual([]);
  });

  it('500 processes in the window but one request: no more processes are counted than requests, so no share is nothing', async () => {
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['crowd-token'], limits: LIMIT });
    const probe = probeOf();
    const [seconds, micros] = await probe.time();
    // Dated a moment ago, within the window: as members a live process writes, but no process of the fleet did.
    const justNow = Number(seconds) * 1e6 + Number(micros) - 100_000;
    const pipeline = probe.pipeline();
    for (let i = 0; i < 500; i += 1) pipeline.zadd(`${key}:processes`, String(justNow), `crowd-${i}`);
    await pipeline.exec();
    const connection = connectTo(redis().url);
    const budget = new StoreRateBudget(connection, new RateBudget(LIMIT), key);
    (await budget.acquire())();
    budget.observe({ remaining: 18, resetMs: 2_000 });
    // The count of the fleet noted this process present beside the 500.
    while (!(await probe.zscore(`${key}:processes`, 'crowd-0')) || (await probe.zcard(`${key}:processes`)) < 501) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waits = await waitsOfFive(budget);
    // 501 processes made each share of the 18 left nothing (18 / 2 / 501): every request waited.
    expect(waits).toEqual([]);
  });

  it('a store answering each call in 400 ms: left for the process budget after two calls, said once', async () => {
    const proxy = await delayingProxy(redis().port, 400);
    opened.push(() => proxy.close());
    const key = storeKeyOf({ baseUrl: 'https://api.example.com/client/v4', secrets: ['slow-store-token'], limits: LIMIT });
    const warnings: string[] = [];
    const connection = connectTo(`redis://127.0.0.1:${proxy.port}`, (message) => warnings.push(message));
    const budget = new StoreRateBudget(connection, new RateBudget(LIMIT), key);
    const releases = await Promise.all(Array.from({ length: 10 }, () => budget.acquire()));
    for (const release of releases) release();
    const probe = probeOf();
    // Reservations are made one at a time: each of the ten held the others 400 ms. Two slow ones, then none.
    expect(await probe.zcard(key)).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^zoneguard: the rate budget store redis://127.0.0.1:${proxy.port} cannot be used \\(it answered in (\\d+) ms, past its budget of ${STORE_SLOW_CALL_MS} ms a call twice in a row\\); this process keeps to its own budget`,
      ),
    );
    expect(Number(/answered in (\d+) ms/.exec(warnings[0]!)?.[1])).toBeGreaterThanOrEqual(400);
  });
});

/** A TCP proxy to the redis-server that holds every chunk the client sends `delayMs` before passing it on. */
async function delayingProxy(port: number, delayMs: number): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => setTimeout(() => upstream.write(chunk), delayMs));
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
