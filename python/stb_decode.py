"""Decode images with Debian's libstb (stb_image 2.27), the same decoder the C++ demos use.

src/vision/image.cpp decodes with stbi_load_from_memory(..., 3) from libstb.so. JPEG decoders
differ: on the darknet photos Pillow (libjpeg-turbo) and stb_image disagree on 1-13 % of the
pixel values, by up to 3 (PNGs decode identically). The reference pipeline therefore decodes
with the very same library through ctypes, so its input pixels are bit-identical to the demo's.
Numbers and the effect on model outputs: docs/PHOTOS.md.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np

_LIB_NAMES = ("libstb.so.0", "libstb.so")
_lib: ctypes.CDLL | None = None


def _load() -> ctypes.CDLL:
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for name in _LIB_NAMES + tuple(filter(None, [ctypes.util.find_library("stb")])):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise OSError(
            "cannot load libstb (Debian package libstb0 / libstb-dev, installed by "
            f"scripts/install-deps.sh): {'; '.join(errors)}"
        )
    lib.stbi_load_from_memory.restype = ctypes.POINTER(ctypes.c_ubyte)
    lib.stbi_load_from_memory.argtypes = [
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
    ]
    lib.stbi_image_free.argtypes = [ctypes.c_void_p]
    lib.stbi_image_free.restype = None
    lib.stbi_failure_reason.restype = ctypes.c_char_p
    _lib = lib
    return lib


def decode_rgb(data: bytes, name: str = "<bytes>") -> np.ndarray:
    """Encoded image bytes -> HxWx3 uint8 RGB (grey and RGBA are converted by stb, as in C++)."""
    if not data:
        raise ValueError(f"{name}: the file is empty")
    lib = _load()
    w, h, c = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    ptr = lib.stbi_load_from_memory(data, len(data), ctypes.byref(w), ctypes.byref(h), ctypes.byref(c), 3)
    if not ptr:
        reason = lib.stbi_failure_reason()
        raise ValueError(f"{name}: cannot decode the image ({reason.decode() if reason else 'unknown'})")
    try:
        n = w.value * h.value * 3
        out = np.ctypeslib.as_array(ptr, shape=(n,)).copy().reshape(h.value, w.value, 3)
    finally:
        lib.stbi_image_free(ptr)
    return out


def load_rgb(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        return decode_rgb(f.read(), path)


def load_rgb_pil(path: str) -> np.ndarray:
    """Pillow's decode of the same file (only used to measure the decoder difference)."""
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))
