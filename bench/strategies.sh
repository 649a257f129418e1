#!/usr/bin/env bash
# Runs scenarios/strategies/ and prints the two Markdown tables of docs/strategies.md:
# (a) GPT-2 small on 32 GPUs at 1, 5 and 10 Gbit/s, H = 5: ddp, asc_wfbp, localsgd, plsgd, dreamddp;
# (b) the seed article's testbed (8 x 8 A100, 200 Gbit/s): ddp, localsgd K = 4, layerwise, blockwise.
# usage: bench/strategies.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"

run() {  # directory name, scenario, extra trainvp arguments
  local name=$1 file=$2; shift 2
  "$build/trainvp" run "$file" -q -o "$out/$name" "$@" >/dev/null
}

for bw in 1 5 10; do
  for st in ddp asc-wfbp localsgd plsgd dreamddp; do
    run "a-$st-$bw" "scenarios/strategies/gpt2-32gpu-$st.json" --set "/cluster/fabric/link_bw=${bw}Gbps"
  done
done
for m in gpt2-xl resnet50 bert-base; do
  for st in ddp localsgd layerwise blockwise; do run "b-$m-$st" "scenarios/strategies/seed-$m-$st.json"; done
done

python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
def r(name):
    return json.load(open(os.path.join(out, name, "results.json")))
ms = lambda s: "%.1f" % (s * 1e3)
print("| link | ddp | asc_wfbp | localsgd (H=5) | plsgd (H=5) | dreamddp (H=5) | dreamddp predicted | dreamddp vs asc_wfbp | dreamddp vs localsgd | dreamddp vs ddp |")
print("|---|---|---|---|---|---|---|---|---|---|")
for bw in (1, 5, 10):
    t = {st: r("a-%s-%d" % (st, bw)) for st in ("ddp", "asc-wfbp", "localsgd", "plsgd", "dreamddp")}
    it = {k: v["iteration_time_s"] for k, v in t.items()}
    ex = {k: v["exposed_comm_s"] for k, v in t.items()}
    pred = t["dreamddp"]["sync"]["schedule"]["predicted_iteration_time_s"]
    cells = ["%s (%s)" % (ms(it[k]), ms(ex[k])) for k in ("ddp", "asc-wfbp", "localsgd", "plsgd", "dreamddp")]
    print("| %d Gbit/s | %s | %s | %.2fx | %.2fx | %.2fx |" % (bw, " | ".join(cells), ms(pred),
          it["asc-wfbp"] / it["dreamddp"], it["localsgd"] / it["dreamddp"], it["ddp"] / it["dreamddp"]))
print()
print("| model | strategy | iteration (ms) | exposed (ms) | exposed share | throughput | vs ddp |")
print("|---|---|---|---|---|---|---|")
for m in ("gpt2-xl", "resnet50", "bert-base"):
    base = r("b-%s-ddp" % m)["iteration_time_s"]
    for st in ("ddp", "localsgd", "layerwise", "blockwise"):
        j = r("b-%s-%s" % (m, st))
        tp = j["throughput"]
        unit = ("%.0f tokens/s" % tp["tokens_per_s"]) if "tokens_per_s" in tp else ("%.0f images/s" % tp["samples_per_s"])
        print("| %s | %s | %s | %s | %.1f%% | %s | %+.1f%% |" % (m, st, ms(j["iteration_time_s"]), ms(j["exposed_comm_s"]),
              100 * j["exposed_comm_s"] / j["iteration_time_s"], unit, 100 * (base / j["iteration_time_s"] - 1)))
PY
