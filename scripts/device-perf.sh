#!/usr/bin/env bash
# On the lent GPU machine, after scripts/device-export-full.sh: the engine's performance run.
# Benchmarks every exported model (GPU-resident and end-to-end latency, per-dispatch profile),
# the anchor models again without fusion passes (--no-fuse) to measure them, the
# micro-benchmarks (ceilings, dispatch cost, GEMM/convolution cases, a split-K sweep on
# convolution-shaped GEMMs), then the slow correctness set. Every phase appends to files in
# OUT as it goes, so a call that runs out of time still returns what was measured.
#   usage: scripts/device-perf.sh OUT COMMIT [ITERS]   (SKIP_MICRO=1: models and slow set only)
#   needs: .device (scripts/pack-for-device.sh), the loader packages unpacked, LD_LIBRARY_PATH
#          and VK_DRIVER_FILES set as in pack-for-device.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/device-perf.sh OUT COMMIT [ITERS]}
commit=${2:?usage: scripts/device-perf.sh OUT COMMIT [ITERS]}
iters=${3:-30}
mkdir -p "$out"
anchors="mobilenet_v2 mobilenet_v3_large resnet18 resnet50 efficientnet_b0 deeplabv3_mobilenet_v3_large"

echo "[perf] models"
for pte in .cache/models/*/vulkan.pte; do
    name=$(basename "$(dirname "$pte")")
    .device/wgx bench "$pte" --iters "$iters" --json --profile --profile-runs 5 \
        >> "$out/bench.jsonl" || echo "[perf] FAILED $name"
    python3 -c "import json, sys; d = json.loads(open(sys.argv[1]).readlines()[-1]); \
print('[perf] $name', d['gpu_resident']['median_ms'], 'ms')" "$out/bench.jsonl" || true
done
for name in $anchors; do
    .device/wgx bench ".cache/models/$name/vulkan.pte" --iters "$iters" --json --no-fuse \
        >> "$out/bench-nofuse.jsonl" || echo "[perf] FAILED --no-fuse $name"
done

if [ -n "${SKIP_MICRO:-}" ]; then
    echo "[perf] micro-benchmarks skipped (SKIP_MICRO)"
else
echo "[perf] micro-benchmarks"
.device/wgx_microbench > "$out/microbench.txt" 2>&1 ||
    echo "[perf] micro-benchmarks FAILED"
# ResNet-18/50 convolutions as GEMMs (C_out x C_in*k*k x H*W): the split-K choice on each.
.device/wgx_microbench --sweep --min-time 0.05 \
    --sweep-shapes 64x576x3136,128x1152x784,256x2304x196,512x4608x49,2048x512x49,256x1024x196 \
    --sweep-splits 1,0,4,16 > "$out/sweep.txt" 2>&1 || echo "[perf] sweep FAILED"
tail -n 80 "$out/sweep.txt"
fi

echo "[perf] slow set"
python3 scripts/run_slow_set.py --build .device --log "$out" --machine h200 --commit "$commit" \
    > "$out/slow-set.txt" 2>&1 || echo "[perf] slow set FAILED (see slow-set.txt)"
tail -n 5 "$out/slow-set.txt"
