#!/usr/bin/env bash
# Per-event cost at scale: the 1 GiB ring all-reduce (one rank per node, one switch, 400 Gb/s,
# bench/ring-allreduce-1gib.json) at 64..1,024 ranks. Prints a markdown table: sim wall
# (sim.wall_s), model events, events per wall second, CPU time of the whole process (user + sys:
# steadier than wall time on a shared machine) and its peak RSS.
# usage: bench/scale.sh [BUILD_DIR]   RANKS="64 256" overrides the rank counts; REPEATS=3 keeps the
# best of 3 runs per row (default 1); PLOT=FILE.svg (a path from the repository root) also draws
# sim wall against ranks, log-log, beside p log p and p^2 (bench/scale_plot.py). FIDELITY=flow runs
# the ring in flow fidelity (the scenario pins packet: `auto` would pick flow above 512 ranks).
source "$(dirname "$0")/common.sh"
ranks=${RANKS:-64 128 256 512 1024}
{
echo "| ranks | sim wall | events | events/s | process CPU | peak RSS |"
echo "|---|---|---|---|---|---|"
for p in $ranks; do
  best=""
  for _ in $(seq "${REPEATS:-1}"); do  # the run with the least sim wall: the machine's load only adds
    /usr/bin/time -f "%U %S %M" -o "$out/rss" "$build/trainvp" run bench/ring-allreduce-1gib.json -q -o "$out/r$p" \
      --set /cluster/nodes="$p" --set /cluster/fabric/switch_ports="$p" \
      --set /cluster/fabric/fidelity="${FIDELITY:-packet}" >/dev/null
    w=$(field wall_s "$out/r$p/results.json"); e=$(field events "$out/r$p/results.json"); read -r u sy rss < <(tail -1 "$out/rss")
    row=$(awk -v p="$p" -v w="$w" -v e="$e" -v u="$u" -v s="$sy" -v r="$rss" \
      'BEGIN{printf "| %d | %.3f s | %d | %.2f M | %.2f s | %d MB |", p, w, e, e/w/1e6, u + s, r/1024}')
    if [ -z "$best" ] || awk -v a="$w" -v b="$best_w" 'BEGIN{exit !(a < b)}'; then best=$row; best_w=$w; fi
  done
  echo "$best"
done
} | tee "$out/table"
[ -z "${PLOT:-}" ] || python3 bench/scale_plot.py "$out/table" "$PLOT"
