#!/usr/bin/env python3
"""A few backward calls of Triton's tutorial 05 layer norm (one row of benchmarks/tutorials.py:
M 4096, fp16, the tutorial's data), nothing else, for a profiler to look at its kernels:

    TILEC_AS_TRITON=1 ncu --clock-control none --kernel-name _layer_norm_bwd_dx_fused \\
        --launch-skip 2 --launch-count 1 python3 scripts/profile_t05.py --n 8192

TILEC_AS_TRITON=1 runs it on tilec, without it on Triton. The tutorial is
$TRITON_SRC/python/tutorials/05-layer-norm.py (scripts/triton_subset.sh).
"""

import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from tutorials import load_tutorial  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--calls", type=int, default=5)
    a = p.parse_args()
    src = os.environ.get("TRITON_SRC", os.path.join(ROOT, ".triton"))
    t05 = load_tutorial(os.path.join(src, "python", "tutorials", "05-layer-norm.py"),
                        "tutorial05", ["LayerNorm"])
    torch.manual_seed(0)  # as tutorials.py and the tutorial's bench_layer_norm
    shape, dtype = (a.n,), torch.float16
    weight = torch.rand(shape, dtype=dtype, device="cuda", requires_grad=True)
    bias = torch.rand(shape, dtype=dtype, device="cuda", requires_grad=True)
    x = -2.3 + 0.5 * torch.randn((4096, a.n), dtype=dtype, device="cuda")
    dy = .1 * torch.randn_like(x)
    x.requires_grad_(True)
    y = t05.LayerNorm.apply(x, shape, weight, bias, 1e-5)
    for _ in range(a.calls):
        x.grad = None
        y.backward(dy, retain_graph=True)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
