// A stack of 250 resources (125 CspPolicy, 125 FirewallRuleWithFilter) created and destroyed by the real engine while
// the emulator enforces the service's rate limit, scaled down so the run stays short. Two runs: the providers as
// shipped (their client budget is the real 1200 per 300000 ms, so the scaled limit answers 429 + Retry-After and the
// retry policy absorbs it), and the providers' budget set to the scaled limit (what the real limit and the default
// budget are to each other), set with the providers' ZONEGUARD_RATE_BUDGET (or zoneguard:rateBudget) setting.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && source scripts/engine.sh && node bench/rate-limit.bench.mts
import { execFileSync } from 'node:child_process';
import type { EngineEvent } from '@pulumi/pulumi/automation/index.js';
import { CspPolicy, FirewallRuleWithFilter } from 'pulumi-zoneguard';
import { startEmulator } from 'pulumi-zoneguard/emulator';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/rate-limit.bench.mts';
const RESOURCES = 250;
/**
 * The scaled-down limit: 20 per 2 s is 10 requests/s, 2.5 times the real 1200 per 300 s (4/s). Slow enough that
 * 250 calls take longer under it (24 s) than the engine needs for 250 resources here, so the limit is what binds.
 */
const LIMIT = { requests: 20, windowMs: 2000 };

const emulator = await startEmulator({ port: 0 });
const dir = lib.workDir('rate-limit');
/** The program, on a zone of its own per scenario: what one scenario leaves behind never meets the next. */
const programOn = (zone: { id: string }) => async () => {
  for (let i = 0; i < RESOURCES / 2; i++) {
    new CspPolicy(`policy-${i}`, {
      zoneId: zone.id,
      action: 'log',
      description: `bench policy ${i}`,
      expression: `http.host eq "p${i}.bench-250.example"`,
      value: "script-src 'self' https://cdn.bench-250.example",
    });
    new FirewallRuleWithFilter(`rule-${i}`, {
      zoneId: zone.id,
      action: 'block',
      description: `bench rule ${i}`,
      expression: `http.request.uri.path eq "/bench/${i}"`,
    });
  }
  return {};
};

const floorMs = (calls: number) => lib.floorMs(calls, LIMIT);

interface Run {
  scenario: string;
  step: string;
  ok: boolean;
  error?: string;
  failedOps: number;
  ops: number;
  ms: number;
  succeeded: number;
  limited: number;
  otherStatus: number;
  /** First to last request arrival. */
  spanMs: number;
  floorMs: number;
  maxInWindow: number;
}

const runs: Run[] = [];

async function measure(scenario: string, step: string, limitedRun: boolean, command: (onEvent: (event: EngineEvent) => void) => Promise<unknown>) {
  let failedOps = 0;
  let ops = 0;
  const onEvent = (event: EngineEvent) => {
    if (event.resOpFailedEvent) failedOps++;
    const meta = event.resOutputsEvent?.metadata;
    if (meta && meta.type.startsWith('pulumi-nodejs:dynamic/zoneguard:') && meta.op !== 'same') ops++;
  };
  let error: string | undefined;
  const measured = await lib.measureRequests(emulator, async () => {
    try {
      await command(onEvent);
    } catch (caught) {
      error = (caught as Error).message.split('\n').find((line) => /error/i.test(line)) ?? (caught as Error).message.slice(0, 300);
    }
  });
  const arrivals = measured.requests.map((entry) => Date.parse(entry.at)).sort((a, b) => a - b);
  const succeeded = measured.requests.filter((entry) => entry.status >= 200 && entry.status < 300).length;
  const limited = measured.requests.filter((entry) => entry.status === 429).length;
  const run: Run = {
    scenario,
    step,
    ok: error === undefined,
    ...(error ? { error } : {}),
    failedOps,
    ops,
    ms: measured.ms,
    succeeded,
    limited,
    otherStatus: measured.requests.length - succeeded - limited,
    spanMs: arrivals.length > 1 ? arrivals.at(-1)! - arrivals[0]! : 0,
    floorMs: limitedRun ? floorMs(succeeded) : 0,
    maxInWindow: lib.mostInAnyWindow(arrivals, LIMIT.windowMs),
  };
  runs.push(run);
  console.log(
    `${scenario} / ${step}: ${run.ok ? 'ok' : `FAILED (${run.error})`}, ${ops} operations, ${failedOps} failed, ${succeeded} calls + ${limited} × 429 ` +
      `in ${fmt.ms(run.ms)} (requests over ${fmt.ms(run.spanMs)}, floor ${fmt.ms(run.floorMs)})`,
  );
}

