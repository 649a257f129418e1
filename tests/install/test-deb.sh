#!/bin/bash
# The Debian package of this build (cpack into a temporary directory): its name, its metadata and
# file list (dpkg-deb), Depends naming the package of every shared library the binary needs and
# gnuplot, and the packaged trainvp running the quickstart by name from its unpacked tree.
#   test-deb.sh BUILD_DIR VERSION WORK_DIR
set -euo pipefail
build=$(readlink -f "$1") version=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
work=$(readlink -f "$work")
fail() { echo "test-deb: $*" >&2; exit 1; }
# A command that fails under set -e would otherwise end the test with no message.
trap 'echo "test-deb: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
arch=$(dpkg --print-architecture)
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work" > cpack.log) || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$work/trainvp_${version}_${arch}.deb
[ -f "$deb" ] || fail "no $(basename "$deb"): $(ls "$work")"
[ "$(dpkg-deb -f "$deb" Package)" = trainvp ] || fail "Package is not trainvp"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version is not $version"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "Architecture is not $arch"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# Every NEEDED library of the binary comes from a package the .deb depends on.
for lib in $(readelf -d "$build/trainvp" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  # awk reads to the end (no exit): an early exit would SIGPIPE ldconfig and, under pipefail, fail
  # the assignment at random with no message (what install.deb did under -j2).
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|AArch64/ && !found {print $NF; found = 1}')
  [ -n "$path" ] || path=$(ldd "$build/trainvp" | awk -v l="$lib" '$1 == l {print $3}')
  # sed reads to the end: head or grep -q would close the pipe early, and under pipefail the writer's
  # SIGPIPE fails the test at random (it did once in CI, with no message).
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | sed -n '1s/:.*//p') || true
  [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p') || true
  [ -n "$pkg" ] || fail "no package owns $lib ($path)"
  tr ',|' '\n\n' <<< "$depends" | awk '{print $1}' | grep -xF "$pkg" >/dev/null || fail "$lib ($pkg) is not in Depends"
done
grep -F "gnuplot-nox | gnuplot" <<< "$depends" >/dev/null || fail "gnuplot is not in Depends"
cd "$work"
dpkg-deb -c "$deb" | awk '{print $NF}' > files.txt
for f in ./usr/bin/trainvp ./usr/share/trainvp/scenarios/quickstart.json ./usr/share/trainvp/scenarios/sweeps/base.json \
         ./usr/share/man/man1/trainvp-run.1 ./usr/share/bash-completion/completions/trainvp \
         ./usr/share/doc/trainvp/README.md ./usr/share/trainvp/cluster/sweep-slurm.sh ./usr/lib/trainvp/rtl/grad_reduce_l32.so; do
  grep -qx "$f" files.txt || fail "the package lacks $f"
done
if grep -q '^\./usr/local\|/build/' files.txt; then fail "the package holds build paths"; fi
dpkg-deb -x "$deb" root
mkdir elsewhere && cd elsewhere
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/root/usr/bin/trainvp" validate quickstart | grep '^ok: quickstart:' >/dev/null ||
  fail "the packaged trainvp does not find quickstart"
echo "test-deb: ok ($(basename "$deb"), $(wc -l < ../files.txt) entries)"
