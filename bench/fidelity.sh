#!/usr/bin/env bash
# Flow fidelity against packet fidelity on every shipped scenario both can run (all but the CXL
# ones, which need packet fidelity, and the sweep specs): the docs/fabric.md table "Flow against
# packet". Training scenarios compare the mean iteration time (iteration_time_s), collective
# benchmarks every size's time (the table gives the largest size and the worst size's error).
# Wall time is sim.wall_s of each run (elaboration excluded), on whatever machine runs it.
# usage: bench/fidelity.sh [BUILD_DIR]   SCENARIOS="quickstart.json ..." overrides the list.
source "$(dirname "$0")/common.sh"
list=${SCENARIOS:-$(cd scenarios && find . -name '*.json' ! -path './sweeps/*' ! -path './cxl/*' | sed 's|^\./||' | sort)}
for rel in $list; do
  for fid in packet flow; do
    /usr/bin/time -f "%e %M" -o "$out/$fid.time" "$build/trainvp" run "scenarios/$rel" -q -o "$out/${rel%.json}.$fid" \
      --set /cluster/fabric/fidelity="$fid" --set /output/trace=false >/dev/null
    mv "$out/$fid.time" "$out/${rel%.json}.$fid/time"
  done
done
python3 - "$out" $list <<'PY'
import json, sys
out, rels = sys.argv[1], sys.argv[2:]
print("| scenario | figure | packet | flow | error | packet wall | flow wall | flow RSS |")
print("|---|---|---|---|---|---|---|---|")
for rel in rels:
    base = f"{out}/{rel[:-5]}"
    p, f = (json.load(open(f"{base}.{x}/results.json")) for x in ("packet", "flow"))
    rss = int(open(f"{base}.flow/time").read().split()[1]) // 1024
    if "iteration_time_s" in p:
        fig, a, b = "iteration", p["iteration_time_s"], f["iteration_time_s"]
        err = (b - a) / a
        cells = f"{a * 1e3:.3f} ms | {b * 1e3:.3f} ms | {err * 100:+.2f}%"
    else:
        errs = [(y["time_s"] - x["time_s"]) / x["time_s"] for x, y in zip(p["collectives"], f["collectives"])]
        worst = max(errs, key=abs)
        big = p["collectives"][-1]
        fig = f"{big['bytes'] / 2**20:g} MiB (worst of {len(errs)} sizes)"
        a, b = big["time_s"], f["collectives"][-1]["time_s"]
        cells = f"{a * 1e3:.3f} ms | {b * 1e3:.3f} ms | {(b - a) / a * 100:+.2f}% ({worst * 100:+.2f}%)"
    print(f"| {rel} | {fig} | {cells} | {p['sim']['wall_s']:.2f} s | {f['sim']['wall_s']:.2f} s | {rss} MB |")
PY
