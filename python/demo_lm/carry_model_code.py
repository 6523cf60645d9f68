"""Copy ExecuTorch's pure-Python Llama model code next to the token ids, for a GPU machine that
has torch but not executorch.

train.py imports `executorch.examples.models.llama.llama_transformer`; where that fails it puts
--out on sys.path, where this script leaves the few modules that `construct_transformer` needs
(plain torch code), copied from the executorch wheel installed here under empty package
__init__ files, so no other part of executorch is imported. Nothing of it is committed: it is
the installed wheel's own code (BSD-3-Clause), carried with .device/demo_lm.

Usage: python/.venv/bin/python python/demo_lm/carry_model_code.py [--out .device/demo_lm/model_code]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("llama_transformer", "attention", "feed_forward", "model_args", "norm", "rope", "lora")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".device/demo_lm/model_code")
    args = parser.parse_args()
    source = Path(importlib.util.find_spec("executorch.examples.models.llama.llama_transformer").origin).parent
    parts = ("executorch", "examples", "models", "llama")
    package = args.out.joinpath(*parts)
    package.mkdir(parents=True, exist_ok=True)
    for depth in range(1, len(parts) + 1):
        args.out.joinpath(*parts[:depth], "__init__.py").touch()
    for name in MODULES:
        shutil.copy(source / f"{name}.py", package / f"{name}.py")
    dist = importlib.metadata.distribution("executorch")
    licence = next(f for f in dist.files if f.name == "LICENSE")
    shutil.copy(dist.locate_file(licence), args.out / "LICENSE")
    print(f"[carry-model-code] {len(MODULES)} modules of executorch {dist.version} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
