// Loaded with `node --require` into the dynamic provider process by bench/rate-limit.bench.mts: gives every client
// the providers build the rate budget named by ZONEGUARD_BENCH_RATE_BUDGET ("requests/windowMs") instead of the
// default 1200 per 300000 ms. It stands in for a configuration knob the providers do not have (their client is built
// in src/providers/kit/context.ts with the default budget), so the bench can measure a scaled-down limit with a
// budget scaled the same way. It patches the built module's export, which the client looks up at each construction.
// It prints nothing: the provider host's first stdout line must be its port.
const path = require('node:path');

const spec = process.env.ZONEGUARD_BENCH_RATE_BUDGET;
const match = spec && /^(\d+)\/(\d+)$/.exec(spec);
if (match) {
  const limits = { requests: Number(match[1]), windowMs: Number(match[2]) };
  const rateBudget = require(path.join(__dirname, '..', 'dist', 'client', 'rate-budget.js'));
  const original = rateBudget.sharedRateBudget;
  rateBudget.sharedRateBudget = (parts) => original({ ...parts, limits });
}
