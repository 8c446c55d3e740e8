#!/usr/bin/env bash
# `npm run bench`: builds the package, puts the Pulumi CLI and our provider host on PATH, then runs every benchmark
# of bench/ (bench/report.mts) and writes BENCHMARKS.md with each figure and the command that measured it.
# `npm run bench -- lifecycle rate-limit` runs only the named benches and prints their figures.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
tsc -p tsconfig.build.json
source "$root/scripts/engine.sh"
node bench/report.mts "$@"
