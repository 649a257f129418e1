# Sourced by the bench scripts: go to the repository root, build trainvp in BUILD_DIR (first
# argument, default build) if it is missing, a temporary output folder, and field().
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build}
[ -x "$build/trainvp" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j"$(nproc)" --target trainvp >/dev/null; }
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# field NAME FILE: the first numeric value of "NAME": in a results.json.
field() { grep -m1 "\"$1\":" "$2" | sed -E 's/.*: ([0-9.eE+-]+),?$/\1/'; }
