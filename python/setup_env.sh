#!/usr/bin/env bash
# Create python/.venv, install python/requirements.txt into it, then install the
# tooling itself (python/pyproject.toml) editable, so that every script imports the
# others by module name (python/README.md, "Layout").
# Idempotent: a stamp file holding the hash of requirements.txt and pyproject.toml
# records a finished install; when it matches, nothing is done.
#
# Usage: bash python/setup_env.sh        (from anywhere)
#        PYTHON=/usr/bin/python3 bash python/setup_env.sh
#        FORCE=1 bash python/setup_env.sh (reinstall even if the stamp matches)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
py="${PYTHON:-python3}"

want="$(cat "$req" "$here/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [[ "${FORCE:-0}" != 1 && -f "$stamp" && "$(cat "$stamp")" == "$want" \
      && -x "$venv/bin/python" ]]; then
  echo "[setup_env] $venv is up to date (requirements + pyproject hash $want)"
  exit 0
fi

if [[ ! -x "$venv/bin/python" ]]; then
  echo "[setup_env] creating virtual environment $venv with $("$py" --version 2>&1)"
  "$py" -m venv "$venv"
fi

echo "[setup_env] upgrading pip"
"$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip

echo "[setup_env] installing $req (torch wheels are large: several GB, a few minutes)"
start=$(date +%s)
"$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
  -r "$req"
echo "[setup_env] pip install took $(( $(date +%s) - start ))s"

echo "[setup_env] installing the tooling editable (python/pyproject.toml)"
"$venv/bin/python" -m pip install --disable-pip-version-check -q --no-deps -e "$here"

echo "[setup_env] checking imports"
"$venv/bin/python" -I - <<'PY'  # -I: the modules must come from the install, not the cwd
import torch, numpy
from executorch.version import __version__ as et_version
from executorch.exir import to_edge_transform_and_lower  # noqa: F401
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner  # noqa: F401
import inspect_pte, importers, real_models  # noqa: F401  (the editable install)
print(f"[setup_env] torch {torch.__version__}, numpy {numpy.__version__}, "
      f"executorch {et_version}")
PY

echo "$want" > "$stamp"
echo "[setup_env] done; venv size $(du -sh "$venv" | cut -f1)"
