#!/usr/bin/env bash
# The test command of the README: lint, type-check, build, then every jest suite.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
eslint .
tsc -p tsconfig.json --noEmit
tsc -p tsconfig.build.json
jest --ci "$@"
