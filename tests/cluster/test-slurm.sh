#!/bin/bash
# docs/cluster.md's Slurm scripts (scripts/cluster/) under a fake sbatch (fake-sbatch): the array's
# tasks run here one after another with the variables Slurm sets, then the dependent merge. The
# merged sweep.db must hold every point of the sweep, each ok, each once; the shards must be
# disjoint and cover it.
#   test-slurm.sh TRAINVP SOURCE_DIR WORK_DIR
set -euo pipefail
trainvp=$(readlink -f "$1") src=$(readlink -f "$2") work=$3
rm -rf "$work" && mkdir -p "$work/bin" "$work/slurm"
ln -s "$trainvp" "$work/bin/trainvp"
ln -s "$src/tests/cluster/fake-sbatch" "$work/bin/sbatch"
export PATH="$work/bin:$PATH" FAKE_SLURM_DIR="$work/slurm" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$work"
"$src/scripts/cluster/sweep-slurm.sh" "$src/tests/cluster/tiny-sweep.json" out 3 --partition=test
cat slurm/log
fail() { echo "test-slurm: $*" >&2; exit 1; }
grep -q "array=1-3 dependency=none cpus=8 .*sweep-shard.sbatch" slurm/log || fail "the array was not submitted as 1-3"
grep -q "array=none dependency=afterany:1000 .*sweep-merge.sbatch out 3" slurm/log || fail "the merge does not depend on the array"
if grep -q ": exit" slurm/log; then fail "a job failed"; fi
total=$(trainvp sweep "$src/tests/cluster/tiny-sweep.json" --dry-run | grep -c "^[0-9]")
[ "$total" -eq 4 ] || fail "the tiny sweep lists $total points, expected 4 (2 x 2)"
sum=0
for i in 1 2 3; do
  n=$(trainvp sweep-export "out/shard-$i" | tail -n +2 | wc -l)
  sum=$((sum + n))
  grep -q "shard $i/3\|--shard $i/3" "out/logs/shard-$i.out" 2>/dev/null || true
done
[ "$sum" -eq 4 ] || fail "the shards hold $sum points, expected 4"
trainvp sweep-export out/all > merged.csv
rows=$(tail -n +2 merged.csv | wc -l)
[ "$rows" -eq 4 ] || fail "the merged sweep.db holds $rows points, expected 4"
ok=$(tail -n +2 merged.csv | grep -c ',ok,' || true)
[ "$ok" -eq 4 ] || { cat merged.csv; fail "$ok of 4 points are ok"; }
ids=$(tail -n +2 merged.csv | cut -d, -f1 | sort -u | wc -l)
[ "$ids" -eq 4 ] || fail "the merged points are not 4 distinct ids"
echo "test-slurm: ok (4 points in 3 shards, merged)"
