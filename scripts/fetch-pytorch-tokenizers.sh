#!/usr/bin/env bash
# Puts the C++ sources of pytorch-tokenizers (meta-pytorch/tokenizers, BSD-3-Clause) into
# third_party/pytorch-tokenizers/, taken from its source distribution on PyPI; src/text builds
# them (docs/TOKENIZERS.md). 1.0.1 is the newest release that has an sdist: later releases ship
# wheels only, whose headers come without the .cpp files. The version and the sdist's SHA-256 are
# pinned here; the sdist is never committed. Only what the build reads is kept: include/, src/,
# third-party/llama.cpp-unicode (Unicode tables) and the licence. The sdist's bundled copies of
# re2, abseil, sentencepiece, pcre2 and nlohmann-json are dropped: Debian's packages are used.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.0.1
SDIST=pytorch_tokenizers-${VERSION}.tar.gz
SHA256=19938c0efd5348fb0589610094c1c6bf6e055b20889f6250068d2b552a0b137b
DEST=third_party/pytorch-tokenizers

if [ -f "$DEST/.stamp" ] && [ "$(cat "$DEST/.stamp")" = "$SHA256" ]; then
    echo "[deps] pytorch-tokenizers present in $DEST"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "[deps] downloading $SDIST from PyPI"
# pip prepares an sdist's metadata before saving it, which installs its build requirements
# (cmake, pybind11: wheels) into a throwaway environment; nothing is compiled.
python3 -m pip download --quiet --disable-pip-version-check --no-deps \
    --no-binary pytorch-tokenizers -d "$tmp" "pytorch-tokenizers==${VERSION}"
echo "$SHA256  $tmp/$SDIST" | sha256sum -c --quiet
top=pytorch_tokenizers-${VERSION}
tar -xzf "$tmp/$SDIST" -C "$tmp" "$top/LICENSE" "$top/include" "$top/src" \
    "$top/third-party/llama.cpp-unicode"
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$tmp/$top" "$DEST"
echo "$SHA256" > "$DEST/.stamp"
echo "[deps] pytorch-tokenizers $VERSION ready in $DEST"
