#!/usr/bin/env bash
# Installs each wheel of $BUILD/dist (scripts/build-wheels.sh) into a new virtual environment of
# its Python version, binaries only (no compiler is used: pip may not build anything), and runs
# the package's whole pytest suite on the installed package, away from the source tree.
#   usage: scripts/test-wheels.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="${1:-build}"
shopt -s nullglob
wheels=("$build"/dist/*.whl)
[[ ${#wheels[@]} -gt 0 ]] || { echo "test-wheels: no wheel in $build/dist (make wheel)" >&2; exit 1; }
pytest_pin="$(grep -E '^pytest==' python/requirements-package.txt)"
status=0
for whl in "${wheels[@]}"; do
    tag="$(basename "$whl" | cut -d- -f3)"  # cp311
    version="${tag:2:1}.${tag:3}"
    base=.cache/pkg-venv/bin/python
    [[ "$version" == 3.11 ]] || base=".cache/pkg-venv-$version/bin/python"
    venv="$build/wheel-test-$version"
    rm -rf "$venv"
    echo "[wheel-test] $(basename "$whl") into a new venv ($("$base" --version))"
    "$base" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: \
        "$whl" "$pytest_pin"
    # From an empty folder: the import must find the installed package, not the sources.
    (
        cd "$venv"
        where="$(bin/python -c 'import wgx, os; print(os.path.dirname(wgx.__file__))')"
        [[ "$where" == "$PWD"/lib/python*/site-packages/wgx ]] ||
            { echo "[wheel-test] wgx imported from $where, not the venv" >&2; exit 1; }
        bin/python -m wgx --version || exit 1
        bin/wgx --version > /dev/null || exit 1
        WGX_TESTS_DIR="$root/tests" WGX_BINARY="$root/$build/wgx" bin/python -m pytest -q \
            -p no:cacheprovider "$root/bindings/python/tests" 2>&1 | tail -3
    ) || status=1
done
exit $status
