import { phaseRule } from '../../src/providers/kit/phase-rule';
import { CUSTOM_PHASE, RATELIMIT_PHASE } from '../../src/schemas';
import { checkedBy, useProviderFixture } from './support';

// Two stacks' first up on a zone with no entry point, against the emulator over loopback with 100 ms of latency: two
// provider instances (each with its own view of the zone's entry points, as two provider processes have) create
// their rules at once. The first rule of a phase makes the entry point with the create-only write; the stack whose
// create is refused (the other made it first) adds its rule with the per-rule POST (docs/custom-rules.md#writes).

const fx = useProviderFixture();
jest.setTimeout(120_000);

const RUNS = 20;

const custom = (zoneId: string, ref: string) => ({ zoneId, action: 'block', expression: `(http.request.uri.path eq "/${ref}")`, ref });
const limit = (zoneId: string, ref: string) => ({
  ...custom(zoneId, ref),
  ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600 },
});

/** One stack: its two providers (as the engine loads them) and its rules, created side by side as the engine does. */
function stack(name: string) {
  const providers = { CustomRule: phaseRule({ kind: 'CustomRule' }), RateLimitRule: phaseRule({ kind: 'RateLimitRule' }) };
  const declared = (zoneId: string) =>
    [
      { kind: 'CustomRule', news: custom(zoneId, `${name}-admin`) },
      { kind: 'CustomRule', news: custom(zoneId, `${name}-api`) },
      { kind: 'RateLimitRule', news: limit(zoneId, `${name}-login`) },
    ] as const;
  return {
    async up(zoneId: string) {
      return Promise.all(
        declared(zoneId).map(async ({ kind, news }) => {
          const inputs = await checkedBy(providers[kind], news);
          return { kind, inputs, made: await providers[kind].create(inputs) };
        }),
      );
    },
  };
}

/** The refs of the zone's rules of `phase`, sorted (none while it has no entry point). */
async function refs(zoneId: string, phase: typeof CUSTOM_PHASE | typeof RATELIMIT_PHASE): Promise<string[]> {
  const ruleset = await fx.client.rulesets.getEntrypoint({ zoneId, phase }).catch(() => undefined);
  return (ruleset?.rules ?? []).map((rule) => rule.ref ?? '').sort();
}

test(`two stacks' first up on a zone with no entry point, together ${RUNS} times with 100 ms of latency: every rule of both is on the service, and a next run of either is clean`, async () => {
  await fx.emulator.admin.setFaults({ latencyMs: 100 });
  const lost: string[][] = [];
  const drift: string[][] = [];
  const creates: number[] = [];
  try {
    for (let run = 0; run < RUNS; run += 1) {
      const zoneId = await fx.freshZone();
      await fx.newRun();
      const [alpha, beta] = [stack('alpha'), stack('beta')];
      await fx.requestsSince();
      const ups = await Promise.all([alpha.up(zoneId), beta.up(zoneId)]);
      // Each stack found no entry point of either phase and sent the create-only write: the race was run.
      creates.push((await fx.apiCalls()).filter((call) => call === 'POST /rulesets').length);
      const live = [...(await refs(zoneId, CUSTOM_PHASE)), ...(await refs(zoneId, RATELIMIT_PHASE))];
      const wanted = ['alpha-admin', 'alpha-api', 'beta-admin', 'beta-api', 'alpha-login', 'beta-login'];
      lost.push(wanted.filter((ref) => !live.includes(ref)));
      // The next run of each stack (a provider process of its own): a refresh reads each rule, and its diff is clean.
      await fx.newRun();
      const next = { CustomRule: phaseRule({ kind: 'CustomRule' }), RateLimitRule: phaseRule({ kind: 'RateLimitRule' }) };
      const changed = await Promise.all(
        ups.flat().map(async ({ kind, inputs, made }) => {
          const read = await next[kind].read(made.id, made.outs!);
          if (read.id !== made.id) return [`${String(inputs.ref)}: gone`];
          return (await next[kind].diff(made.id, read.props!, inputs)).changes ? [`${String(inputs.ref)}: changed`] : [];
        }),
      );
      drift.push(changed.flat());
    }
  } finally {
    await fx.emulator.admin.clearFaults();
  }
  expect(creates).toEqual(Array(RUNS).fill(4));
  expect(lost).toEqual(Array(RUNS).fill([]));
  expect(drift).toEqual(Array(RUNS).fill([]));
});
