#!/usr/bin/env bash
# GREYHOUND's S3 on a congested link (docs/greyhound.md#s3-on-a-congested-link):
# scenarios/greyhound/s3-congested-link-32gpu.json in both rank orders (tp-pp-dp: the data-parallel
# all-reduce crosses the spine; tp-dp-pp, S3's role swap: the pipeline crosses), each healthy and
# with leaf 0's uplinks at half bandwidth (FACTOR=0.25: a quarter). One table: iteration time,
# iterations per minute, bytes on spine links per iteration (a byte crossing counts on 2 links), and
# the swap's gain. About 3 s of CPU a run.
# usage: [FACTOR=0.5] bench/greyhound-s3-link.sh [BUILD_DIR]
source "$(dirname "$0")/common.sh"
echo "| rank order | crossing the spine | leaf 0 uplinks | iteration | it/min | spine bytes / iteration |"
echo "|---|---|---|---|---|---|"
for order in tp-pp-dp tp-dp-pp; do
  for links in healthy congested; do
    set=(--set "/training/parallel/order=\"$order\"")
    if [ "$links" = healthy ]; then set+=(--set '/faults=[]'); else set+=(--set "/faults/0/bandwidth_factor=${FACTOR:-0.5}"); fi
    run="$out/$order-$links"
    "$build/trainvp" run scenarios/greyhound/s3-congested-link-32gpu.json -q -o "$run" "${set[@]}" >/dev/null
    crossing=$([ "$order" = tp-pp-dp ] && echo "data parallel" || echo "pipeline")
    jq -r --arg o "$order" --arg c "$crossing" --arg l "$links" --arg f "${FACTOR:-0.5}" \
      '"| \($o) | \($c) | \(if $l == "healthy" then "400 Gbit/s" else "x \($f)" end) | \(.iteration_time_s * 1000 | round / 1000) s | \(60 / .iteration_time_s * 10 | round / 10) | \(.link_tiers.spine_bytes / (.iterations | length) / 1e9 | . * 10 | round / 10) GB |"' \
      "$run/results.json"
  done
done
a=$(jq .iteration_time_s "$out/tp-pp-dp-congested/results.json")
b=$(jq .iteration_time_s "$out/tp-dp-pp-congested/results.json")
python3 -c "print(f'S3 (tp-pp-dp -> tp-dp-pp) under the congestion: {$a / $b:.3f}x')"
