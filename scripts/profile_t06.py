#!/usr/bin/env python3
"""A few calls of Triton's tutorial 06 attention (one row of benchmarks/tutorial06.py),
nothing else, for a profiler to look at one kernel of it:

    PYTEST_VERSION=1 TILEC_AS_TRITON=1 ncu --clock-control none --kernel-name _attn_bwd \\
        --launch-skip 2 --launch-count 1 --section WarpStateStats \\
        python3 scripts/profile_t06.py --mode bwd --d 64 --n 4096

PYTEST_VERSION makes the tutorial take its single test configuration (as the benchmark
does); TILEC_AS_TRITON=1 runs it on tilec, without it on Triton. The tutorial is
$TRITON_SRC/python/tutorials/06-fused-attention.py (scripts/triton_subset.sh).
"""

import argparse
import importlib.util
import os

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=["fwd", "bwd"], default="bwd")
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--ws", action="store_true", help="warp_specialize=True (forward)")
    p.add_argument("--calls", type=int, default=4)
    a = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.environ.get("TRITON_SRC", os.path.join(root, ".triton"))
    spec = importlib.util.spec_from_file_location(
        "tutorial06", os.path.join(src, "python", "tutorials", "06-fused-attention.py"))
    t06 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(t06)
    shape = (4, 32, a.n, a.d)  # the tutorial's BATCH and heads
    q, k, v = (torch.randn(shape, dtype=torch.float16, device="cuda", requires_grad=True)
               for _ in range(3))
    o = t06.attention(q, k, v, a.causal, 0.5, a.ws)
    do = torch.randn_like(o)
    for _ in range(a.calls):
        if a.mode == "bwd":
            o.backward(do, retain_graph=True)
        else:
            t06.attention(q, k, v, a.causal, 0.5, a.ws)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
