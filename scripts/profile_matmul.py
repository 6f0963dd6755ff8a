#!/usr/bin/env python3
"""A few calls of the seed matmul (tilec or Triton, autotuned first) or of torch.matmul
(cuBLAS) at n^3, data as benchmarks/gpu_kernels.py makes it, nothing else, for a profiler
to look at one kernel (the matmul row of issue 22: the seed at 0.96 x cuBLAS at 4096^3);
it also prints the median TFLOP/s of --calls calls (gpu_kernels.py's Timer, no L2 flush):

    ncu --clock-control none --profile-from-start off -k regex:matmul_kernel \\
        --launch-skip 3 --launch-count 1 --section SpeedOfLight \\
        python3 scripts/profile_matmul.py --which tilec
    ncu ... -k regex:'nvjet|gemm|xmma' ... python3 scripts/profile_matmul.py --which cublas
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--which", choices=["tilec", "triton", "cublas"], default="tilec")
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    p.add_argument("--calls", type=int, default=20)
    a = p.parse_args()
    import torch
    from gpu_kernels import Timer, case_matmul, load_seeds
    flops, seed, cublas, check = case_matmul(torch, a.n, a.dtype)
    call = cublas if a.which == "cublas" else seed(load_seeds(a.which))
    call()  # the seed's first call autotunes
    if a.which != "cublas":
        print(f"check: {check()}")
    torch.cuda.synchronize()
    torch.cuda.profiler.start()  # ncu --profile-from-start off sees the launches from here
    ms = Timer(torch, a.calls, flush=False).median_ms(call, warmup=3)
    print(f"{a.which} {a.dtype} {a.n}^3: {ms:.4f} ms, {flops / ms / 1e9:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
