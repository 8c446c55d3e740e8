# Sourced by test.sh and demo.sh after env.sh: puts the Pulumi CLI (pinned in tools/pulumi-cli/go.mod) and our
# dynamic provider host on PATH, and makes every engine run hermetic.
#
# A `pulumi` already on PATH is used when it is at least the pinned version; otherwise the pinned CLI is built
# from Go modules into a cache outside the repo, once (about 6 minutes cold on two cores: 1.5 to download the modules, 5 to compile).
# The Node.js language host is not buildable here (its module is not served), so programs run inline through the
# Automation API, which serves the program itself: the CLI, the engine and the providers are the real ones.
pulumi_version="$(sed -n 's#^\s*github.com/pulumi/pulumi/pkg/v3 \(v[0-9.]*\).*#\1#p' "$root/tools/pulumi-cli/go.mod")"
cache="${ZONEGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zoneguard}/pulumi-$pulumi_version"

version_at_least() { # $1 >= $2, both vX.Y.Z
  [ "$(printf '%s\n%s\n' "${1#v}" "${2#v}" | sort -V | head -n1)" = "${2#v}" ]
}

pulumi_bin=""
if command -v pulumi >/dev/null 2>&1; then
  found="$(pulumi version 2>/dev/null || true)"
  if [ -n "$found" ] && version_at_least "$found" "$pulumi_version"; then pulumi_bin="$(dirname "$(command -v pulumi)")"; fi
fi
if [ -z "$pulumi_bin" ]; then
  if [ ! -x "$cache/bin/pulumi" ]; then
    if ! command -v go >/dev/null 2>&1; then
      echo "The Pulumi CLI $pulumi_version is not on PATH and Go is missing to build it." >&2
      exit 1
    fi
    echo "Building the Pulumi CLI $pulumi_version into $cache (once; about 6 minutes cold on two cores)..." >&2
    mkdir -p "$cache/bin"
    (cd "$root/tools/pulumi-cli" && GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath \
      -tags osusergo,grpcnotrace \
      -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$pulumi_version" \
      -o "$cache/bin/pulumi.partial" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi) >&2
    mv "$cache/bin/pulumi.partial" "$cache/bin/pulumi"
  fi
  pulumi_bin="$cache/bin"
  # Beside the CLI, the engine takes our provider host as its bundled one (found elsewhere on PATH, it warns on
  # every run). A copy, not a link: the cache outlives this clone.
  cp -f "$root/tools/bin/pulumi-resource-pulumi-nodejs" "$pulumi_bin/"
fi
export PATH="$pulumi_bin:$root/tools/bin:$PATH"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-}"

# A program's stored closures require 'pulumi-zoneguard' from the program's node_modules; inside this repo that
# is the repo itself (what `npm link` would do).
[ -e "$root/node_modules/pulumi-zoneguard" ] || ln -s .. "$root/node_modules/pulumi-zoneguard"
