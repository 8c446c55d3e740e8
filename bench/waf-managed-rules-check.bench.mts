// Time of WafManagedRules' check on many rules, engine-free: the schema (zod, each expression checked) and the order
// checks (refs, places, skips), half skip rules placed before as many execute rules. Past 1000 rules the schema
// refuses the list (MANAGED_RULE_LIMITS.rulesMax), and the time is that of the refusal.
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && node bench/waf-managed-rules-check.bench.mts
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { checkWithSchema } = require('../dist/providers/kit/check.js');
const { WafManagedRulesArgsSchema, orderFailures } = require('../dist/providers/waf-managed-rules.js');
const { MANAGED_RULESET_ID } = require('../dist/schemas/service.js');

for (const count of [1000, 2000, 5000, 20000]) {
  const order: string[] = [];
  const rules: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) {
    order.push(`r${index}`);
    rules[`r${index}`] =
      index < count / 2
        ? { expression: `ip.src eq 192.0.2.${index % 250}`, skip: { rulesets: [MANAGED_RULESET_ID] } }
        : { expression: 'true', execute: { rulesetId: MANAGED_RULESET_ID } };
  }
  const news = { zoneId: 'a'.repeat(32), order, rules };
  const start = performance.now();
  const result = checkWithSchema(WafManagedRulesArgsSchema, news, 'WafManagedRules');
  const parsed = performance.now();
  const failures = orderFailures(result.failures.length > 0 ? news : result.inputs);
  const done = performance.now();
  console.log(
    `${count} rules: schema ${(parsed - start).toFixed(0)} ms (${result.failures.length} failures), order ${(done - parsed).toFixed(0)} ms (${failures.length} failures)`,
  );
}
