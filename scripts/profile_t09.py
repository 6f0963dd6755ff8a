#!/usr/bin/env python3
"""A few calls of one of Triton's tutorial 09 matmuls (M = N = 8192, one autotune config,
as benchmarks/tutorials.py --t09-config runs them), nothing else, for a profiler to look
at one kernel; it also prints the kernel's TFLOP/s over --calls back-to-back calls:

    TILEC_AS_TRITON=1 ncu --clock-control none -k matmul_kernel_tma_persistent \\
        --launch-skip 3 --launch-count 1 --section WarpStateStats --section SourceCounters \\
        -o t09 python3 scripts/profile_t09.py --kernel tma_persistent --dtype fp8 --k 512
    ncu -i t09.ncu-rep --page source --csv --print-source sass > t09.csv

TILEC_AS_TRITON=1 runs it on tilec, without it on Triton. The tutorial is
$TRITON_SRC/python/tutorials/09-persistent-matmul.py (scripts/triton_subset.sh). The
seed attention has its own: benchmarks/attention_variants.py --reps 3.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))

KERNELS = {  # wrapper, autotuned kernel
    "naive": ("matmul", "matmul_kernel"),
    "persistent": ("matmul_persistent", "matmul_kernel_persistent"),
    "tma": ("matmul_tma", "matmul_kernel_tma"),
    "tma_persistent": ("matmul_tma_persistent", "matmul_kernel_tma_persistent"),
    "descriptor_persistent": ("matmul_descriptor_persistent",
                              "matmul_kernel_descriptor_persistent"),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernel", choices=sorted(KERNELS), default="tma_persistent")
    p.add_argument("--dtype", choices=["fp16", "fp8"], default="fp8")
    p.add_argument("--k", type=int, default=512)
    p.add_argument("--config", default='{"BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, '
                                       '"num_stages": 3, "num_warps": 8}')
    p.add_argument("--calls", type=int, default=20)
    a = p.parse_args()
    import torch
    from tutorials import load_tutorial
    src = os.environ.get("TRITON_SRC", os.path.join(os.path.dirname(HERE), ".triton"))
    t09 = load_tutorial(os.path.join(src, "python", "tutorials", "09-persistent-matmul.py"),
                        "tutorial09", ["matmul_tma_persistent"])
    wrapper, kernel = KERNELS[a.kernel]
    fixed = json.loads(a.config)
    k = getattr(t09, kernel)  # the autotuner keeps the first config matching --config
    keep = [c for c in k.configs if all(
        (getattr(c, f) if f in ("num_stages", "num_warps") else c.kwargs.get(f, v)) == v
        for f, v in fixed.items())]
    k.configs = keep[:1] or k.configs
    torch.manual_seed(0)  # as the tutorial's bench(K): b as (N, K)
    x = torch.randn((8192, a.k), device="cuda", dtype=torch.float16)
    y = torch.randn((a.k, 8192), device="cuda", dtype=torch.float16).T.contiguous()
    if a.dtype == "fp8":
        x, y = x.to(torch.float8_e4m3fn), y.to(torch.float8_e4m3fn)
    fn = getattr(t09, wrapper)
    call = (lambda: fn(x, y.T)) if a.kernel in ("naive", "persistent") else \
        (lambda: fn(x, y, False))
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(a.calls):
        call()
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end) / a.calls
    impl = "tilec" if os.environ.get("TILEC_AS_TRITON") == "1" else "triton"
    print(f"{impl} {a.kernel} {a.dtype} K {a.k}: {ms:.4f} ms, "
          f"{2 * 8192 * 8192 * a.k / ms / 1e9:.1f} TFLOP/s ({k.configs[0]})")


if __name__ == "__main__":
    main()
