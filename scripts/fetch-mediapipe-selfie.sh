#!/usr/bin/env bash
# Fetch the MediaPipe selfie segmenter (first-party Google TFLite file) from npm into the
# ignored cache, pinned by version and checked by sha256, and unpack it.
#
#   bash scripts/fetch-mediapipe-selfie.sh        # from the repository root; idempotent
#
# Result: .cache/npm/mediapipe-selfie_segmentation-<version>/package/selfie_segmentation.tflite
# (python/real_models/selfie.py reads it from there). Licence: Apache-2.0 (package.json "license";
# the package ships no LICENSE file).
set -euo pipefail

VERSION=0.1.1675465747
TGZ_SHA256=7767b33eaa68990ee06c28bbb89f39a13a47ebb07ff0f1fd4947d9e817bb9bf9   # of the npm tarball (4,049,373 B)
TFLITE_SHA256=8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27 # of selfie_segmentation.tflite (249,024 B)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/npm"
tgz="$cache/mediapipe-selfie_segmentation-$VERSION.tgz"
dir="$cache/mediapipe-selfie_segmentation-$VERSION"
mkdir -p "$cache"

if [[ ! -f "$tgz" ]]; then
  # npm pack verifies the registry's sha512 integrity; --pack-destination keeps it out of the tree.
  (cd "$cache" && npm pack "@mediapipe/selfie_segmentation@$VERSION" --silent >/dev/null)
fi
echo "$TGZ_SHA256  $tgz" | sha256sum --check --quiet

if [[ ! -f "$dir/package/selfie_segmentation.tflite" ]]; then
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xzf "$tgz" -C "$dir"
fi
echo "$TFLITE_SHA256  $dir/package/selfie_segmentation.tflite" | sha256sum --check --quiet
echo "$dir/package/selfie_segmentation.tflite"
