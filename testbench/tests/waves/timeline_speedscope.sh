#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The timeline opened in speedscope (npm) in headless Chromium, as docs/waves.md's picture shows it: the
# run's --trace file is loaded the way speedscope's own command line loads a file (a script calling
# speedscope.loadFileFromBase64, named in the page's #localProfilePath), the page must take the
# profile (its title becomes the file's name: an import error leaves it), and the screenshot is kept.
# Nothing is downloaded: without speedscope or Chromium the test skips (exit 77), saying why.
# Usage: timeline_speedscope.sh UARTVP OUT_DIR
set -euo pipefail
uartvp=$1
out=$2
mkdir -p "$out"
index=""
for d in "${SPEEDSCOPE_DIR:-}" "$(npm root -g 2>/dev/null || true)/speedscope" /usr/lib/node_modules/speedscope \
         /usr/local/lib/node_modules/speedscope; do
  if [ -n "$d" ] && [ -f "$d/dist/release/index.html" ]; then index="$d/dist/release/index.html"; break; fi
done
if [ -z "$index" ]; then
  echo "SKIP: speedscope is not installed (npm install -g speedscope; or SPEEDSCOPE_DIR=its folder)"
  exit 77
fi
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "SKIP: Chromium is not installed (apt-get install chromium)"
  exit 77
fi
"$uartvp" run earlycon-pl011 --variant console --payload-bytes 400 --trace "$out/earlycon-console.json" >/dev/null
printf 'speedscope.loadFileFromBase64("earlycon-console.json", "%s")' \
  "$(base64 -w0 "$out/earlycon-console.json")" >"$out/earlycon-console.js"
url="file://$index#localProfilePath=$out/earlycon-console.js"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000
       --user-data-dir="$out/chromium-profile")
title=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" 2>/dev/null | grep -o '<title>[^<]*</title>' || true)
if [ "$title" != "<title>earlycon-console.json - speedscope</title>" ]; then
  echo "speedscope did not take the timeline: page title '$title'"
  exit 1
fi
rm -f "$out/timeline-speedscope.png"
timeout 120 "$browser" "${flags[@]}" --window-size=1600,500 --screenshot="$out/timeline-speedscope.png" "$url" \
  >/dev/null 2>&1
size=$(stat -c %s "$out/timeline-speedscope.png" 2>/dev/null || echo 0)
if [ "$size" -lt 10000 ]; then
  echo "no screenshot, or a blank one ($size bytes)"
  exit 1
fi
echo "speedscope opened the timeline: $out/timeline-speedscope.png ($size bytes)"
