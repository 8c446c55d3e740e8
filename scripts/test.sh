#!/usr/bin/env bash
# The test command of the README: lint, type-check, build, check the API reference builds, then every jest suite
# with the real Pulumi engine.
set -euo pipefail
source "$(dirname "$0")/preflight.sh"
preflight test
source "$(dirname "$0")/env.sh"
cd "$root"
eslint .
tsc -p tsconfig.json --noEmit
tsc -p tsconfig.build.json
typedoc --emit none # the API reference of `npm run docs` builds, warnings failing it (typedoc.json)
source "$root/scripts/engine.sh"
results="$root/.zoneguard/jest-results.json"
mkdir -p "$(dirname "$results")"
status=0
jest --ci --json --outputFile="$results" "$@" || status=$?
# One closing line in the plain form CI reads: "jest: N passed, N failed". No test is retried: a failure of an
# engine suite is a failure (test/e2e/failed-up.test.ts guards the overlap that once made them retry).
node -e '
  const r = require(process.argv[1]);
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed`);
' "$results" || true
exit "$status"
