#!/usr/bin/env bash
# Opens a plateau report.html in headless Chromium, prints how many images it has, how many
# failed to decode, the page height, how far down the first figure starts (px from the top
# at 1400 px wide) and any console message, then writes a full-page screenshot (1400 px
# wide) to look at.
#
#   tools/report-screenshot.sh REPORT_HTML OUT_PNG
#
# Needs `chromium` on PATH (Debian: apt-get install -y chromium). Exits 1 when an image is
# broken or the page logs a console message of its own.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 REPORT_HTML OUT_PNG" >&2
  exit 2
fi
page=$(realpath "$1")
out=$2
command -v chromium >/dev/null || { echo "chromium is not on PATH" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --enable-logging=stderr --v=0)

# The page as written: any console message is the page's own.
chromium "${flags[@]}" --user-data-dir="$work/a" --window-size=1400,1000 \
  --screenshot="$work/first.png" "file://$page" 2>"$work/plain.log" >/dev/null
own=$(grep -c ':CONSOLE' "$work/plain.log" || true)

# A copy with a probe: images, broken images, page height.
probe="<script>window.addEventListener('load', () => { const bad = [...document.images].filter(i => !i.complete || i.naturalWidth === 0); const fig = document.querySelector('figure'); const top = fig ? Math.round(fig.getBoundingClientRect().top + window.scrollY) : -1; console.log('plateau-probe images ' + document.images.length + ' broken ' + bad.length + ' height ' + document.documentElement.scrollHeight + ' figure ' + top); });</script>"
sed "s#</body>#${probe}</body>#" "$page" >"$work/probed.html"
chromium "${flags[@]}" --user-data-dir="$work/b" --window-size=1400,1000 \
  --screenshot="$work/probe.png" "file://$work/probed.html" 2>"$work/probe.log" >/dev/null
line=$(grep -o 'plateau-probe images [0-9]* broken [0-9]* height [0-9]* figure -\?[0-9]*' "$work/probe.log" | head -1)
if [[ -z $line ]]; then
  echo "the probe did not report; chromium log:" >&2
  cat "$work/probe.log" >&2
  exit 1
fi
read -r _ _ images _ broken _ height _ figure <<<"$line"
echo "images: $images, broken: $broken, page height: $height px, first figure at: $figure px, console messages: $own"
grep ':CONSOLE' "$work/plain.log" || true

chromium "${flags[@]}" --user-data-dir="$work/c" --window-size="1400,$height" \
  --screenshot="$(realpath -m "$out")" "file://$page" 2>/dev/null >/dev/null
echo "wrote $out (1400 x $height)"
[[ $broken -eq 0 && $own -eq 0 ]]
