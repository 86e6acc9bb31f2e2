#!/usr/bin/env bash
# Builds the same tables with two damka binaries, side by side, and compares them file by
# file: the build time of each (wall and CPU seconds, peak RSS) and whether every table file
# (win/draw/loss, distance, distance to conversion, rule results) is byte-identical; where
# some are not, whether they hold the same values (tools/compare-tables: the same decoded
# blocks, or the same rule results where one rules file derives them). Used to check a
# generator change against the generator before it.
#
#   tools/compare-generators.sh OLD_DAMKA NEW_DAMKA OUT_DIR THREADS VARIANT:PIECES...
#
# Example: tools/compare-generators.sh /tmp/old/damka target/release/damka /tmp/cmp 1 \
#              english:5 international:4
# Prints one line per build and a last line `identical N files`, or the files that differ
# in bytes and then `equal values in N files` or those whose values differ; exits 1 when
# values differ or a file is missing on one side.
set -euo pipefail
if [ $# -lt 5 ]; then
    sed -n 2,15p "$0" >&2
    exit 2
fi
old=$1 new=$2 out=$3 threads=$4
shift 4
mkdir -p "$out"
out=$(realpath "$out")
for spec in "$@"; do
    variant=${spec%%:*} pieces=${spec##*:}
    for side in old new; do
        bin=$old
        [ "$side" = new ] && bin=$new
        dir="$out/$side"
        log="$out/$side-$variant-$pieces.time"
        /usr/bin/time -f "%e %U %S %M" -o "$log" \
            "$bin" generate --variant "$variant" --pieces "$pieces" --tables "$dir" \
            --threads "$threads" --quiet > /dev/null
        read -r wall user sys rss < "$log"
        printf '%s %s %s: wall %s s, cpu %.2f s, peak RSS %d MB\n' "$side" "$variant" "$pieces" \
            "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
    done
done
status=0
count=0
while IFS= read -r file; do
    rel=${file#"$out/old/"}
    if ! cmp -s "$file" "$out/new/$rel"; then
        echo "differs: $rel"
        status=1
    fi
    count=$((count + 1))
done < <(find "$out/old" -type f \( -name '*.wdl' -o -name '*.dtw' -o -name '*.dtc' -o -name '*.rules' \) | sort)
extra=$(cd "$out/new" && find . -type f \( -name '*.wdl' -o -name '*.dtw' -o -name '*.dtc' -o -name '*.rules' \) | wc -l)
if [ "$extra" -ne "$count" ]; then
    echo "file counts differ: old $count, new $extra"
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "identical $count files"
    exit 0
fi
cd "$(dirname "$0")/.."
cargo run --quiet --release -p damka-compare-tables -- "$out/old" "$out/new"
