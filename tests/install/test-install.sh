#!/bin/bash
# `cmake --install` of this build into a temporary prefix, then, from another working directory,
# the quickstart and a shipped sweep by name (the scenario search path: trainvp --help), the man
# pages and the completion; then the prefix moved elsewhere (found from /proc/self/exe), where a CXL
# scenario loads the Verilated engine from the prefix's lib/trainvp/rtl.
#   test-install.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$(readlink -f "$1") work=$2
rm -rf "$work" && mkdir -p "$work/elsewhere"
work=$(readlink -f "$work")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
unset TRAINVP_PATH
fail() { echo "test-install: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
p=$work/prefix
for f in bin/trainvp share/trainvp/scenarios/quickstart.json share/trainvp/scenarios/sweeps/batch-scaling.json \
         share/trainvp/cluster/sweep-slurm.sh share/doc/trainvp/README.md share/doc/trainvp/cluster.md \
         share/man/man1/trainvp.1 share/man/man1/trainvp-run.1 share/man/man1/trainvp-sweep.1 \
         share/bash-completion/completions/trainvp lib/trainvp/rtl/grad_reduce_l16.so lib/trainvp/rtl/grad_reduce_l8_fst.so; do
  [ -e "$p/$f" ] || fail "not installed: $f"
done
cd "$work/elsewhere"
"$p/bin/trainvp" run quickstart -q -o q --set /training/iterations=4 --set /output/trace=false
[ -s q/results.json ] || fail "trainvp run quickstart wrote no results.json"
# A shipped sweep by name: its base ("base.json") is found beside the installed spec.
"$p/bin/trainvp" sweep sweeps/batch-scaling -o sw -j 2 > sweep.log
[ "$("$p/bin/trainvp" sweep-export sw | tail -n +2 | grep -c ',ok,')" -eq 4 ] || fail "not every point of the sweep finished ok"
[ -s sw/plots/iteration-time.svg ] || fail "the sweep drew no plot"
# The prefix moved: the scenarios are found beside the binary, wherever it is.
mv "$p" "$work/moved"
"$work/moved/bin/trainvp" validate quickstart > validate.log || fail "a moved prefix does not find quickstart"
TRAINVP_RTL_DIR= "$work/moved/bin/trainvp" run cxl/pcie-node-ring-vs-cxl -q -o cxl --set /workload/max_bytes=1MiB ||
  fail "a moved prefix does not run the CXL device"
# TRAINVP_PATH is searched before the installed scenarios.
mkdir -p mine && sed 's/"name": "quickstart"/"name": "mine"/' "$work/moved/share/trainvp/scenarios/quickstart.json" > mine/quickstart.json
TRAINVP_PATH=$PWD/nowhere:$PWD/mine "$work/moved/bin/trainvp" validate quickstart | grep '^ok: mine:' >/dev/null ||
  fail "TRAINVP_PATH is not searched first"
# NAME.json in the current directory, for a NAME given without .json.
cp mine/quickstart.json here.json
"$work/moved/bin/trainvp" validate here | grep '^ok: mine:' >/dev/null || fail "NAME.json in the current directory is not found"
if "$work/moved/bin/trainvp" run no-such-scenario -q 2> err.log; then fail "an unknown name ran"; fi
grep -q 'no scenario "no-such-scenario"' err.log || fail "unclear error for an unknown name: $(cat err.log)"
echo "test-install: ok"
