"""The seed fused attention (Z4 H32, D 64 by default; its host wrapper's BLOCK_M=128,
BLOCK_N=64, num_warps=4, num_stages=2) launched directly with a register cap (maxnreg), to
see what a third CTA per SM is worth. TFLOP/s by CUDA events (median of --reps), checked
against torch's SDPA. Run on a GPU; code-generation settings (TILEC_WGMMA_OVERLAP,
TILEC_WGMMA_DEFER) are switched by running once per setting, each with its own
TILEC_CACHE_DIR.

    python benchmarks/attention_variants.py [--maxnreg 0,168,160] [--reps 50]
                                            [--dims 64,128] [--stages 2]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_kernels import load_seeds  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maxnreg", default="0,168,160")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--dims", default="64")
    ap.add_argument("--stages", type=int, default=2)
    args = ap.parse_args()
    import torch
    mod = load_seeds("tilec")
    k_fn = mod.fused_attention_kernel
    for n_ctx, d in ((n, d) for d in map(int, args.dims.split(",")) for n in (1024, 4096)):
        z, h = 4, 32
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (0.5 * torch.randn((z, h, n_ctx, d), device="cuda", generator=g).half()
                   for _ in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0).float()
        flops = 4 * z * h * n_ctx * n_ctx * d
        for cap in (int(x) for x in args.maxnreg.split(",")):
            o = torch.empty_like(q)
            extra = {"maxnreg": cap} if cap else {}
            grid = ((n_ctx + 127) // 128, z * h)

            def run():
                k_fn[grid](q, k, v, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                           z, h, n_ctx, BLOCK_M=128, BLOCK_N=64, BLOCK_K=d, num_warps=4,
                           num_stages=args.stages, **extra)
            run()
            torch.cuda.synchronize()
            err = (o.float() - ref).abs().max().item()
            times = []
            for _ in range(args.reps):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                run()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b))
            ms = statistics.median(times)
            print(f"D{d} N{n_ctx} maxnreg={cap or '-':>4}  {flops / ms / 1e9:7.1f} TFLOP/s  "
                  f"max err {err:.2e}", flush=True)


if __name__ == "__main__":
    main()
