#!/usr/bin/env bash
# Installs node modules when they are missing or older than package-lock.json, so `npm start` and
# `npm test` work on a fresh clone. Only `npm ci`: the exact locked versions or a loud failure, never
# a silent, unpinned `npm install`. (If npm refuses the lock after a dependency change, regenerate it
# with `npm install` and then `npx tsx infra/lockfile/complete-platform-packages.ts`.)
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ] || [ ! -x node_modules/.bin/tsx ]; then
  echo "[strand] installing node modules (npm ci)…" >&2
  if ! npm ci --no-audit --no-fund >&2; then
    echo "[strand] npm ci failed: package-lock.json does not match package.json (or the registry is unreachable)." >&2
    echo "[strand] regenerate the lock: npm install && npx tsx infra/lockfile/complete-platform-packages.ts" >&2
    exit 1
  fi
fi
# The chat page's bundle (clients/web/build.ts → dist/web, served by the gateway at /): rebuilt only when its
# sources changed, so `npm start` and `npm test` always serve the page of this checkout.
node_modules/.bin/tsx clients/web/build.ts
# The services' bundles (infra/build/services-build.ts → dist/services), which `npm start` runs instead of
# compiling TypeScript at every service start: rebuilt only when an input's content changed.
node_modules/.bin/tsx infra/build/services-build.ts
