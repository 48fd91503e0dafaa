#!/usr/bin/env bash
# Renders a conformance HTML report to a PNG with headless Chromium, to look at the page without a
# browser (a developer tool, not part of CI). Installs the Debian package chromium when missing.
#
#   scripts/report-screenshot.sh REPORT.html [OUT.png] [WIDTH,HEIGHT]
#   scripts/report-screenshot.sh --sample [OUT.png] [WIDTH,HEIGHT]   # a made-up report, see below
#
# --sample builds tessera-report-sample and renders its report (written to a temporary folder).
# The defaults are OUT = REPORT with .png and a 1400,1000 window.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
  sed -n '4,6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 1 ] || usage
case "$1" in -h | --help) usage ;; esac

if [ "$1" = --sample ]; then
  cmake --build "$root/build" --target tessera-report-sample >/dev/null
  dir="$(mktemp -d "${TMPDIR:-/tmp}/tessera-report.XXXXXX")"
  "$root/build/bin/tessera-report-sample" "$dir" >/dev/null
  html="$dir/report.html"
else
  html="$(realpath "$1")"
  [ -f "$html" ] || { echo "report-screenshot: no such file: $1" >&2; exit 1; }
fi
png="${2:-${html%.html}.png}"
size="${3:-1400,1000}"

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null; then
    browser="$candidate"
    break
  fi
done
if [ -z "$browser" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "report-screenshot: installing chromium"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
  browser=chromium
fi

# --no-sandbox: Chromium refuses to run as root with its sandbox (containers, CI machines).
sandbox=()
[ "$(id -u)" -ne 0 ] || sandbox=(--no-sandbox)
"$browser" --headless "${sandbox[@]}" --disable-gpu --hide-scrollbars --no-first-run \
  --force-device-scale-factor=1 --window-size="$size" --screenshot="$(realpath -m "$png")" "file://$html" \
  2> >(grep -v -e 'dbus' -e 'Fontconfig' -e 'sandbox' >&2 || true)
echo "$png"
