#!/usr/bin/env bash
# Packs the built tool, tests and the shared libraries they need into .device/ (git-ignored),
# and the Vulkan loader packages into .gl/, for a run on another Linux x86-64 machine whose
# image lacks them (the lent GPU machine). There, run:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export LD_LIBRARY_PATH=$PWD/.device/lib
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   .device/wgx info --device; .device/wgx_tests
#   WGX_TESTS_DIR=$PWD/tests .device/wgx_program_tests
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
rm -rf .device
mkdir -p .device/lib
cp "$BUILD/wgx" "$BUILD/tests/unit/wgx_tests" "$BUILD/tests/programs/wgx_program_tests" .device/
cp third_party/wgpu-native/lib/libwgpu_native.so .device/lib/
# Every shared library the tool loads beyond the C and C++ runtimes (fmt, stb, the tokenizers'
# re2, PCRE2 and SentencePiece, and theirs), which the other machine's image may lack.
ldd "$BUILD/wgx" | awk '$3 ~ /^\// {print $3}' |
    grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt)\.so' |
    grep -v wgpu_native | xargs -r cp -L -t .device/lib/
# The micro-benchmarks, when built.
[ -x "$BUILD/bench/wgx_microbench" ] && cp "$BUILD/bench/wgx_microbench" .device/ && strip .device/wgx_microbench
strip .device/wgx .device/wgx_tests .device/wgx_program_tests
if [ ! -d .gl ] || [ -z "$(ls .gl/*.deb 2>/dev/null)" ]; then
    mkdir -p .gl /tmp/amd64/partial
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    apt-get $o update -qq
    (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
du -sh .device .gl
