// What a provider operation costs beyond its HTTP call: the implementation's methods (as the dynamic provider host
// calls them, after configure) against the same API calls made with the client directly, interleaved in one run.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && node bench/provider-overhead.bench.mts
//
// Both sides use the same client options (the providers' default retry policy and rate budget) and the same
// emulator in this process, so the difference is the provider's own work: validation, payload building, the
// mapping of answers to outputs, and any call it makes beyond the operation's own (counted, and shown). The
// engine's gRPC and the host's closure loading are not in it.
import { ZoneGuardClient } from 'pulumi-zoneguard/client';
import { implementation } from 'pulumi-zoneguard/providers';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

const COMMAND = 'node bench/provider-overhead.bench.mts';
/** Iterations per operation and side: about 4 operations × 2 kinds × 2 sides × 50 = 800 calls, under the 1200 budget. */
const N = 50;

await lib.emulatorBench('provider-overhead', { seed: 'empty' }, async ({ emulator }) => {
  const zone = await emulator.admin.seedZone({ name: 'overhead.example', plan: 'enterprise', ruleQuota: 1000, hosts: ['overhead.example'] });
  const zoneId = zone.id;
  const config = new Map([
    ['zoneguard:baseUrl', emulator.baseUrl],
    ['zoneguard:apiToken', emulator.credentials.apiToken],
  ]);
  const client = new ZoneGuardClient({ baseUrl: emulator.baseUrl, credentials: { apiToken: emulator.credentials.apiToken } });
  const csp = implementation('CspPolicy');
  const rule = implementation('FirewallRuleWithFilter');
  await csp.configure({ config } as never);
  await rule.configure({ config } as never);

  type Op = 'check' | 'create' | 'read' | 'update' | 'delete';
  const samples = new Map<string, { provider: number[]; raw: number[]; paired: number[]; providerCalls: number; rawCalls: number }>();
  const record = (kind: string, op: Op, provider: [number, number], raw: [number, number]) => {
    const key = `${kind} ${op}`;
    const entry = samples.get(key) ?? { provider: [], raw: [], paired: [], providerCalls: 0, rawCalls: 0 };
    entry.provider.push(provider[0]);
    entry.raw.push(raw[0]);
    entry.paired.push(provider[0] - raw[0]);
    entry.providerCalls += provider[1];
    entry.rawCalls += raw[1];
    samples.set(key, entry);
  };
  const calls = async () => (await emulator.admin.counters()).total;
  /** The call's result, its time, and the API calls it made (counted outside the timing). */
  const time = async <T,>(call: () => Promise<T>): Promise<[T, number, number]> => {
    const before = await calls();
    const started = performance.now();
    const result = await call();
    const ms = performance.now() - started;
    return [result, ms, (await calls()) - before];
  };
  /** A provider's update as the engine makes it: its diff, then the update. */
  const diffThenUpdate = (impl: typeof csp, id: string, olds: Record<string, unknown>, news: Record<string, unknown>) => async () => {
    await impl.diff(id, olds, news);
    return impl.update(id, olds, news);
  };
  /** Runs the provider side and the raw side, in alternating order, and records both. */
  const pair = async <P, R>(i: number, kind: string, op: Op, provider: () => Promise<P>, raw: () => Promise<R>): Promise<[P, R]> => {
    let p: [P, number, number];
    let r: [R, number, number];
    if (i % 2 === 0) {
      p = await time(provider);
      r = await time(raw);
    } else {
      r = await time(raw);
      p = await time(provider);
    }
    record(kind, op, [p[1], p[2]], [r[1], r[2]]);
    return [p[0], r[0]];
  };

  await emulator.admin.clearRequests();
  for (let i = 0; i < N; i++) {
    // CspPolicy: check + create, read, update, delete against policies.create/get/update/delete.
    const news = {
      zoneId,
      action: 'log',
      description: `overhead ${i}`,
      expression: `http.host eq "p${i}.overhead.example"`,
      value: "script-src 'self' https://cdn.overhead.example",
    };
    const [checked, checkMs, checkCalls] = await time(() => csp.check({}, news));
    record('CspPolicy', 'check', [checkMs, checkCalls], [0, 0]);
    const inputs = checked.inputs as Record<string, unknown>;
    const [created, rawPolicy] = await pair(
      i,
      'CspPolicy',
      'create',
      () => csp.create(inputs),
      () =>
        client.cspPolicies.create({
          zoneId,
          action: 'log',
          description: news.description,
          expression: `${news.expression} or http.host eq "raw"`,
          value: news.value,
          enabled: true,
        }),
    );
    const outs = created.outs as Record<string, unknown>;
    await pair(i, 'CspPolicy', 'read', () => csp.read(created.id, outs), () => client.cspPolicies.get({ zoneId, policyId: rawPolicy.id }));
    const changed = { ...inputs, description: `overhead ${i} changed` };
    await pair(i, 'CspPolicy', 'update', diffThenUpdate(csp, created.id, outs, changed), () =>
      client.cspPolicies.update({ zoneId, policyId: rawPolicy.id, description: changed.description }),
    );
    await pair(
      i,
      'CspPolicy',
      'delete',
      () => csp.delete(created.id, { ...outs, ...changed }),
      () => client.cspPolicies.delete({ zoneId, policyId: rawPolicy.id }),
    );

    // FirewallRuleWithFilter: the same against firewallRules.create/get/update/delete.
    const ruleNews = { zoneId, action: 'block', description: `overhead ${i}`, expression: `http.request.uri.path eq "/overhead/${i}/p"` };
    const [ruleChecked, ruleCheckMs, ruleCheckCalls] = await time(() => rule.check({}, ruleNews));
    record('FirewallRuleWithFilter', 'check', [ruleCheckMs, ruleCheckCalls], [0, 0]);
    const ruleInputs = ruleChecked.inputs as Record<string, unknown>;
    const [ruleCreated, [rawRule]] = await pair(
      i,
      'FirewallRuleWithFilter',
      'create',
      () => rule.create(ruleInputs),
      () =>
        client.firewallRules.create({
          zoneId,
          rules: [
            {
              filter: { expression: `http.request.uri.path eq "/overhead/${i}/r"` },
              action: 'block',
              paused: false,
              priority: null,
              description: ruleNews.description,
              ref: '',
            },
          ],
        }),
    );
    const ruleOuts = ruleCreated.outs as Record<string, unknown>;
    await pair(i, 'FirewallRuleWithFilter', 'read', () => rule.read(ruleCreated.id, ruleOuts), () => client.firewallRules.get({ zoneId, ruleId: rawRule!.id }));
    const ruleChanged = { ...ruleInputs, description: `overhead ${i} changed` };
    await pair(i, 'FirewallRuleWithFilter', 'update', diffThenUpdate(rule, ruleCreated.id, ruleOuts, ruleChanged), () =>
      client.firewallRules.update({
        zoneId,
        ruleId: rawRule!.id,
        filter: { id: rawRule!.filter.id },
        action: 'block',
        paused: false,
        priority: null,
        description: ruleChanged.description,
        ref: '',
      }),
    );
    await pair(
      i,
      'FirewallRuleWithFilter',
      'delete',
      () => rule.delete(ruleCreated.id, { ...ruleOuts, ...ruleChanged }),
      () => client.firewallRules.delete({ zoneId, ruleId: rawRule!.id, deleteFilterIfUnused: true }),
    );
  }
  const counters = await emulator.admin.counters();
  const left = await emulator.admin.inventory(zoneId);
  if (left.counts.cspPolicies + left.counts.firewallRules + left.counts.filters > 0) throw new Error(`left behind: ${JSON.stringify(left.counts)}`);

  const rows = [...samples.entries()].map(([key, s]) => {
    const isCheck = key.endsWith(' check');
    return {
      key,
      provider: lib.median(s.provider),
      raw: isCheck ? undefined : lib.median(s.raw),
      overhead: isCheck ? lib.median(s.provider) : lib.median(s.paired),
      p90: isCheck ? lib.percentile(s.provider, 90) : lib.percentile(s.paired, 90),
      providerCalls: s.providerCalls / s.provider.length,
      rawCalls: s.rawCalls / s.raw.length,
    };
  });
  for (const row of rows) {
    console.log(`${row.key}: provider ${fmt.ms(row.provider)}, raw ${row.raw === undefined ? '-' : fmt.ms(row.raw)}, overhead ${fmt.ms(row.overhead)}`);
  }
  const operations = rows.filter((row) => row.raw !== undefined);
  const overall = lib.median(operations.map((row) => row.overhead));
  const worst = operations.reduce((a, b) => (b.overhead > a.overhead ? b : a));
  const checks = rows.filter((row) => row.raw === undefined);

  const extra = operations.filter((row) => row.providerCalls > row.rawCalls);
  const figures: Lib.Figure[] = [
    {
      what: 'Provider overhead per operation beyond its HTTP call (median of the per-operation medians)',
      value:
        `${fmt.ms(overall)} (largest: ${worst.key} ${fmt.ms(worst.overhead)}); check ${checks.map((row) => `${row.key.split(' ')[0]} ${fmt.ms(row.overhead)}`).join(', ')}` +
        (extra.length > 0
          ? `; extra API calls: ${extra.map((row) => `${row.key} ${row.providerCalls.toFixed(0)} calls where the operation needs ${row.rawCalls.toFixed(0)}`).join(', ')}`
          : ''),
    },
  ];
  const section = [
    `In one process: the emulator (empty seed plus one enterprise zone) and the providers' implementations loaded from \`pulumi-zoneguard/providers\` ` +
      `and configured as the dynamic provider host does. For each of ${N} iterations, each operation runs once through the provider method and once as ` +
      'the one client call the operation needs, alternating which goes first. The API calls each side made are counted ' +
      `from the emulator's counters outside the timing (${counters.total} calls in all). Overhead = median over the iterations of ` +
      '(provider time − raw call time): it includes any call the provider makes beyond the operation\'s own (a column shows them); ' +
      '`check` makes no call and is its whole time. An update is `diff` + `update`.',
    '',
    table(
      ['operation', 'API calls: provider / raw', 'provider (median)', 'raw client call (median)', 'overhead (median of pairs)', 'overhead p90'],
      rows.map((row) => [
        row.key,
        row.raw === undefined ? `${row.providerCalls.toFixed(0)} / -` : `${row.providerCalls.toFixed(2)} / ${row.rawCalls.toFixed(2)}`,
        fmt.ms(row.provider),
        row.raw === undefined ? '- (no call)' : fmt.ms(row.raw),
        fmt.ms(row.overhead),
        fmt.ms(row.p90),
      ]),
    ),
  ].join('\n');
  return { bench: 'Provider overhead per operation', command: COMMAND, figures, section };
});
