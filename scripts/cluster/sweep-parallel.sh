#!/bin/bash
# Runs a sweep's N shards with GNU parallel, over ssh hosts (docs/cluster.md), then merges them.
# Every host needs trainvp on its PATH and OUT on a shared file system; ":" is this machine.
#   sweep-parallel.sh SPEC OUT N HOST[,HOST...] [JOBS per shard]
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: sweep-parallel.sh SPEC OUT N HOST[,HOST...] [JOBS]" >&2
  exit 2
fi
spec=$1 out=$(readlink -f "$2") n=$3 hosts=$4 jobs=${5:-1}
if [ -e "$spec" ]; then spec=$(readlink -f "$spec"); fi  # else a name: the search path (trainvp --help)
mkdir -p "$out"
# One shard at a time per host (-j1 per sshlogin); each shard runs JOBS points at once. A shard
# whose points partly failed exits 1; the merge runs anyway and reports them.
parallel --sshlogin "$hosts" -j1 --workdir "$PWD" \
  trainvp sweep "$spec" -o "$out/shard-{}" -j "$jobs" --shard "{}/$n" --resume ::: $(seq 1 "$n") || true
shards=()
for ((i = 1; i <= n; i++)); do shards+=("$out/shard-$i"); done
rm -rf "$out/all"
trainvp merge "$out/all" "${shards[@]}"
