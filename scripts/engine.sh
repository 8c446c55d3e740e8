# Sourced by test.sh and demo.sh after env.sh: puts the Pulumi CLI (pinned in tools/pulumi-cli/go.mod) and our
# dynamic provider host on PATH, and makes every engine run hermetic.
#
# A `pulumi` already on PATH is used when it is at least the pinned version; otherwise the pinned CLI is built
# from Go modules into a cache outside the repo, once (about 6 minutes cold on two cores: 1.5 to download the modules, 5 to compile).
# The Node.js language host is not buildable here (its module is not served), so programs run inline through the
# Automation API, which serves the program itself: the CLI, the engine and the providers are the real ones.
source "$root/scripts/preflight.sh" # pulumi_version, cache, pulumi_on_path, go_problem

pulumi_bin="$(pulumi_on_path || true)"
if [ -z "$pulumi_bin" ]; then
  if [ ! -x "$cache/bin/pulumi" ]; then
    go_says="$(go_problem)"
    if [ -n "$go_says" ]; then
      echo "$go_says" >&2
      exit 1
    fi
    mkdir -p "$cache/bin"
    # Clones on one machine that start at once share the cache: one builds, the others wait for it and use its CLI.
    exec {build_lock}>"$cache/build.lock"
    flock "$build_lock"
    if [ ! -x "$cache/bin/pulumi" ]; then
      echo "Building the Pulumi CLI $pulumi_version into $cache (once; about 6 minutes cold on two cores)..." >&2
      (cd "$root/tools/pulumi-cli" && GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath \
        -tags osusergo,grpcnotrace \
        -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$pulumi_version" \
        -o "$cache/bin/pulumi.partial.$$" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi) >&2
      mv "$cache/bin/pulumi.partial.$$" "$cache/bin/pulumi"
    fi
    exec {build_lock}>&-
  fi
  pulumi_bin="$cache/bin"
  # Beside the CLI, the engine takes our provider host as its bundled one (found elsewhere on PATH, it warns on
  # every run). A copy, not a link: the cache outlives this clone.
  # Copied then renamed, so that an engine of another clone running it never reads a half-written file.
  cp "$root/tools/bin/pulumi-resource-pulumi-nodejs" "$pulumi_bin/.pulumi-resource-pulumi-nodejs.$$"
  mv -f "$pulumi_bin/.pulumi-resource-pulumi-nodejs.$$" "$pulumi_bin/pulumi-resource-pulumi-nodejs"
fi
export PATH="$pulumi_bin:$root/tools/bin:$PATH"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-}"

# A program's stored closures require 'pulumi-zoneguard' from the program's node_modules; inside this repo that
# is the repo itself (what `npm link` would do).
[ -e "$root/node_modules/pulumi-zoneguard" ] || ln -s .. "$root/node_modules/pulumi-zoneguard"
