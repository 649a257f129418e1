#!/usr/bin/env bash
# The validation suite (docs/validation.md): runs every scenario of scenarios/validation/ (one per
# published measurement; scripts/validation-scenarios writes them) and prints published | trainvp |
# error per row, with the mean and largest |error|, overall and per source.
# usage: bench/validation.sh [BUILD_DIR] [REGEX]   (REGEX picks scenarios by name; JOBS=N at once,
#        default nproc; OUT=DIR keeps the runs' results there; PLOT=FILE.svg draws trainvp against
#        published, log-log, a point per row, with gnuplot; REUSE=1 keeps the results already in OUT)
source "$(dirname "$0")/common.sh"
pattern=${2:-.}
jobs=${JOBS:-$(nproc)}
dir=${OUT:-$out}
mkdir -p "$dir"
list=$(ls scenarios/validation/*.json | grep -E "$pattern" || true)
[ -n "$list" ] || { echo "validation: no scenario matches $pattern" >&2; exit 2; }
start=$(date +%s)
echo "$list" | xargs -P "$jobs" -I{} sh -c \
  'n=$(basename {} .json); [ "${REUSE:-}" = 1 ] && [ -f "'"$dir"'/$n/results.json" ] && exit 0; /usr/bin/time -f "%e" -o "'"$dir"'/$n.wall" "'"$build"'/trainvp" run {} -q -o "'"$dir"'/$n" 2>"'"$dir"'/$n.err" || echo "validation: $n failed: $(tail -n 1 "'"$dir"'/$n.err")" >&2'
echo "validation: $(echo "$list" | wc -l) scenarios in $(($(date +%s) - start)) s of wall time ($jobs at once)"
python3 - "$dir" $list <<'PY'
import json, os, sys
d, files = sys.argv[1], sys.argv[2:]
rows = []
for f in files:
    n = os.path.basename(f)[:-5]
    p = os.path.join(d, n, "results.json")
    if not os.path.exists(p):
        rows.append((n, None, None, None, None, ""))
        continue
    v = json.load(open(p))["validation"]
    wall = open(os.path.join(d, n + ".wall")).read().split()[-1]
    rows.append((n, v["metric"], v["published"], v["trainvp"], v["error"], wall))
print()
print("| scenario | metric | published | trainvp | error | sim wall (s) |")
print("|---|---|---|---|---|---|")
for n, m, pub, tvp, err, wall in rows:
    if m is None:
        print("| %s | | | failed | | |" % n)
    else:
        print("| %s | %s | %.4g | %.4g | %+.1f%% | %s |" % (n, m, pub, tvp, 100 * err, wall))
print()
groups = {}
for n, m, pub, tvp, err, wall in rows:
    if err is not None:
        groups.setdefault(n.split("-")[0], []).append(abs(err))
        groups.setdefault("all", []).append(abs(err))
print("| rows | n | mean abs error | max abs error |")
print("|---|---|---|---|")
for g in sorted(groups, key=lambda g: (g == "all", g)):
    e = groups[g]
    print("| %s | %d | %.1f%% | %.1f%% |" % (g, len(e), 100 * sum(e) / len(e), 100 * max(e)))
with open(os.path.join(d, "validation.dat"), "w") as f:
    for n, m, pub, tvp, err, wall in rows:
        if err is not None:
            f.write("%s %s %.6g %.6g\n" % (n.split("-")[0], n, pub, tvp))
PY
if [ -n "${PLOT:-}" ]; then
  groups=$(cut -d' ' -f1 "$dir/validation.dat" | sort -u)
  plot="" i=0
  for g in $groups; do
    i=$((i + 1))
    plot+="'$dir/validation.dat' using (strcol(1) eq '$g' ? \$3 : 1/0):4 with points pt $((i + 4)) ps 1.2 title '$g', "
  done
  gnuplot <<GP
set terminal svg size 760,640 dynamic background rgb 'white' font 'sans,12'
set output '$PLOT'
set logscale xy
set xlabel 'published'
set ylabel 'trainvp'
set key top left
set grid
set title 'trainvp against published measurements (each in its own unit)'
plot ${plot} x with lines lc rgb 'black' title 'equal', 1.1*x with lines dt 2 lc rgb 'gray' title '+/- 10%', 0.9*x with lines dt 2 lc rgb 'gray' notitle
GP
  echo "validation: plot in $PLOT"
fi
