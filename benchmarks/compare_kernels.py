"""Side by side, for one seed kernel launch: what tilec and Triton compiled.

    python benchmarks/compare_kernels.py [--out DIR] [--only SUBSTRING]

For each case (softmax and LayerNorm at the issue's sizes): registers, spills and shared
memory of both compilations, the resident CTAs per SM those allow, the median time, and
the PTX (and SASS when cuobjdump is on PATH) written to DIR for reading side by side.
A diagnostic for closing speed gaps: it reports, it never fails on slow numbers.
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpu_kernels import Timer, load_seeds  # noqa: E402


def occupancy(props, regs, smem, threads):
    """Resident CTAs per SM allowed by registers, shared memory and threads."""
    by_threads = props["threads"] // threads
    regs_per_warp = (max(regs, 1) * 32 + 255) // 256 * 256
    by_regs = props["regs"] // (regs_per_warp * (threads // 32))
    by_smem = props["smem"] // smem if smem else by_threads
    return min(by_threads, by_regs, by_smem, 32)


def sass(cubin, path):
    tool = shutil.which("cuobjdump")
    if tool is None:
        return
    with open(path + ".cubin", "wb") as f:
        f.write(cubin)
    out = subprocess.run([tool, "-sass", path + ".cubin"], capture_output=True, text=True)
    with open(path + ".sass", "w") as f:
        f.write(out.stdout or out.stderr)


def cases(torch):
    def softmax(rows, cols):
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        block = 1 << (cols - 1).bit_length()
        warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)

        def launch(m):
            return m.softmax_kernel[(rows,)](x, y, x.stride(0), y.stride(0), cols,
                                             BLOCK_SIZE=block, num_warps=warps)
        return f"softmax_{rows}x{cols}", launch, warps, 2 * x.numel() * 4

    def layernorm(rows, cols):
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        w = torch.randn(cols, device="cuda", dtype=torch.float16)
        b = torch.randn(cols, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        mean = torch.empty(rows, device="cuda")
        rstd = torch.empty(rows, device="cuda")
        block = 1 << (cols - 1).bit_length()
        warps = min(max(block // 256, 1), 8)

        def launch(m):
            return m.layernorm_kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5,
                                                BLOCK_SIZE=block, num_warps=warps)
        return f"layernorm_{rows}x{cols}", launch, warps, 2 * x.numel() * 2

    yield softmax(16384, 1024)
    yield softmax(4096, 4096)
    yield softmax(1024, 16384)
    yield layernorm(32768, 1024)
    yield layernorm(4096, 8192)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp") + "/compare")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    import torch

    os.makedirs(args.out, exist_ok=True)
    p = torch.cuda.get_device_properties(0)
    props = {"threads": p.max_threads_per_multi_processor, "regs": 65536,
             "smem": getattr(p, "shared_memory_per_multiprocessor", 228 << 10)}
    impls = {"tilec": load_seeds("tilec")}
    try:
        impls["triton"] = load_seeds("triton")
    except Exception as e:  # Triton is optional
        print("triton not importable:", e)
    timer = Timer(torch, 50, True)
    print(f"{'case':24} {'impl':7} {'regs':>4} {'spill':>5} {'smem':>6} {'CTA/SM':>6} "
          f"{'GB/s':>7}")
    for name, launch, warps, nbytes in cases(torch):
        if args.only not in name:
            continue
        for impl, mod in impls.items():
            k = launch(mod)
            torch.cuda.synchronize()
            regs, spill, smem = k.n_regs, k.n_spills, k.metadata.shared
            ms = timer.median_ms(lambda: launch(mod))
            occ = occupancy(props, regs, smem, warps * 32)
            print(f"{name:24} {impl:7} {regs:4d} {spill:5d} {smem:6d} {occ:6d} "
                  f"{nbytes / ms / 1e6:7.0f}")
            base = os.path.join(args.out, f"{name}.{impl}")
            with open(base + ".ptx", "w") as f:
                f.write(k.asm["ptx"])
            sass(k.asm["cubin"], base)


if __name__ == "__main__":
    main()
