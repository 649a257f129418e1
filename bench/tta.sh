#!/usr/bin/env bash
# Runs scenarios/strategies/tta-*.json at 1, 5 and 10 Gbit/s and prints the time-to-accuracy table
# of docs/strategies.md#time-to-accuracy: GPT-2 small's timing on 32 GPUs, H = 5, with the real
# MLP trained on the synthetic mixture in the loop.
# usage: bench/tta.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"

strategies="ddp asc-wfbp localsgd plsgd dreamddp elastic"
for bw in 1 5 10; do
  for st in $strategies; do
    "$build/trainvp" run "scenarios/strategies/tta-$st.json" -q -o "$out/$st-$bw" \
      --set "/cluster/fabric/link_bw=${bw}Gbps" >/dev/null
  done
done

python3 - "$out" $strategies <<'PY'
import json, sys, os
out, names = sys.argv[1], sys.argv[2:]
def r(st, bw):
    return json.load(open(os.path.join(out, "%s-%d" % (st, bw), "results.json")))
first = r(names[0], 1)["train"]
print("target: test accuracy %.2f; MLP of %d parameters, %d ranks x batch %d" %
      (first["target_accuracy"], first["parameters"], first["ranks"], first["global_batch"] // first["ranks"]))
print()
print("| link | " + " | ".join(n.replace("-", "_") for n in names) + " | dreamddp vs best baseline |")
print("|---|" + "---|" * (len(names) + 1))
for bw in (1, 5, 10):
    cells, tta = [], {}
    for st in names:
        j = r(st, bw)
        t = j["train"]
        tta[st] = t["time_to_target_s"]
        if tta[st] is None:  # never reached: where it ended instead
            cells.append("not reached (%.3f after %d it., %.0f ms/it.)" %
                         (t["final_accuracy"], len(j["iterations"]), 1e3 * j["iteration_time_s"]))
        else:
            cells.append("%.1f s (%d it., %.0f ms/it.)" %
                         (tta[st], t["iterations_to_target"], 1e3 * tta[st] / t["iterations_to_target"]))
    base = [v for k, v in tta.items() if k != "dreamddp" and v is not None]
    gain = "%.2fx" % (min(base) / tta["dreamddp"]) if base and tta["dreamddp"] else "n/a"
    print("| %d Gbit/s | %s | %s |" % (bw, " | ".join(cells), gain))
print()
print("| strategy | final accuracy (1 Gbit/s) | iterations to target (1 / 5 / 10 Gbit/s) |")
print("|---|---|---|")
for st in names:
    t = [r(st, bw)["train"] for bw in (1, 5, 10)]
    print("| %s | %.4f | %s |" % (st.replace("-", "_"), t[0]["final_accuracy"],
          " / ".join(str(x["iterations_to_target"]) for x in t)))
PY
