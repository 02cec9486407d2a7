#!/usr/bin/env bash
# The e2e tests drive Debian's Chromium, and the cross-engine journeys Debian's Firefox ESR and WebKitGTK (its WebDriver
# and MiniBrowser, on Xvfb); nothing downloads a browser of its own. Liberation Sans is the local font the brand font's
# fallback is scaled from on Linux (Arial elsewhere): the type journey measures the swap.
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$chromium_path" ] || missing+=(chromium)
[ -d /usr/share/fonts/truetype/liberation ] || missing+=(fonts-liberation)
[ -x "${FIREFOX_PATH:-/usr/bin/firefox-esr}" ] || missing+=(firefox-esr)
[ -x "${WEBKIT_DRIVER_PATH:-/usr/bin/WebKitWebDriver}" ] || missing+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || missing+=(xvfb)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Missing for the e2e tests: installing Debian's ${missing[*]}."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "The e2e tests need Debian's ${missing[*]}: run 'sudo apt-get install -y ${missing[*]}' (or set CHROMIUM_PATH)." >&2
exit 1
