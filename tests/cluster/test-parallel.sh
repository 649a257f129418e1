#!/bin/bash
# docs/cluster.md's GNU parallel script (scripts/cluster/sweep-parallel.sh) with ":" (this
# machine) as the one ssh host: 3 shards of the 4-point tiny sweep, merged; every point ok, once.
#   test-parallel.sh TRAINVP SOURCE_DIR WORK_DIR
set -euo pipefail
trainvp=$(readlink -f "$1") src=$(readlink -f "$2") work=$3
rm -rf "$work" && mkdir -p "$work/bin"
ln -s "$trainvp" "$work/bin/trainvp"
export PATH="$work/bin:$PATH" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$work"
fail() { echo "test-parallel: $*" >&2; exit 1; }
command -v parallel >/dev/null || fail "GNU parallel is missing (scripts/install-deps)"
"$src/scripts/cluster/sweep-parallel.sh" "$src/tests/cluster/tiny-sweep.json" out 3 : 1
for i in 1 2 3; do [ -f "out/shard-$i/sweep.db" ] || fail "shard $i did not run"; done
trainvp sweep-export out/all > merged.csv
[ "$(tail -n +2 merged.csv | grep -c ',ok,')" -eq 4 ] || { cat merged.csv; fail "not 4 points ok"; }
[ "$(tail -n +2 merged.csv | cut -d, -f1 | sort -u | wc -l)" -eq 4 ] || fail "not 4 distinct points"
echo "test-parallel: ok"
