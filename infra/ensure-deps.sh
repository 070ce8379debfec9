#!/usr/bin/env bash
# Installs node modules when they are missing or older than package-lock.json, so `npm start` and
# `npm test` work on a fresh clone. npm itself comes with the machine; nothing else is assumed.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ] || [ ! -x node_modules/.bin/tsx ]; then
  echo "[strand] installing node modules (npm ci)…"
  npm ci --no-audit --no-fund
fi