try {
  const scenarios: Array<{ name: string; stack: string; limited: boolean; env: Record<string, string> }> = [
    { name: 'no limit (the engine alone)', stack: 'unlimited', limited: false, env: {} },
    { name: 'as shipped (budget 1200 per 300 s)', stack: 'shipped', limited: true, env: {} },
    {
      name: `budget = limit (${LIMIT.requests} per ${LIMIT.windowMs / 1000} s)`,
      stack: 'budget',
      limited: true,
      env: { ZONEGUARD_RATE_BUDGET: `${LIMIT.requests}/${LIMIT.windowMs}` },
    },
  ];
  for (const scenario of scenarios) {
    if (scenario.limited) await emulator.admin.setFaults({ rateLimit: LIMIT });
    else await emulator.admin.clearFaults();
    const zone = await emulator.admin.seedZone({
      name: `bench-250-${scenario.stack}.example`,
      plan: 'enterprise',
      ruleQuota: 1000,
      hosts: ['bench-250.example'],
    });
    const stack = await lib.engineStack(dir, { project: 'zoneguard-bench-250', stack: scenario.stack, program: programOn(zone), emulator, env: scenario.env });
    // Let the window the previous run used close, so each run starts on a fresh one.
    await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs));
    await measure(scenario.name, 'up (250 creates)', scenario.limited, (onEvent) => stack.up({ color: 'never', onEvent }));
    const inventory = await emulator.admin.inventory(zone.id);
    console.log(`  zone holds ${inventory.counts.cspPolicies} policies, ${inventory.counts.firewallRules} rules, ${inventory.counts.filters} filters`);
    await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs));
    await measure(scenario.name, 'destroy (250 deletes)', scenario.limited, (onEvent) => stack.destroy({ color: 'never', onEvent }));
    const after = await emulator.admin.inventory(zone.id);
    if (after.counts.cspPolicies + after.counts.firewallRules + after.counts.filters > 0) {
      console.log(`  left after destroy: ${JSON.stringify(after.counts)}`);
    }
  }

  const help = execFileSync('pulumi', ['up', '--help'], { encoding: 'utf8' });
  const parallel = `the CLI default (\`--parallel\` ${/--parallel int32\s.*\(default (\d+)\)/.exec(help)?.[1] ?? '?'}, as \`pulumi up --help\` shows on this machine)`;
  const unlimited = runs.filter((run) => run.scenario.startsWith('no limit'));
  const shipped = runs.filter((run) => run.scenario.startsWith('as shipped'));
  const budget = runs.filter((run) => run.scenario.startsWith('budget'));
  const describe = (list: Run[]) =>
    list
      .map((run) => {
        const engine = unlimited.find((base) => base.step === run.step);
        return (
          `${run.step.split(' ')[0]}: ${run.ok ? '' : 'FAILED, '}${run.failedOps} failed, ${fmt.ms(run.ms)} ` +
          `(floor ${fmt.ms(run.floorMs)}, engine alone ${engine ? fmt.ms(engine.ms) : '?'}), ${run.limited} × 429`
        );
      })
      .join('; ');
  const figures: Lib.Figure[] = [
    {
      what: `250 resources under the rate limit scaled to ${LIMIT.requests} per ${LIMIT.windowMs / 1000} s, providers as shipped`,
      value: describe(shipped),
      goal: '0 failed operations',
      met: shipped.every((run) => run.ok && run.failedOps === 0),
    },
    {
      what: `250 resources under the same limit, providers' budget set to it`,
      value: describe(budget),
      goal: '0 failed operations',
      met: budget.every((run) => run.ok && run.failedOps === 0),
    },
  ];
  const upCalls = budget.find((run) => run.step.startsWith('up'))?.succeeded ?? RESOURCES;
  const windows = Math.ceil(upCalls / LIMIT.requests);
  const section = [
    `An enterprise zone seeded empty for each scenario, a program declaring ${RESOURCES / 2} CspPolicy and ${RESOURCES / 2} FirewallRuleWithFilter, ` +
      `the real engine at ${parallel}. The emulator enforces \`rateLimit: { requests: ${LIMIT.requests}, windowMs: ${LIMIT.windowMs} }\` ` +
      `on every API request (over any window, as the service counts; a request over it gets 429 code 971 and blocks the caller for a window, ${LIMIT.windowMs} ms, as the service blocks one for its 5 minutes, every request until then refused with \`Retry-After\` to its end; refused requests are not counted). ` +
      `The service allows 1200 requests per 300 s; the scaled limit is ${LIMIT.requests / (LIMIT.windowMs / 1000)} requests/s. ` +
      `The up made ${upCalls} successful calls (the table counts each run's), which span ${windows} windows here, as ${fmt.int(windows * 1200)} calls would at the real limit; ` +
      'a block costs a window here, 5 minutes at the real limit.',
    '',
    `**Floor**: the least time the successful calls can take under a limit of ${LIMIT.requests} per ${LIMIT.windowMs} ms, (⌈calls / ${LIMIT.requests}⌉ − 1) × ${LIMIT.windowMs} ms. ` +
      '**Span**: first to last request arrival at the emulator. **Wall time**: the whole engine command (program, plan, provider start-up included). ' +
      '*No limit* is the same stack without any limit: the time the engine itself needs, below which no limit handling can go.',
    '',
    "- *As shipped*: the providers build their client with the default budget (1200 per 300 s), far above the scaled limit; the emulator's answers " +
      "say the limit (`Ratelimit-Policy`) and the client's budget follows it (docs/client.md#calibration), so the excess waits in the client instead of " +
      'meeting a 429 (the 429 column); a 429 that comes anyway is waited out (`Retry-After`, POSTs included: a 429 means nothing was created).',
    `- *Budget = limit*: the providers' budget set to ${LIMIT.requests} per ${LIMIT.windowMs} ms with \`ZONEGUARD_RATE_BUDGET=${LIMIT.requests}/${LIMIT.windowMs}\` ` +
      '(the stack config `zoneguard:rateBudget` does the same), the scaled image of the shipped setup against the real service, where the budget equals the limit.',
    '',
    table(
      [
        'providers',
        'step',
        'result',
        'resource operations',
        'failed',
        'wall time',
        'span of requests',
        'floor',
        'calls 2xx',
        '429 answers',
        'other',
        `most requests (any answer) in any ${LIMIT.windowMs / 1000} s`,
      ],
      runs.map((run) => [
        run.scenario,
        run.step,
        run.ok ? 'ok' : `failed: ${run.error}`,
        run.ops,
        run.failedOps,
        fmt.ms(run.ms),
        fmt.ms(run.spanMs),
        run.floorMs > 0 ? fmt.ms(run.floorMs) : '-',
        run.succeeded,
        run.limited,
        run.otherStatus,
        run.maxInWindow,
      ]),
    ),
  ].join('\n');
  lib.emitResult({ bench: '250 resources under the rate limit', command: COMMAND, figures, section });
} finally {
  await emulator.close();
}
