#!/usr/bin/env bash
# Puts wgpu-native (libwgpu_native.so, webgpu.h, wgpu.h) into third_party/wgpu-native/, taken
# from the `wgpu` Python wheel on PyPI, which ships exactly these files. The version and the
# wheel's SHA-256 are pinned here; the wheel is never committed.
set -euo pipefail
cd "$(dirname "$0")/.."

WGPU_PY_VERSION=0.32.0   # wgpu-py release; carries wgpu-native 29.0.1.1
WHEEL=wgpu-${WGPU_PY_VERSION}-py3-none-manylinux_2_28_x86_64.whl
SHA256=6499a31b5a29a10b4f1089fea4a0806411f42605fa86b6c0b543a07ca0de8568
DEST=third_party/wgpu-native

if [ -f "$DEST/.stamp" ] && [ "$(cat "$DEST/.stamp")" = "$SHA256" ]; then
    echo "[deps] wgpu-native present in $DEST"
    exit 0
fi
if [ "$(uname -m)" != "x86_64" ]; then
    echo "[deps] error: the pinned wgpu-native wheel is for x86_64 Linux; on $(uname -m) set" \
         "-DWGX_WEBGPU_DIR=<an install of wgpu-native or Dawn> instead" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "[deps] downloading $WHEEL from PyPI"
python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --python-version 3.11 -d "$tmp" "wgpu==${WGPU_PY_VERSION}"
echo "$SHA256  $tmp/$WHEEL" | sha256sum -c --quiet
unzip -q -o "$tmp/$WHEEL" 'wgpu/resources/*' -d "$tmp/x"
rm -rf "$DEST"
mkdir -p "$DEST/include/webgpu" "$DEST/lib"
cp "$tmp/x/wgpu/resources/webgpu.h" "$tmp/x/wgpu/resources/wgpu.h" "$DEST/include/webgpu/"
cp "$tmp/x/wgpu/resources/libwgpu_native-release.so" "$DEST/lib/libwgpu_native.so"
echo "$SHA256" > "$DEST/.stamp"
echo "[deps] wgpu-native ready in $DEST"
