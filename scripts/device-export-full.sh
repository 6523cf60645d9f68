#!/usr/bin/env bash
# On the lent GPU machine (no registry there): export the full-size model set in parallel with
# the carried ExecuTorch wheel that matches the machine's own torch (executorch 1.2.0 for torch
# 2.11; see docs/PLATFORMS.md). Needs `.whl` in carry, holding executorch-1.2.0 (cp312),
# torchao 0.18.0 and ruamel.yaml. Writes .cache/models (ignored; kept while the machine stays).
#   usage: scripts/device-export-full.sh [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-12}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site
# ExecuTorch serializes VkGraph through flatc; the wheel carries one (no flatc on that machine).
export FLATC_EXECUTABLE=/tmp/site/executorch/data/bin/flatc
chmod +x "$FLATC_EXECUTABLE"
python3 -c 'import torch, executorch.version as v; print("torch", torch.__version__, "executorch", v.__version__)'
names=$(python3 python/export_models.py --list | awk '{print $1}')
mkdir -p .cache/models .cache/export-logs
# One process per model (each single-threaded, as the exporter sets); the index is rewritten
# once at the end so parallel writers cannot leave it partial.
printf '%s\n' $names | xargs -P "$jobs" -I{} sh -c \
    'python3 python/export_models.py --full --no-et-check --out .cache/models --only {} \
         > .cache/export-logs/{}.log 2>&1 && echo "[export] ok {}" || echo "[export] FAILED {}"'
# python/ on the module path as well (no editable install on that machine).
PYTHONPATH="$PYTHONPATH:python" python3 -c 'import export_models as e; \
    i = e.write_index(".cache/models", True); print("[export] index:", len(i["models"]), "models")'
