"""The seed fused attention (Z4 H32, D 64 by default; its host wrapper's BLOCK_M=128,
BLOCK_N=64, num_warps=4, num_stages=2) launched directly with a register cap (maxnreg), to
see what a third CTA per SM is worth. TFLOP/s by CUDA events (median of --reps), checked
against torch's SDPA. Run on a GPU; code-generation settings (TILEC_WGMMA_OVERLAP,
TILEC_WGMMA_DEFER) are switched by running once per setting, each with its own
TILEC_CACHE_DIR.

    python benchmarks/attention_variants.py [--maxnreg 0,168,160] [--reps 50]
                                            [--dims 64,128] [--stages 2]
                                            [--variants seed,exp2,exp2_fma]
                                            [--shapes 128x4,128x8,64x4] [--sdpa]

--shapes: BLOCK_M x num_warps of each launch (the wrapper's is 128x4; 128x8 puts the same
tile on two warpgroups of 64 rows, 256x8 two programs' tiles on one CTA sharing K and V).
--sdpa adds torch's SDPA, timed the same way, for the ratio.

--variants: the seed as written ("seed"), and copies differing only in the softmax's
exponential, to see what tl.exp costs against tutorial 06's form (same tile, same
warps): "exp2" computes tl.math.exp2((s - m) * log2(e)) (ex2.approx.ftz where tl.exp is
ex2.approx without ftz, whose subnormal handling adds instructions), "exp2_fma"
tl.math.exp2(s * log2(e) - m * log2(e)) (one FFMA, as tutorial 06 folds its scale).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_ahead import median_ms  # noqa: E402
from gpu_kernels import load_seeds  # noqa: E402


def exp2_kernel():
    """The seed's kernel with another exponential: FMA False, tl.math.exp2((s - m) * log2e);
    True, tl.math.exp2(s * log2e - m * log2e)."""
    import tilec as triton
    import tilec.language as tl

    @triton.jit
    def attn_exp2(Q, K, V, Out, stride_qz, stride_qh, stride_qm, stride_qk, stride_kz,
                  stride_kh, stride_kn, stride_kk, stride_vz, stride_vh, stride_vn, stride_vk,
                  stride_oz, stride_oh, stride_om, stride_ok, Z, H, N_CTX,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  FMA: tl.constexpr):
        L: tl.constexpr = 1.4426950408889634
        start_m = tl.program_id(0)
        off_hz = tl.program_id(1)
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        q = tl.load(Q + off_hz * stride_qh + offs_m[:, None] * stride_qm +
                    offs_k[None, :] * stride_qk, mask=offs_m[:, None] < N_CTX, other=0.0)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
        for start_n in range(0, N_CTX, BLOCK_N):
            rows = (start_n + offs_n)[:, None]
            k = tl.load(K + off_hz * stride_kh + rows * stride_kn + offs_k[None, :] * stride_kk,
                        mask=rows < N_CTX, other=0.0)
            v = tl.load(V + off_hz * stride_vh + rows * stride_vn + offs_k[None, :] * stride_vk,
                        mask=rows < N_CTX, other=0.0)
            s = tl.dot(q, tl.trans(k))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            if FMA:
                alpha = tl.math.exp2(m_i * L - m_new * L)
                p = tl.math.exp2(s * L - (m_new * L)[:, None])
            else:
                alpha = tl.math.exp2((m_i - m_new) * L)
                p = tl.math.exp2((s - m_new[:, None]) * L)
            l_i = l_i * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
        acc = acc / l_i[:, None]
        tl.store(Out + off_hz * stride_oh + offs_m[:, None] * stride_om +
                 offs_k[None, :] * stride_ok, acc.to(Out.dtype.element_ty),
                 mask=offs_m[:, None] < N_CTX)

    return attn_exp2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maxnreg", default="0,168,160")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--dims", default="64")
    ap.add_argument("--stages", type=int, default=2)
    ap.add_argument("--variants", default="seed", help="seed, exp2, exp2_fma (see above)")
    ap.add_argument("--shapes", default="128x4", help="BLOCK_M x num_warps, comma-separated")
    ap.add_argument("--sdpa", action="store_true", help="time torch's SDPA too")
    args = ap.parse_args()
    import torch
    mod = load_seeds("tilec")
    variants = [v for v in args.variants.split(",") if v]
    if set(variants) - {"seed", "exp2", "exp2_fma"}:
        ap.error(f"unknown variant in {args.variants!r}")
    shapes = [tuple(map(int, sh.split("x"))) for sh in args.shapes.split(",") if sh]
    other = exp2_kernel() if set(variants) - {"seed"} else None
    kernels = {"seed": (mod.fused_attention_kernel, {}), "exp2": (other, {"FMA": False}),
               "exp2_fma": (other, {"FMA": True})}
    for n_ctx, d in ((n, d) for d in map(int, args.dims.split(",")) for n in (1024, 4096)):
        z, h = 4, 32
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (0.5 * torch.randn((z, h, n_ctx, d), device="cuda", generator=g).half()
                   for _ in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0).float()
        flops = 4 * z * h * n_ctx * n_ctx * d
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)
        if args.sdpa:
            ms = median_ms(torch, sdpa, args.reps)
            print(f"{'SDPA':>8} D{d} N{n_ctx}  {flops / ms / 1e9:7.1f} TFLOP/s", flush=True)
        for name, cap, (bm, nw) in ((n, int(c), sh) for n in variants
                                    for c in args.maxnreg.split(",") for sh in shapes):
            k_fn, consts = kernels[name]
            o = torch.empty_like(q)
            extra = dict(consts, **({"maxnreg": cap} if cap else {}))
            grid = ((n_ctx + bm - 1) // bm, z * h)

            def run():
                k_fn[grid](q, k, v, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                           z, h, n_ctx, BLOCK_M=bm, BLOCK_N=64, BLOCK_K=d, num_warps=nw,
                           num_stages=args.stages, **extra)
            run()
            torch.cuda.synchronize()
            err = (o.float() - ref).abs().max().item()
            ms = median_ms(torch, run, args.reps)
            print(f"{name:>8} D{d} N{n_ctx} {bm}x{nw} maxnreg={cap or '-':>4}  "
                  f"{flops / ms / 1e9:7.1f} TFLOP/s  max err {err:.2e}", flush=True)


if __name__ == "__main__":
    main()
