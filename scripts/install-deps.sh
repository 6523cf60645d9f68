#!/usr/bin/env bash
# Installs everything the engine needs to build and test on Debian 12 (run as root):
# Debian packages, then wgpu-native taken from the pinned `wgpu` wheel on PyPI and the C++
# sources of pytorch-tokenizers from its pinned sdist on PyPI.
# Idempotent: packages already present and unpacked downloads are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    build-essential cmake ninja-build pkg-config python3 python3-pip python3-venv python3-dev unzip
    ca-certificates
    ccache                                             # compile cache, picked up by CMake
    clang-format clang-tidy                            # make lint / make tidy
    mesa-vulkan-drivers libvulkan1 vulkan-tools       # headless GPU (lavapipe) + loader
    flatbuffers-compiler libflatbuffers-dev            # .pte / VkGraph readers
    nlohmann-json3-dev libstb-dev libcli11-dev libfmt-dev
    libre2-dev libpcre2-dev libsentencepiece-dev       # tokenizers (docs/TOKENIZERS.md)
    libgtest-dev libgmock-dev libbenchmark-dev
    darknet python3-skimage                            # real test photos for the demos (docs/PHOTOS.md)
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "[deps] installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "[deps] Debian packages present"
fi

scripts/fetch-wgpu-native.sh
scripts/fetch-pytorch-tokenizers.sh
scripts/fetch-minja.sh
scripts/setup-package-venv.sh > /dev/null   # the Python package's build and test venv (docs/PYTHON.md)
