#!/usr/bin/env bash
# On the lent GPU machine (python 3.12, torch, numpy; no registry): the peers benchmark
# (python/peers.py) from carried wheels. A call carries at most 64 MiB with the source tree, so
# the wheel sets of scripts/fetch-peer-wheels.sh travel in separate calls while the machine stays
# warm; every call installs the sets it finds and runs the peers named, and the results add up
# in .cache/peers (the report in OUT_DIR lists every peer measured so far). For example:
#   call 1, carry .whl .device .gl:                scripts/device-export-full.sh 14   (vulkan.pte)
#   call 2, carry .cache/peer-wheels/export:       scripts/device-peers.sh $OUT wgx,torch_cpu,torch_cuda,torch_cuda_graph,xnnpack,ort_cpu,ort_webgpu
#            (the ORT peers only export model.onnx here: their runtimes are not carried yet)
#   call 3, carry .cache/peer-wheels/ort-cpu:      scripts/device-peers.sh $OUT ort_cpu
#   call 4, carry .cache/peer-wheels/ort-webgpu:   scripts/device-peers.sh $OUT ort_webgpu
#
#   usage: scripts/device-peers.sh OUT_DIR PEERS [MODEL...]
#   env:   ITERS (default 30), WARMUP (5), WGX (.device/wgx), COMMIT (recorded), PYTHON (python3),
#          WHEELS (.cache/peer-wheels), WORK (.cache/peers), ORT_CPU_SITE (.cache/peer-site/ort-cpu;
#          .cache/peer-site/ort-webgpu times the CPU provider of the WebGPU build, saving a call)
# Models default to the six anchors of issue 6; a missing .cache/models/<name>/vulkan.pte is
# exported first (needs the executorch wheel in .whl or already installed).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/device-peers.sh OUT_DIR PEERS [MODEL...]}
peers=${2:?usage: scripts/device-peers.sh OUT_DIR PEERS [MODEL...]}
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mobilenet_v2 mobilenet_v3_large resnet18 resnet50 efficientnet_b0
                                   deeplabv3_mobilenet_v3_large)
py=${PYTHON:-python3}
wheels=${WHEELS:-.cache/peer-wheels}
site=$PWD/.cache/peer-site
mkdir -p "$out" "$site"

# Installs a folder of wheels into its own target once (a stamp holds the wheel names).
install_set() {
    local wheels=$1 target=$2
    local want
    want=$(cd "$wheels" 2>/dev/null && ls -- *.whl 2>/dev/null | sort | tr '\n' ' ' || true)
    [ -n "$want" ] || return 0
    if [ "$(cat "$target/.wheels" 2>/dev/null)" != "$want" ]; then
        rm -rf "$target"
        "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$target" \
            "$wheels"/*.whl
        echo "$want" > "$target/.wheels"
    fi
    echo "[peers] $(basename "$target"): $want"
}

# ExecuTorch (XNNPACK peer, and vulkan.pte exports) unless this interpreter already has it.
export PYTHONPATH=/tmp/site
if ! "$py" -c 'import executorch' 2>/dev/null; then
    install_set .whl /tmp/site
fi
[ -x /tmp/site/executorch/data/bin/flatc ] && export FLATC_EXECUTABLE=/tmp/site/executorch/data/bin/flatc
for set in export ort-cpu ort-webgpu; do
    install_set "$wheels/$set" "$site/$set"
done
export PYTHONPATH=/tmp/site:$site/export

# The Vulkan loader and the packed libraries, as in scripts/pack-for-device.sh (wgx and the
# WebGPU provider's Dawn both load libvulkan).
if [ -d .gl ] && ! ldconfig -p | grep -q libvulkan.so.1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
[ -d .device/lib ] && export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$icd}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

missing=()
for m in "${models[@]}"; do
    [ -f ".cache/models/$m/vulkan.pte" ] || missing+=(--only "$m")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "[peers] exporting ${missing[*]}"
    "$py" python/export_models.py --full --no-et-check --out .cache/models "${missing[@]}" \
        > "$out/export.log" 2>&1 || echo "[peers] export failed for some models; see $out/export.log"
fi

only=()
for m in "${models[@]}"; do only+=(--only "$m"); done
"$py" python/peers.py "${only[@]}" --peers "$peers" --iters "${ITERS:-30}" --warmup "${WARMUP:-5}" \
    --wgx "${WGX:-.device/wgx}" --work "${WORK:-.cache/peers}" \
    --ort-cpu-python "$py" --ort-cpu-site "${ORT_CPU_SITE:-$site/ort-cpu}" \
    --ort-webgpu-python "$py" --ort-webgpu-site "$site/ort-webgpu" \
    ${COMMIT:+--commit "$COMMIT"} --json-out "$out/peers.json" --md-out "$out/peers.md" \
    2>&1 | tee "$out/peers-$(date +%H%M%S).log"
