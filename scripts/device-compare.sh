#!/usr/bin/env bash
# On the lent GPU machine: two builds of the engine side by side on the full-size models, in one
# call. Exports the models (scripts/device-export-full.sh), times every model with both builds,
# interleaved (old, new, then new, old, ... so that drifting clocks hit both alike), prints each
# model's median per build and their ratio, then runs the slow set and the unit tests with both.
#   usage: scripts/device-compare.sh OUT OLD_COMMIT NEW_COMMIT [ITERS] [ROUNDS]
#   needs in carry: .device (the new build, scripts/pack-for-device.sh, with the shared libraries
#          both builds use), .device-old (the old build's wgx, wgx_tests and wgx_program_tests),
#          .gl (the loader packages) and .whl (the export wheels, scripts/device-export-full.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/device-compare.sh OUT OLD_COMMIT NEW_COMMIT [ITERS] [ROUNDS]}
old_commit=${2:?old commit}
new_commit=${3:?new commit}
iters=${4:-30}
rounds=${5:-3}
mkdir -p "$out"

for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.device/lib
.device/wgx info --device > "$out/device.txt" 2>&1 || { cat "$out/device.txt"; exit 1; }
head -3 "$out/device.txt"

start=$(date +%s)
bash scripts/device-export-full.sh 14 > "$out/export.txt" 2>&1
grep -c '\[export\] ok' "$out/export.txt" | sed 's/^/[compare] models exported: /'
grep '\[export\] FAILED' "$out/export.txt"
echo "[compare] export took $(( $(date +%s) - start )) s"

# Interleaved timing: each round runs every model with both builds, the order alternating.
models=$(for pte in .cache/models/*/vulkan.pte; do basename "$(dirname "$pte")"; done)
for round in $(seq 1 "$rounds"); do
    for name in $models; do
        order="old new"
        [ $((round % 2)) -eq 0 ] && order="new old"
        for side in $order; do
            dir=.device
            [ "$side" = old ] && dir=.device-old
            "$dir/wgx" bench ".cache/models/$name/vulkan.pte" \
                --iters "$iters" --json 2>/dev/null |
                python3 -c 'import json, sys; d = json.load(sys.stdin); print(json.dumps(
                    {"model": sys.argv[1], "side": sys.argv[2], "round": int(sys.argv[3]),
                     "gpu_resident_ms": d["gpu_resident"]["median_ms"],
                     "end_to_end_ms": d["end_to_end"]["median_ms"]}))' "$name" "$side" "$round" \
                >> "$out/bench.jsonl" || echo "[compare] FAILED bench $name ($side)"
        done
    done
    echo "[compare] round $round done at $(( $(date +%s) - start )) s"
done

python3 - "$out/bench.jsonl" "$old_commit" "$new_commit" <<'PY' | tee "$out/compare.md"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
old, new = sys.argv[2], sys.argv[3]
print(f"| model | {old} GPU-resident ms | {new} GPU-resident ms | new / old | {old} end-to-end ms | {new} end-to-end ms |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
worst = 0.0
for m in sorted({r["model"] for r in rows}):
    med = {}
    for side in ("old", "new"):
        for key in ("gpu_resident_ms", "end_to_end_ms"):
            v = [r[key] for r in rows if r["model"] == m and r["side"] == side]
            med[side, key] = statistics.median(v) if v else float("nan")
    ratio = med["new", "gpu_resident_ms"] / med["old", "gpu_resident_ms"]
    worst = max(worst, ratio)
    print(f"| {m} | {med['old', 'gpu_resident_ms']:.3f} | {med['new', 'gpu_resident_ms']:.3f} | "
          f"{ratio:.3f} | {med['old', 'end_to_end_ms']:.3f} | {med['new', 'end_to_end_ms']:.3f} |")
print(f"\nWorst new / old (GPU-resident): {worst:.3f}")
PY

# The slow set and the unit tests, with each build.
for side in old new; do
    dir=.device; commit=$new_commit
    [ "$side" = old ] && dir=.device-old && commit=$old_commit
    mkdir -p "$out/slow-$side"
    python3 scripts/run_slow_set.py --build "$dir" --log "$out/slow-$side" --machine h200 \
        --commit "$commit" > "$out/slow-$side.txt" 2>&1
    echo "[compare] slow set ($side): $(tail -n 1 "$out/slow-$side.txt")"
    timeout 150 "$dir/wgx_tests" 2>&1 | grep -E "^\[  (FAILED|PASSED) |tests ran" \
        > "$out/unit-$side.txt"
    echo "[compare] unit tests ($side): $(grep -E 'PASSED|FAILED' "$out/unit-$side.txt" | head -3 | tr '\n' ' ')"
done

