#!/usr/bin/env bash
# The virtual environment the Python package builds and tests in: .cache/pkg-venv (ignored), with
# python/requirements-package.txt, made again only when the pins change. Prints its python.
#   env: PYTHON (python3): the interpreter to make it from (needs python3-venv and python3-dev)
#        VENV (.cache/pkg-venv): where (scripts/build-wheels.sh makes one per Python version)
set -euo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-python3}"
venv="${VENV:-.cache/pkg-venv}"
req=python/requirements-package.txt
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
    echo "$venv/bin/python"
    exit 0
fi
rm -rf "$venv"
mkdir -p .cache
echo "[pkg-venv] creating $venv with $("$py" --version 2>&1)" >&2
"$py" -m venv "$venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
echo "$want" > "$stamp"
echo "$venv/bin/python"
