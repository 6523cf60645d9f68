"""Real test photos installed by scripts/install-deps.sh (Debian packages darknet, python3-skimage).

PHOTOS maps a short photo id to the installed file, the package it comes from and what it shows.
Licences and provenance are in docs/PHOTOS.md. The id is also the stem of the reference files
python/demo_reference.py writes (e.g. tests/demos/<model>/dog.classify.json).

    python/.venv/bin/python python/photos.py          # list the ids, paths and whether they exist
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

DARKNET_DIR = "/usr/share/darknet/data"
SKIMAGE_DIR = "/usr/lib/python3/dist-packages/skimage/data"


@dataclass(frozen=True)
class Photo:
    id: str
    path: str
    package: str
    shows: str


def _darknet(stem: str, shows: str) -> Photo:
    return Photo(stem, f"{DARKNET_DIR}/{stem}.jpg", "darknet", shows)


def _skimage(name: str, shows: str) -> Photo:
    return Photo(os.path.splitext(name)[0], f"{SKIMAGE_DIR}/{name}", "python3-skimage", shows)


_ALL: list[Photo] = [
    _darknet("dog", "dog, bicycle, truck (768x576)"),
    _darknet("person", "woman, dog, horse (640x424)"),
    _darknet("kite", "many people flying kites on a beach (1352x900)"),
    _darknet("horses", "several horses in a field (773x512)"),
    _darknet("eagle", "an eagle in flight (773x512)"),
    _darknet("giraffe", "giraffe and zebra (500x500)"),
    _darknet("scream", "Munch's painting The Scream (352x448)"),
    _skimage("astronaut.png", "astronaut Eileen Collins, portrait (512x512)"),
    _skimage("chelsea.png", "Chelsea, a tabby cat (451x300)"),
    _skimage("coffee.png", "a cup of coffee on a saucer (600x400)"),
    _skimage("rocket.jpg", "Falcon 9 rocket launch (640x427)"),
    _skimage("motorcycle_left.png", "a motorcycle, left view of a stereo pair (741x500)"),
]

PHOTOS: dict[str, Photo] = {p.id: p for p in _ALL}


def path(photo_id: str) -> str:
    """Installed path of a photo id; one clear error when the id is unknown or the file is missing."""
    if photo_id not in PHOTOS:
        raise KeyError(f"unknown photo id {photo_id!r}; known: {', '.join(PHOTOS)}")
    p = PHOTOS[photo_id]
    if not os.path.isfile(p.path):
        raise FileNotFoundError(
            f"{p.path} is missing (Debian package {p.package}); run scripts/install-deps.sh as root"
        )
    return p.path


def main() -> int:
    for p in _ALL:
        mark = "ok " if os.path.isfile(p.path) else "MISSING"
        print(f"{mark} {p.id:16s} {p.path}  [{p.package}] {p.shows}")
    return 0 if all(os.path.isfile(p.path) for p in _ALL) else 1


if __name__ == "__main__":
    sys.exit(main())
