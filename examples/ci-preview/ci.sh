#!/usr/bin/env bash
# How a CI job runs this stack, from this folder (the one with Pulumi.yaml). Needs the Pulumi CLI, Node.js, `npm ci`
# in this folder (it installs pulumi-zoneguard and its `zoneguard` command; see docs/examples.md for installing it
# before it is published), the stack's backend (PULUMI_ACCESS_TOKEN, or PULUMI_BACKEND_URL and
# PULUMI_CONFIG_PASSPHRASE) and its config, set once:
#   pulumi config set zoneId <zone id>
#   pulumi config set shopHost shop.example.com
#   pulumi config set --path 'blockedUserAgents[0]' sqlmap
#   pulumi config set --secret zoneguard:apiToken <token>
# The stack is `ci`; set PULUMI_STACK to use another.
#
#   ci.sh pr      on a pull request: previews the change (refreshing from the service first) and prints a Markdown
#                 report for the reviewer (per zone what `pulumi up` would change, the CSP sources each policy gains or
#                 loses, the firewall and WAF rules added, changed or removed, the pending WAF migration plan, each
#                 failure in one line). Also appended to $GITHUB_STEP_SUMMARY when that is set; the preview's JSON is
#                 kept in $PREVIEW_JSON when that is set. Writes the preview's seal to $SEAL_FILE (default
#                 zoneguard-seal.json), for the deploy to keep (docs/sealed-previews.md). Fails when the preview fails.
#   ci.sh drift   on the main branch, nightly and after each deploy: refreshes from the service and fails when the
#                 zone no longer matches the stack (a change made in the dashboard) or main holds an undeployed change.
#   ci.sh deploy  on the main branch after a merge: applies it. With $SEAL_FILE naming the seal of the approved pull
#                 request's preview, every write is checked against it: a resource whose object moved since the
#                 preview fails, naming what changed (add --continue-on-error to apply every other change: without
#                 it the engine starts no step after the first failure).
# Words after the first go to the pulumi command (for example `ci.sh pr --target <urn>`).
set -euo pipefail
stack="${PULUMI_STACK:-ci}"
command="${1:-}"
shift || true
export PATH="$PWD/node_modules/.bin:$PATH" # the zoneguard command of the installed package
case "$command" in
  pr)
    seal="${SEAL_FILE:-zoneguard-seal.json}"
    landings="$(mktemp)" # where the preview's providers record where rules land, for the seal
    preview="${PREVIEW_JSON:-}" # where to keep what pulumi preview --json printed, for a later step; else a temp file
    if [ -z "$preview" ]; then
      preview="$(mktemp)"
      trap 'rm -f "$preview" "$landings"' EXIT
    else
      trap 'rm -f "$landings"' EXIT
    fi
    status=0
    # Streamed, the JSON carries the stack outputs too (the WAF migration plan); one engine event a line. --refresh:
    # the reads the seal is made of, and the live changes the report shows. No seal is kept by a preview.
    ZONEGUARD_SEAL= ZONEGUARD_SEAL_RECORD="$landings" PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true \
      pulumi preview --stack "$stack" --refresh --json --non-interactive "$@" > "$preview" || status=$?
    if [ ! -s "$preview" ]; then
      echo "ci.sh: pulumi preview stopped before it printed a preview (exit $status); its errors are above." >&2
      exit "$status"
    fi
    sealing=()
    if [ "$status" -eq 0 ]; then sealing=(--seal "$seal" --landings "$landings"); fi
    report="$(zoneguard preview-report --stack "$stack" "${sealing[@]}" "$preview")"
    printf '%s\n' "$report"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$report" >> "$GITHUB_STEP_SUMMARY"; fi
    exit "$status"
    ;;
  drift) pulumi preview --stack "$stack" --refresh --diff --expect-no-changes --non-interactive --suppress-progress "$@" ;;
  deploy)
    if [ -n "${SEAL_FILE:-}" ]; then
      # The providers read ZONEGUARD_SEAL (docs/sealed-previews.md); each refusal fails its resource only.
      ZONEGUARD_SEAL="$SEAL_FILE" pulumi up --stack "$stack" --yes --non-interactive --suppress-progress "$@"
    else
      pulumi up --stack "$stack" --yes --non-interactive --suppress-progress "$@"
    fi
    ;;
  *)
    echo "usage: $0 pr|drift|deploy [pulumi flags...]" >&2
    exit 2
    ;;
esac
