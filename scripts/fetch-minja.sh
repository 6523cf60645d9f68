#!/usr/bin/env bash
# Puts minja (Google's header-only Jinja subset for chat templates, MIT) into third_party/minja/,
# for src/text's chat templates (docs/TOKENIZERS.md). minja has no package of its own on the
# registries reachable here; llama.cpp vendors it, and llama-cpp-python's source distribution on
# PyPI carries llama.cpp, so the two headers are taken from that pinned sdist (checked by
# SHA-256, never committed) with llama.cpp's licence beside them.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.3.16
SDIST=llama_cpp_python-${VERSION}.tar.gz
SHA256=34ed0f9bd9431af045bb63d9324ae620ad0536653740e9bb163a2e1fcb973be6
DEST=third_party/minja

if [ -f "$DEST/.stamp" ] && [ "$(cat "$DEST/.stamp")" = "$SHA256" ]; then
    echo "[deps] minja present in $DEST"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "[deps] downloading $SDIST from PyPI (50 MB; only two headers are kept)"
# pip prepares an sdist's metadata before saving it, which installs its build requirements
# (scikit-build-core: a wheel) into a throwaway environment; nothing is compiled.
python3 -m pip download --quiet --disable-pip-version-check --no-deps \
    --no-binary llama-cpp-python -d "$tmp" "llama-cpp-python==${VERSION}"
echo "$SHA256  $tmp/$SDIST" | sha256sum -c --quiet
top=llama_cpp_python-${VERSION}/vendor/llama.cpp
tar -xzf "$tmp/$SDIST" -C "$tmp" "$top/vendor/minja/minja.hpp" \
    "$top/vendor/minja/chat-template.hpp" "$top/LICENSE"
rm -rf "$DEST"
mkdir -p "$DEST/minja"
mv "$tmp/$top/vendor/minja/"*.hpp "$DEST/minja/"
mv "$tmp/$top/LICENSE" "$DEST/LICENSE-llama.cpp"
echo "$SHA256" > "$DEST/.stamp"
echo "[deps] minja (from llama-cpp-python $VERSION) ready in $DEST"
