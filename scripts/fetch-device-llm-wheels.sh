#!/usr/bin/env bash
# Downloads the wheels that ExecuTorch's LLM exporter needs on the lent GPU machine (python 3.12,
# no registry there), the pins of python/requirements-device-llm.txt: executorch, torchao and
# ruamel.yaml into .whl (what scripts/device-export-full.sh installs too), the exporter's other
# imports into .whl/llm (both ignored), for scripts/device-llm-bench.sh. Prints each wheel's size
# and the total carried under .whl.
#   usage: scripts/fetch-device-llm-wheels.sh [PYTHON_VERSION]    (default 3.12)
#   env:   DEST (default .whl/llm), BASE (default .whl)
set -euo pipefail
cd "$(dirname "$0")/.."
pyver=${1:-3.12}
dest=${DEST:-.whl/llm}
base=${BASE:-.whl}
req=python/requirements-device-llm.txt

pin() { grep -iE "^$1==" "$req" || { echo "no pin for $1 in $req" >&2; exit 1; }; }

# Wheels for the other machine's interpreter and platform, none of their dependencies.
download() {
    local to=$1; shift
    python3 -m pip download -q --no-deps --only-binary=:all: --dest "$to" \
        --python-version "$pyver" --implementation cp --abi "cp${pyver/./}" --abi abi3 --abi none \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform any "$@"
}

rm -rf "$dest"
mkdir -p "$dest" "$base"
rm -f "$base"/*.whl
download "$base" "$(pin executorch)" "$(pin torchao)" "$(pin ruamel.yaml)"
download "$dest" "$(pin pytorch-tokenizers)" "$(pin omegaconf)"
# No wheel on the registry: build one from its source archive (pure Python, any interpreter).
python3 -m pip wheel -q --no-deps --wheel-dir "$dest" "$(pin antlr4-python3-runtime)"

for f in "$base"/*.whl "$dest"/*.whl; do printf '    %10d  %s\n' "$(stat -c %s "$f")" "$f"; done
echo "[llm-wheels] $dest: $(du -cb "$dest"/*.whl | tail -1 | cut -f1) bytes;" \
     ".whl in all: $(du -cb .whl/*.whl "$dest"/*.whl | tail -1 | cut -f1) bytes"
