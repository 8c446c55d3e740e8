// One process of the calibration bench (bench/calibration.bench.mts): COUNT reads of the page security settings of
// ZONE, CONCURRENCY at a time, with the client as shipped (its retry policy included) and the budget and store of
// the environment, as the providers read them. Prints {"ok","failed","ms"} as JSON.
//   ZONEGUARD_BASE_URL=... ZONEGUARD_API_TOKEN=... ZONEGUARD_RATE_BUDGET=20/2000 [ZONEGUARD_RATE_BUDGET_STORE=redis://...] \
//     node bench/calibration-child.mts ZONE COUNT CONCURRENCY
import { ZoneGuardClient } from 'pulumi-zoneguard/client';

const [zoneId, count, concurrency] = process.argv.slice(2);
const env = process.env;
const [requests, windowMs] = (env.ZONEGUARD_RATE_BUDGET ?? '1200/300000').split('/').map(Number);
const client = new ZoneGuardClient({
  baseUrl: env.ZONEGUARD_BASE_URL!,
  credentials: { apiToken: env.ZONEGUARD_API_TOKEN! },
  rateBudget: { requests: requests!, windowMs: windowMs! },
  ...(env.ZONEGUARD_RATE_BUDGET_STORE ? { rateBudgetStore: env.ZONEGUARD_RATE_BUDGET_STORE } : {}),
});
const started = performance.now();
let next = 0;
let ok = 0;
const failed: string[] = [];
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next < Number(count)) {
      next += 1;
      try {
        await client.pageGuard.get({ zoneId: zoneId! });
        ok += 1;
      } catch (error) {
        failed.push(String(error));
      }
    }
  }),
);
console.log(JSON.stringify({ ok, failed, ms: performance.now() - started }));
