"""How far PyTorch itself is from float64 when it runs a model in float16.

The float16 path of the engine (ProgramOptions::float16, `wgx run --f16`) stores every tensor
in float16; its accuracy limits (tests/programs Float16Fixtures, docs/PERFORMANCE.md) are set
against what the same models lose in PyTorch's own float16 (model.half() on the CPU: float16
storage and weights, float32 sums inside the kernels). Usage:

    python/.venv/bin/python python/float16_reference.py mobilenet_v2 resnet50 [--full]
"""

import argparse
import copy
import sys

import torch

import export_models as em


def first_output(out):
    if isinstance(out, dict):
        out = out["out"]
    if isinstance(out, (tuple, list)):
        out = out[0]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model names (python/export_models.py SPECS)")
    ap.add_argument("--full", action="store_true", help="full-size models instead of narrow")
    args = ap.parse_args(argv)
    known = {s.name: s for s in em.SPECS}
    for name in args.models:
        if name not in known:
            print(f"unknown model {name}; known: {', '.join(sorted(known))}", file=sys.stderr)
            return 2
        spec = known[name]
        model, _ = em.build_model(spec, args.full)
        x = em.make_inputs(spec, args.full)[0]
        with torch.no_grad():
            ref = first_output(copy.deepcopy(model).double()(x.double()))
            out = first_output(copy.deepcopy(model).half()(x.half())).double()
        d = out - ref
        print(
            f"{name}: PyTorch float16 vs float64: rel L2 {(d.norm() / ref.norm()).item():.4g}, "
            f"max abs rel {(d.abs().max() / ref.abs().max()).item():.4g}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
