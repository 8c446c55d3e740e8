#!/usr/bin/env bash
# The test command of the README: lint, type-check, build, then every jest suite with the real Pulumi engine.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
eslint .
tsc -p tsconfig.json --noEmit
tsc -p tsconfig.build.json
source "$root/scripts/engine.sh"
results="$root/.zoneguard/jest-results.json"
mkdir -p "$(dirname "$results")"
status=0
jest --ci --json --outputFile="$results" "$@" || status=$?
# One closing line in the plain form CI reads: "jest: N passed, N failed, N retried". A retried test passed or failed
# on its second run; the engine suites retry once (test/engine-retry.ts), and each retry is named above the line, so
# a rising rate is seen.
node -e '
  const r = require(process.argv[1]);
  const retried = r.testResults.flatMap((file) => file.assertionResults.filter((t) => (t.invocations ?? 1) > 1).map((t) => `${require("path").relative(process.cwd(), file.name)}: ${t.fullName}`));
  for (const name of retried) console.log(`retried: ${name}`);
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed, ${retried.length} retried`);
' "$results" || true
exit "$status"
