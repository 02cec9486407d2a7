#!/usr/bin/env bash
# The e2e tests drive Debian's Chromium; Playwright never downloads a browser of its own.
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium_path" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Chromium is missing: installing Debian's chromium package."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The e2e tests need Chromium at $chromium_path: run 'sudo apt-get install -y chromium' (or set CHROMIUM_PATH)." >&2
exit 1
