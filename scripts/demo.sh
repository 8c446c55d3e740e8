#!/usr/bin/env bash
# `npm run demo`: builds the package, starts the emulator, runs the real `pulumi up` of the demo stack
# (Pulumi.yaml, program in examples/demo/), prints the outputs and the emulator's contents, then shows that a
# second `pulumi preview` has no changes.
set -euo pipefail
source "$(dirname "$0")/preflight.sh"
preflight demo
source "$(dirname "$0")/env.sh"
cd "$root"
tsc -p tsconfig.build.json
source "$root/scripts/engine.sh"
node scripts/demo.mts "$@"
