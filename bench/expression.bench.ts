// Expressions checked per second over the documented corpus (test/expression/corpus/valid.json).
//
//   source scripts/env.sh && tsc -p tsconfig.build.json && node bench/expression.bench.ts
//
// Node runs this file directly (type stripping); it measures the compiled module in dist/, as a consumer of the
// package would run it. Written without import/export so Node loads it as CommonJS.
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: an import would make Node load it as ESM */

function runExpressionBench(): void {
  const path = require('node:path') as typeof import('node:path');
  const fs = require('node:fs') as typeof import('node:fs');
  const modulePath = path.join(__dirname, '..', 'dist', 'expression', 'index.js');
  if (!fs.existsSync(modulePath)) {
    console.error(`${modulePath} is missing: build first with "tsc -p tsconfig.build.json".`);
    process.exit(1);
  }
  const expression = require(modulePath) as typeof import('../src/expression');
  const corpus = (require('../test/expression/corpus/valid.json') as { groups: { expressions: string[] }[] }).groups.flatMap(
    (group) => group.expressions,
  );
  const invalid = corpus.filter((text) => !expression.checkExpression(text).ok);
  if (invalid.length > 0) throw new Error(`corpus expressions that do not check: ${invalid.join(' | ')}`);

  const measure = (label: string, run: (text: string) => unknown): void => {
    // Warm-up: let the JIT compile the parser and checker before timing.
    for (let i = 0; i < 20; i++) for (const text of corpus) run(text);
    const budgetNs = 2_000_000_000n;
    let count = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    while (elapsed < budgetNs) {
      for (const text of corpus) run(text);
      count += corpus.length;
      elapsed = process.hrtime.bigint() - start;
    }
    const seconds = Number(elapsed) / 1e9;
    const rate = Math.round(count / seconds);
    console.log(`${label}: ${rate.toLocaleString('en-US')} expressions/s (${count} in ${seconds.toFixed(2)} s, ${(1e6 / rate).toFixed(1)} µs each)`);
  };

  const chars = corpus.reduce((sum, text) => sum + text.length, 0);
  console.log(`node ${process.version} on ${process.platform}/${process.arch}`);
  console.log(`corpus: ${corpus.length} documented expressions, ${Math.round(chars / corpus.length)} characters on average`);
  measure('checkExpression (lex, parse, type-check)', (text) => expression.checkExpression(text));
  measure('parseExpression (lex, parse)', (text) => expression.parseExpression(text));
}

runExpressionBench();
