#!/usr/bin/env bash
# Installs node modules when they are missing or older than package-lock.json, so `npm start` and
# `npm test` work on a fresh clone. npm itself comes with the machine; nothing else is assumed.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ] || [ ! -x node_modules/.bin/tsx ]; then
  echo "[strand] installing node modules (npm ci)…"
  if ! npm ci --no-audit --no-fund; then
    # npm 11 may reject its own lock file when platform-specific optional packages of other platforms
    # are not listed in it. `npm install --no-save` installs the same locked versions and leaves
    # package.json and package-lock.json untouched.
    echo "[strand] npm ci refused the lock file; installing the locked versions with npm install --no-save"
    npm install --no-audit --no-fund --no-save
  fi
fi
