#!/usr/bin/env bash
# How a CI job runs this stack. Needs the Pulumi CLI, `npm install` in this folder (`npm ci` once a lockfile of
# your own is committed; see docs/examples.md for installing pulumi-zoneguard before it is published), the stack's backend
# (PULUMI_ACCESS_TOKEN, or PULUMI_BACKEND_URL and PULUMI_CONFIG_PASSPHRASE) and its config, set once:
#   pulumi config set zoneId <zone id>
#   pulumi config set shopHost shop.example.com
#   pulumi config set --path 'blockedUserAgents[0]' sqlmap
#   pulumi config set --secret zoneguard:apiToken <token>
#
#   ci.sh pr      on a pull request: what merging would change, resource by resource, then the stack outputs the
#                 preview computed (the observed-scripts CSP and the WAF migration plan) for the reviewer. Fails only
#                 when the program or a check fails.
#   ci.sh drift   on the main branch, nightly and after each deploy: refreshes from the service and fails when the
#                 zone no longer matches the stack (a change made in the dashboard) or main holds an undeployed change.
#   ci.sh deploy  on the main branch after a merge: applies it.
set -euo pipefail
stack="${PULUMI_STACK:-ci}"
case "${1:-}" in
  pr)
    events="$(mktemp)"
    pulumi preview --stack "$stack" --diff --non-interactive --suppress-progress --event-log "$events"
    # The preview prints only the outputs that changed; the engine's events hold all of them (JSON, one a line).
    echo "Stack outputs of this preview:"
    node -e '
      const events = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const stack = events.filter((e) => e.resOutputsEvent?.metadata.type === "pulumi:pulumi:Stack").at(-1);
      // A value the preview cannot know yet comes as the engine placeholder: say so instead.
      const unknown = (key, value) => (value === "04da6b54-80e4-46f7-96ec-b56ff0331ba9" ? "(known after deploy)" : value);
      console.log(JSON.stringify(stack?.resOutputsEvent.metadata.new.outputs ?? {}, unknown, 2));
    ' "$events"
    ;;
  drift) pulumi preview --stack "$stack" --refresh --diff --expect-no-changes --non-interactive --suppress-progress ;;
  deploy) pulumi up --stack "$stack" --yes --non-interactive --suppress-progress ;;
  *)
    echo "usage: $0 pr|drift|deploy" >&2
    exit 2
    ;;
esac
