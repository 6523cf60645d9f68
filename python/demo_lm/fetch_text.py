"""Fetch the demo LM's training text from Debian documentation packages and clean it.

The text is the reStructuredText sources that Sphinx-built documentation packages ship under
html/_sources: the Python 3.11 documentation (PSF licence) and the pytest (MIT), Flask
(BSD-3-Clause) and Sphinx (BSD-2-Clause) manuals; and the HTML pages of the Django 3.2
(BSD-3-Clause) and PostgreSQL 15 (PostgreSQL licence) manuals, which ship no sources. Each
package is fetched with `apt-get download` (run `apt-get update` once first), unpacked with
`dpkg-deb -x` into a temporary folder, and its documents turned into prose paragraphs
(rst_text.py, html_text.py) and question/answer pairs (chat_pairs.py). Documents are split
into train and held-out by a hash of their path (whole documents, so no held-out paragraph is
seen in training).

Writes, under --out (default .cache/demo_lm/corpus, git-ignored):
  train.jsonl, heldout.jsonl   one document a line: {"source", "path", "kind": "text", "text"}
                               or {"source", "path", "kind": "chat", "messages": [...]}
  licences/<package>.copyright the package's Debian copyright file (its licence terms)
  sources.json                 package versions, .deb SHA-256, licences, sizes per split

Usage: python3 python/demo_lm/fetch_text.py [--out DIR]   (plain Python 3, no packages)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import chat_pairs
import html_text
import rst_text

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Source:
    package: str
    sources: str  # the folder of the documentation inside the package
    copyright: str  # the Debian copyright file inside the package
    licence: str  # SPDX, as the copyright file states it for the documentation
    holder: str
    skip: tuple[str, ...] = ()  # path prefixes that are not prose (licence texts, changelogs)
    html: bool = False  # pages rather than reStructuredText sources


SOURCES = [
    Source(
        "python3.11-doc",
        "usr/share/doc/python3.11/html/_sources",
        "usr/share/doc/python3.11-doc/copyright",
        "PSF-2.0 (code examples in it also 0BSD)",
        "Python Software Foundation",
        ("license", "copyright", "bugs", "about", "contents"),
    ),
    Source(
        "python-pytest-doc",
        "usr/share/doc/python-pytest-doc/html/_sources",
        "usr/share/doc/python-pytest-doc/copyright",
        "MIT",
        "Holger Krekel and the pytest-dev team",
        ("changelog", "announce", "license", "contact", "sponsor", "tidelift", "talks"),
    ),
    Source(
        "python-flask-doc",
        "usr/share/doc/python-flask-doc/html/_sources",
        "usr/share/doc/python-flask-doc/copyright",
        "BSD-3-Clause",
        "Pallets team and community contributors",
        ("changes", "license"),
    ),
    Source(
        "sphinx-doc",
        "usr/share/doc/sphinx-doc/html/_sources",
        "usr/share/doc/sphinx-doc/copyright",
        "BSD-2-Clause",
        "the Sphinx team",
        ("changes",),
    ),
    # These two ship HTML pages only.
    Source(
        "python-django-doc",
        "usr/share/doc/python-django-doc/html",
        "usr/share/doc/python-django-doc/copyright",
        "BSD-3-Clause",
        "Django Software Foundation and individual contributors",
        ("_", "genindex", "search", "py-modindex", "contents", "releases"),
        html=True,
    ),
    Source(
        "postgresql-doc-15",
        "usr/share/doc/postgresql-doc-15/html",
        "usr/share/doc/postgresql-doc-15/copyright",
        "PostgreSQL",
        "PostgreSQL Global Development Group, The Regents of the University of California",
        # release notes, indexes, tables of codes and keywords, the licence
        ("release", "bookindex", "biblio", "errcodes", "sql-keywords", "unsupported-features", "features-sql")
        + ("legalnotice",),
        html=True,
    ),
]
HELDOUT_PERCENT = 5


def download(package: str, folder: Path) -> Path:
    try:
        subprocess.run(["apt-get", "download", package], cwd=folder, check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        sys.exit(f"apt-get download {package} failed (run `apt-get update` first?):\n{e.stderr}")
    (deb,) = folder.glob(f"{package}_*.deb")
    return deb


def package_version(deb: Path) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Version"], check=True, capture_output=True, text=True
    ).stdout.strip()


def documents(source: Source, tree: Path):
    """(path, paragraphs) for every source file that is prose."""
    base = tree / source.sources
    for file in sorted(base.rglob("*.html" if source.html else "*.txt")):
        path = file.relative_to(base).as_posix().removesuffix(".txt").removesuffix(".rst").removesuffix(".html")
        if path.startswith(source.skip):
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        paragraphs = html_text.paragraphs(text) if source.html else rst_text.paragraphs(text)
        if sum(len(p.text) for p in paragraphs if p.kind != "heading") >= 200:
            yield path, paragraphs


def split_of(package: str, path: str) -> str:
    return "heldout" if zlib.crc32(f"{package}:{path}".encode()) % 100 < HELDOUT_PERCENT else "train"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".cache/demo_lm/corpus")
    args = parser.parse_args()
    out: Path = args.out
    (out / "licences").mkdir(parents=True, exist_ok=True)
    files = {split: (out / f"{split}.jsonl").open("w", encoding="utf-8") for split in ("train", "heldout")}
    report = []
    with tempfile.TemporaryDirectory() as tmp:
        for source in SOURCES:
            folder = Path(tmp) / source.package
            folder.mkdir()
            deb = download(source.package, folder)
            tree = folder / "tree"
            subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
            (out / "licences" / f"{source.package}.copyright").write_bytes((tree / source.copyright).read_bytes())
            sizes = {"train": [0, 0, 0], "heldout": [0, 0, 0]}  # documents, text characters, chat pairs
            for path, paragraphs in documents(source, tree):
                split = split_of(source.package, path)
                text = "\n\n".join(p.text for p in paragraphs)
                row = {"source": source.package, "path": path, "kind": "text", "text": text}
                files[split].write(json.dumps(row, ensure_ascii=False) + "\n")
                qa = chat_pairs.pairs(paragraphs)
                for messages in qa:
                    row = {"source": source.package, "path": path, "kind": "chat", "messages": messages}
                    files[split].write(json.dumps(row, ensure_ascii=False) + "\n")
                sizes[split][0] += 1
                sizes[split][1] += len(text)
                sizes[split][2] += len(qa)
            report.append(
                {
                    "package": source.package,
                    "version": package_version(deb),
                    "deb": deb.name,
                    "deb_sha256": hashlib.sha256(deb.read_bytes()).hexdigest(),
                    "licence": source.licence,
                    "holder": source.holder,
                    **{f"{s}_{k}": v[n] for s, v in sizes.items() for n, k in enumerate(("docs", "chars", "pairs"))},
                }
            )
            print(f"[fetch-text] {source.package} {report[-1]['version']}: {sizes}", flush=True)
    for f in files.values():
        f.close()
    (out / "sources.json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
