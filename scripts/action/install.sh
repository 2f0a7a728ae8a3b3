#!/usr/bin/env bash
# The action's install step: probe-lint from the action's own checkout, on the runner's Node.js.
# Nothing is downloaded but the npm dependencies of the checkout (no curl, wget or npx).
set -euo pipefail
cd "$GITHUB_ACTION_PATH"
if ! command -v node >/dev/null 2>&1; then
  echo "::error title=probe-lint::probe-lint needs Node.js 22 or later on the runner; none is on PATH (add actions/setup-node with node-version: 22 before this step)"
  exit 2
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 22 ]; then
  echo "::error title=probe-lint::probe-lint needs Node.js 22 or later; the runner's is $(node --version) (add actions/setup-node with node-version: 22 before this step)"
  exit 2
fi
# A shipped build (dist/ with its dependencies) is used as it is; a source checkout is built once.
if [ ! -f dist/src/cli/bin.js ]; then
  npm ci --no-audit --no-fund
  npm run build --silent
elif [ ! -d node_modules ]; then
  npm ci --omit=dev --no-audit --no-fund
fi
