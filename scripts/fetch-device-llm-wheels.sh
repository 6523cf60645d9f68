#!/usr/bin/env bash
# Downloads the wheels that ExecuTorch's LLM exporter needs on the lent GPU machine beyond its
# image and the executorch/torchao/ruamel.yaml wheels already in .whl (python 3.12, no registry
# there): the pins of python/requirements-device-llm.txt, into .whl/llm (ignored), for
# scripts/device-llm-bench.sh. Prints each wheel's size and the total carried under .whl.
#   usage: scripts/fetch-device-llm-wheels.sh [PYTHON_VERSION]    (default 3.12)
#   env:   DEST (default .whl/llm)
set -euo pipefail
cd "$(dirname "$0")/.."
pyver=${1:-3.12}
dest=${DEST:-.whl/llm}
req=python/requirements-device-llm.txt

pin() { grep -iE "^$1==" "$req" || { echo "no pin for $1 in $req" >&2; exit 1; }; }

rm -rf "$dest"
mkdir -p "$dest"
python3 -m pip download -q --no-deps --only-binary=:all: --dest "$dest" \
    --python-version "$pyver" --implementation cp --abi "cp${pyver/./}" --abi abi3 --abi none \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform any \
    "$(pin pytorch-tokenizers)" "$(pin omegaconf)"
# No wheel on the registry: build one from its source archive (pure Python, any interpreter).
python3 -m pip wheel -q --no-deps --wheel-dir "$dest" "$(pin antlr4-python3-runtime)"

for f in "$dest"/*.whl; do printf '    %10d  %s\n' "$(stat -c %s "$f")" "$f"; done
echo "[llm-wheels] $dest: $(du -cb "$dest"/*.whl | tail -1 | cut -f1) bytes;" \
     ".whl in all: $(du -cb .whl/*.whl "$dest"/*.whl | tail -1 | cut -f1) bytes"
