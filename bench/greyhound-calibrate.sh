#!/usr/bin/env bash
# GREYHOUND's 256-GPU experiment as a calibrated prediction
# (docs/greyhound.md#a-calibrated-prediction): one severity scale s for the campaign's twelve
# events (bench/greyhound_scale.py: an event's slowdown 1/f becomes 1 + s (1/f - 1)) is fitted so
# that the run without mitigation gives TARGET (18.9, the paper's) iterations per minute, within
# TOL (0.3); then the ladder runs at that s with nothing else changed. METRIC picks the rate
# fitted: `overall` (default), over the whole campaign, or `during`, while some event is active
# (the union of the events' windows, 5 to 119 min). First the healthy run, whose iteration gives
# the whole-campaign floor: the rate if the job made no progress while any event is active, which
# no severity goes below. Then runs without mitigation at the scales in S (default "4 16"), then
# false position on log s between the nearest tries above TARGET and below (the rate taken as
# linear in log s between them), or x4 past the last try while every try is above it, until a
# try is within TOL or TRIES runs without mitigation are done (default 5). Each try is printed
# (s, both rates, wall, CPU); the final s is the try nearest TARGET. LADDER=0 skips the ladder.
# SET as in bench/greyhound-256gpu.sh, default the fast fast-forward settings (repeats 2, margin
# 1). OUT=DIR keeps every run's folder in DIR (DIR/healthy, DIR/s<s>/none, DIR/s<s>/ladder), and
# a run found there with its results is not run again. About 10 minutes of CPU a run without
# mitigation at s = 1, 27 for the ladder.
# usage: bench/greyhound-calibrate.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
target=${TARGET:-18.9}
tol=${TOL:-0.3}
tries=${TRIES:-5}
export SET=${SET:-/training/fast_forward/repeats=2 /training/fast_forward/margin=1}
work=${OUT:-$(mktemp -d)}
[ -n "${OUT:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
scenario=scenarios/greyhound/campaign-256gpu.json
metric=${METRIC:-overall}
# rate DIR: the fitted rate, then whole-campaign and while-active it/min, wall s, CPU s of one run
# (bench/greyhound_rates.py's figures)
rate() {
  python3 -c 'import sys; sys.path.insert(0, "bench"); import greyhound_rates as g
x = g.row("r", sys.argv[1])
print("%.2f %.2f %.2f %s %s" % (x[sys.argv[2]], x["overall"], x["during"], x["wall"], x["cpu"]))' "$1" "$metric"
}

# a run whose folder in OUT has its results already is not run again
[ -f "$work/healthy/healthy/results.json" ] || OUT=$work/healthy RUNS=healthy bench/greyhound-256gpu.sh "$build" >/dev/null
read -r _ healthy _ hw hc < <(METRIC=overall rate "$work/healthy/healthy")
read -r floor covered < <(python3 bench/greyhound_scale.py "$scenario" floor "$(python3 -c "print(60 / $healthy)")")
echo "healthy: $healthy it/min ($hw s wall, $hc s CPU); events cover $covered min; floor (no progress while any event is active): $floor it/min"
[ "$metric" != overall ] || awk -v t="$target" -v f="$floor" 'BEGIN { if (t < f) print "target " t " is below the floor: no severity reaches it; the search goes to the nearest" }'

echo "fitting the $metric rate to $target +- $tol"
echo "| s | it/min, whole campaign | it/min while an event is active | wall | CPU |"
echo "|---|---|---|---|---|"
read -r -a queue <<< "${S:-4 16}"
declare -A got
lo= hi= best= n=0
while [ "$n" -lt "$tries" ]; do
  if [ ${#queue[@]} -gt 0 ]; then
    s=${queue[0]}; queue=("${queue[@]:1}")
  elif [ -n "$hi" ] && [ -n "$lo" ]; then  # false position: the rate linear in log s between them
    s=$(python3 -c "from math import log, exp; a, b, ra, rb = $lo, $hi, ${got[$lo]}, ${got[$hi]}
print('%.3g' % exp(log(a) + (ra - $target) / (ra - rb) * (log(b) - log(a))))")
  elif [ -n "$lo" ]; then
    s=$(python3 -c "print('%.4g' % ($lo * 4))")
  else
    s=$(python3 -c "print('%.4g' % ($hi / 4))")
  fi
  [ -f "$work/s$s/none/results.json" ] || OUT=$work/s$s SCALE=$s RUNS=none bench/greyhound-256gpu.sh "$build" >/dev/null
  read -r r o d w c < <(rate "$work/s$s/none")
  got[$s]=$r
  n=$((n + 1))
  echo "| $s | $o | $d | $w s | $c s |"
  if awk -v r="$r" -v t="$target" 'BEGIN { exit !(r > t) }'; then
    { [ -z "$lo" ] || awk -v a="$s" -v b="$lo" 'BEGIN { exit !(a > b) }'; } && lo=$s
  else
    { [ -z "$hi" ] || awk -v a="$s" -v b="$hi" 'BEGIN { exit !(a < b) }'; } && hi=$s
  fi
  if [ -z "$best" ] || awk -v r="$r" -v b="${got[$best]}" -v t="$target" 'BEGIN { d = r - t; e = b - t; exit !(d * d < e * e) }'; then
    best=$s
  fi
  awk -v r="$r" -v t="$target" -v e="$tol" 'BEGIN { exit !((r - t) ^ 2 <= e ^ 2) }' && break
done
echo "s = $best: ${got[$best]} it/min ($metric) without mitigation (target $target +- $tol)"
[ "${LADDER:-1}" = 1 ] || exit 0
[ -f "$work/s$best/ladder/results.json" ] || OUT=$work/s$best SCALE=$best RUNS=ladder bench/greyhound-256gpu.sh "$build" >/dev/null
python3 bench/greyhound_rates.py "healthy=$work/healthy/healthy" "none=$work/s$best/none" "ladder=$work/s$best/ladder"
