#!/usr/bin/env bash
# What only the tests need from the system, installed by `npm test` (infra/run-tests.ts, bootstrap):
# Debian's Chromium, which the web page's tests drive (test/harness/browser.ts; no browser is
# downloaded by npm). Idempotent: nothing happens when /usr/bin/chromium (or STRAND_CHROMIUM) is
# there. CI runs as root; elsewhere it says what to install, and the browser tests fail saying so too.
set -euo pipefail
chromium="${STRAND_CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[strand] $chromium is missing: the web page's tests need Chromium (Debian: sudo apt-get install -y chromium)" >&2
  exit 1
fi
echo "[strand] installing Chromium for the web page's tests (apt-get install -y chromium)…" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine's package lists may be missing or stale: update them only when the install needs it.
if ! apt-get install -y --no-install-recommends chromium >&2; then
  apt-get update >&2
  apt-get install -y --no-install-recommends chromium >&2
fi
[ -x "$chromium" ] || { echo "[strand] apt-get installed chromium but $chromium is still missing" >&2; exit 1; }
