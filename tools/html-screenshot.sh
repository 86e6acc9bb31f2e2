#!/bin/sh
# Renders the analyser's web page for the sample games (English, International, Turkish) in
# headless Chromium and writes a screenshot to look at.
#
#   tools/html-screenshot.sh [OUT_DIR]     (default: target/html-screenshot)
#
# Builds damka, builds the tables the sample needs into OUT_DIR/tables (English up to 4
# pieces, International and Turkish up to 3; a few seconds), runs
# `damka analyse data/games.pdn --html OUT_DIR/page.html`, then
# `chromium --headless --screenshot=OUT_DIR/page.png`. Needs chromium
# (Debian: apt-get install chromium).
set -eu
cd "$(dirname "$0")/.."
out=${1:-target/html-screenshot}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "chromium is not installed (Debian: apt-get install chromium)" >&2
    exit 2
fi
cargo build --release --quiet
damka=target/release/damka
mkdir -p "$out/tables"
for spec in english:4 international:3 turkish:3; do
    "$damka" generate --quiet --variant "${spec%%:*}" --pieces "${spec##*:}" --tables "$out/tables" >/dev/null
done
"$damka" analyse data/games.pdn --tables "$out/tables" \
    -o "$out/sample.pdn" --json "$out/sample.json" --html "$out/page.html"
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --screenshot="$out/page.png" --window-size=1200,2000 \
    "file://$(cd "$out" && pwd)/page.html" 2>/dev/null
echo "screenshot: $out/page.png"
