#!/usr/bin/env bash
# Downloads the wheels the peers benchmark (python/peers.py) needs on the lent GPU machine, which
# has python 3.12, torch and numpy but no registry. One folder per carry (a call carries at most
# 64 MiB with the source tree, so they travel in separate calls; see scripts/device-peers.sh):
#   .cache/peer-wheels/export      onnx + onnxscript + onnx-ir and what they import (ONNX export)
#   .cache/peer-wheels/ort-cpu     onnxruntime (CPU provider)
#   .cache/peer-wheels/ort-webgpu  onnxruntime-webgpu (WebGPU provider)
# The executorch wheel for the XNNPACK peer is the one already carried in .whl.
# Versions come from python/requirements-peers-*.txt. Only the packages themselves: the ORT
# wheels import nothing beyond numpy for an InferenceSession.
#   usage: scripts/fetch-peer-wheels.sh [PYTHON_VERSION]    (default 3.12; 3.11 for a local test)
#   env:   DEST (default .cache/peer-wheels)
set -euo pipefail
cd "$(dirname "$0")/.."
pyver=${1:-3.12}
abi=cp${pyver/./}
dest=${DEST:-.cache/peer-wheels}

# "name==version" lines of a requirements file, for the named packages only.
pins() {
    local file=$1; shift
    for name in "$@"; do
        grep -iE "^${name}==" "$file" || { echo "no pin for $name in $file" >&2; exit 1; }
    done
}

fetch() {
    local set=$1; shift
    rm -rf "$dest/$set"
    mkdir -p "$dest/$set"
    python3 -m pip download -q --no-deps --only-binary=:all: --dest "$dest/$set" \
        --python-version "$pyver" --implementation cp --abi "$abi" --abi abi3 --abi none \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any "$@"
}

fetch export $(pins python/requirements-peers-export.txt onnx onnxscript onnx-ir ml_dtypes protobuf packaging)
fetch ort-cpu $(pins python/requirements-peers-ort-cpu.txt onnxruntime)
fetch ort-webgpu $(pins python/requirements-peers-ort-webgpu.txt onnxruntime-webgpu)

for set in export ort-cpu ort-webgpu; do
    echo "[peer-wheels] $set: $(du -cb "$dest/$set"/*.whl | tail -1 | cut -f1) bytes"
    ls -l "$dest/$set" | tail -n +2 | awk '{printf "    %10d  %s\n", $5, $9}'
done
echo "[peer-wheels] total: $(du -cb "$dest"/*/*.whl | tail -1 | cut -f1) bytes (python $pyver)"
