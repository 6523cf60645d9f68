#!/usr/bin/env bash
# On the lent GPU machine, after scripts/device-export-full.sh: the engine's performance run, in
# phases (PHASES, default all, in this order):
#   models    every exported model: GPU-resident and end-to-end latency, per-dispatch profile
#   float16   every model again with --f16 (float16 storage)
#   ahead     every model with and without the next run encoded ahead (WGX_ENCODE_AHEAD=0),
#             back to back on the same machine
#   variants  the anchor models without fusion passes (--no-fuse), and the models with softmax
#             and norms with subgroup reductions off (WGX_SUBGROUPS=0)
#   tests     the unit tests, then the full-size models in float16 against PyTorch (accuracy)
#   micro     the micro-benchmarks (ceilings, dispatch cost, GEMM/convolution cases in f32 and
#             f16)
#   slow      the slow correctness set (full-size models, float32)
# Every phase appends to files in OUT as it goes, so a call that runs out of time still returns
# what was measured.
#   usage: [PHASES="models float16"] scripts/device-perf.sh OUT COMMIT [ITERS]
#   needs: .device (scripts/pack-for-device.sh), the loader packages unpacked, LD_LIBRARY_PATH
#          and VK_DRIVER_FILES set as in pack-for-device.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/device-perf.sh OUT COMMIT [ITERS]}
commit=${2:?usage: scripts/device-perf.sh OUT COMMIT [ITERS]}
iters=${3:-30}
phases=${PHASES:-models float16 variants tests micro slow}
mkdir -p "$out"
anchors="mobilenet_v2 mobilenet_v3_large resnet18 resnet50 efficientnet_b0 deeplabv3_mobilenet_v3_large"
with_norms="vit convnext_tiny"

# bench FILE MODEL [wgx bench flags...]: one JSON line per run, and its median on the log.
bench() {
    local file=$1 name=$2
    shift 2
    .device/wgx bench ".cache/models/$name/vulkan.pte" --iters "$iters" --json "$@" \
        >> "$out/$file" || { echo "[perf] FAILED $name $*"; return; }
    python3 -c "import json, sys; d = json.loads(open(sys.argv[1]).readlines()[-1]); \
print('[perf] $name $*', d['gpu_resident']['median_ms'], 'ms')" "$out/$file" || true
}

models() { for pte in .cache/models/*/vulkan.pte; do basename "$(dirname "$pte")"; done; }

for phase in $phases; do
    echo "[perf] phase $phase"
    case $phase in
    models)
        for name in $(models); do bench bench.jsonl "$name" --profile --profile-runs 5; done ;;
    float16)
        for name in $(models); do bench bench-f16.jsonl "$name" --f16; done ;;
    ahead)
        for name in $(models); do
            WGX_ENCODE_AHEAD=0 bench bench-no-ahead.jsonl "$name"
            bench bench-ahead.jsonl "$name"
        done ;;
    variants)
        for name in $anchors; do bench bench-nofuse.jsonl "$name" --no-fuse; done
        for name in $with_norms; do
            WGX_SUBGROUPS=0 bench bench-subgroups-off.jsonl "$name" --profile --profile-runs 5
            bench bench-subgroups-off.jsonl "$name" --profile --profile-runs 5
        done ;;
    tests)
        { timeout 240 .device/wgx_tests 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran"
          WGX_TESTS_DIR=$PWD/.cache timeout 200 .device/wgx_program_tests \
              --gtest_filter='All/Float16Fixtures.*/models_*' 2>&1 |
              grep -E "^\[fixture\]|^\[  (FAILED|PASSED) |tests ran"; } > "$out/tests.txt"
        tail -n 40 "$out/tests.txt" ;;
    micro)
        .device/wgx_microbench --dtype f32,f16 > "$out/microbench.txt" 2>&1 ||
            echo "[perf] micro-benchmarks FAILED" ;;
    slow)
        python3 scripts/run_slow_set.py --build .device --log "$out" --machine h200 \
            --commit "$commit" > "$out/slow-set.txt" 2>&1 ||
            echo "[perf] slow set FAILED (see slow-set.txt)"
        tail -n 5 "$out/slow-set.txt" ;;
    *) echo "[perf] unknown phase $phase" ;;
    esac
done
