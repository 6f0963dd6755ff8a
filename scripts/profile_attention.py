#!/usr/bin/env python3
"""A few calls of the seed fused attention (tilec, its host wrapper's config) or of torch's
SDPA on the same problem, nothing else, for a profiler to look at one kernel; it also
prints the median TFLOP/s of --calls calls (gpu_kernels.py's Timer, no L2 flush):

    ncu --clock-control none -k regex:fused_attention --launch-skip 3 --launch-count 1 \\
        --section SpeedOfLight --section WarpStateStats --section InstructionStats \\
        python3 scripts/profile_attention.py --which seed --n 4096
    ncu ... -k regex:flash ... python3 scripts/profile_attention.py --which sdpa --n 4096
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--which", choices=["seed", "sdpa"], default="seed")
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--calls", type=int, default=20)
    a = p.parse_args()
    import torch
    q, k, v = (torch.randn((4, 32, a.n, a.d), device="cuda", dtype=torch.float16)
               for _ in range(3))
    if a.which == "seed":
        from gpu_kernels import load_seeds
        seeds = load_seeds("tilec")
        call = lambda: seeds.attention(q, k, v)
    else:
        call = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)
    from gpu_kernels import Timer
    ms = Timer(torch, a.calls, flush=False).median_ms(call, warmup=3)
    flops = 4.0 * 4 * 32 * a.n * a.n * a.d
    print(f"{a.which} N {a.n} D {a.d}: {ms:.4f} ms, {flops / ms / 1e9:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
