"""What copying the seed matmul's and the seed attention's tiles by TMA would be worth, measured
before any compiler pass turns pointer loads into tensor-map copies:

    python benchmarks/tma_probe.py [--reps 50] [--parts matmul,attention] [--ks 4096]

Each kernel is written three ways, same tile, warps and stages; GPU time (launches queued
behind a GPU sleep, L2 flushed), interleaved rounds, checked against torch:
  ptr     the seed's pointer loads (the matmul as the seed's 128 x 256 x 64, 3-stage, 8-warp
          config; the attention as its wrapper launches it)
  kdesc   the same tiles through tl.make_tensor_descriptor: maps built by each program in
          global scratch (what a pass could make of the pointer, strides and mask without
          touching the launch), the rest unchanged
  hdesc   host TensorDescriptor arguments (the attention's K and V over the flattened
          [Z*H*N, D] tensor, as tutorial 06 does; N a multiple of BLOCK_N)
beside cuBLAS (torch.matmul) and SDPA. A measurement for deciding on a pass; it never fails.

--ks K1,K2,...: the matmuls at M = N = 4096 and each K (default 4096 alone). With two K or
more, a last table fits each kernel's time to a + b K (least squares): b is what one more
K step costs (the main loop), a the time that does not grow with K (the launch, each wave's
prologue and epilogue, the last wave's tail), so a gap to cuBLAS in a is one a persistent
schedule could close and a gap in b is the loop's own. --json PATH writes the matmul times
and the fit.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_kernels import Timer, load_seeds  # noqa: E402

import tilec as triton  # noqa: E402
import tilec.language as tl  # noqa: E402


@triton.jit
def grouped_tile(M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    """(pid_m, pid_n) of this program in the seed matmul's grouped order."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    group_id = pid // (GROUP * num_pid_n)
    first_pid_m = group_id * GROUP
    group_size_m = min(num_pid_m - first_pid_m, GROUP)
    return first_pid_m + (pid % group_size_m), (pid % (GROUP * num_pid_n)) // group_size_m


@triton.jit
def store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BM: tl.constexpr,
            BN: tl.constexpr):
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def mm_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
           stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           GROUP: tl.constexpr):
    pid_m, pid_n = grouped_tile(M, N, BM, BN, GROUP)
    offs_am = pid_m * BM + tl.arange(0, BM)
    offs_bn = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & ((k + offs_k[None, :]) < K),
                    other=0.0)
        b = tl.load(b_ptrs, mask=((k + offs_k[:, None]) < K) & (offs_bn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


@triton.jit
def mm_kdesc(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
             stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             GROUP: tl.constexpr):
    pid_m, pid_n = grouped_tile(M, N, BM, BN, GROUP)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                       block_shape=[BK, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]))
    store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BM, BN)


@triton.jit
def mm_hdesc(a_desc, b_desc, c_ptr, M, N, K, stride_cm, stride_cn, BM: tl.constexpr,
             BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid_m, pid_n = grouped_tile(M, N, BM, BN, GROUP)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]))
    store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BM, BN)


@triton.jit
def attn_kv(q, k_src, v_src, m_i, l_i, acc):
    s = tl.dot(q, tl.trans(k_src))
    m_new = tl.maximum(m_i, tl.max(s, axis=1))
    alpha = tl.exp(m_i - m_new)
    p = tl.exp(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, axis=1)
    acc = acc * alpha[:, None] + tl.dot(p.to(v_src.dtype), v_src)
    return m_new, l_i, acc


@triton.jit
def attn_kdesc(Q, K, V, Out, stride_qh, stride_qm, stride_kh, stride_kn, stride_vh,
               stride_vn, stride_oh, stride_om, N_CTX, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + off_hz * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    k_desc = tl.make_tensor_descriptor(K + off_hz * stride_kh, shape=[N_CTX, D],
                                       strides=[stride_kn, 1], block_shape=[BLOCK_N, D])
    v_desc = tl.make_tensor_descriptor(V + off_hz * stride_vh, shape=[N_CTX, D],
                                       strides=[stride_vn, 1], block_shape=[BLOCK_N, D])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        m_i, l_i, acc = attn_kv(q, k_desc.load([start_n, 0]), v_desc.load([start_n, 0]),
                                m_i, l_i, acc)
    acc = acc / l_i[:, None]
    tl.store(Out + off_hz * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


@triton.jit
def attn_hdesc(Q, k_desc, v_desc, Out, stride_qh, stride_qm, stride_oh, stride_om, N_CTX,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + off_hz * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    row0 = off_hz * N_CTX
    for start_n in range(0, N_CTX, BLOCK_N):
        m_i, l_i, acc = attn_kv(q, k_desc.load([row0 + start_n, 0]),
                                v_desc.load([row0 + start_n, 0]), m_i, l_i, acc)
    acc = acc / l_i[:, None]
    tl.store(Out + off_hz * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


def matmul_case(torch, dt, k, n=4096):
    """The seed matmul's tile (128 x 256 x 64, 3 stages, 8 warps) at M = N = n, K = k:
    {"ptr", "kdesc", "hdesc", "cuBLAS": launcher} and the operands (a, b, c)."""
    from tilec.tools.tensor_descriptor import TensorDescriptor
    BM, BN, BK = 128, 256, 64
    a = torch.randn((n, k), device="cuda", dtype=dt)
    b = torch.randn((k, n), device="cuda", dtype=dt)
    c = torch.empty((n, n), device="cuda", dtype=torch.float16)
    grid = (triton.cdiv(n, BM) * triton.cdiv(n, BN),)
    cfg = dict(BM=BM, BN=BN, BK=BK, GROUP=8, num_warps=8, num_stages=3)
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b, [BK, BN])
    fns = {
        "ptr": lambda: mm_ptr[grid](a, b, c, n, n, k, *a.stride(), *b.stride(), *c.stride(),
                                    **cfg),
        "kdesc": lambda: mm_kdesc[grid](a, b, c, n, n, k, *a.stride(), *b.stride(),
                                        *c.stride(), **cfg),
        "hdesc": lambda: mm_hdesc[grid](ad, bd, c, n, n, k, *c.stride(), **cfg),
        "cuBLAS": lambda: torch.matmul(a, b),
    }
    return fns, (a, b, c)


def fit_line(points):
    """(a, b) of the least-squares line t = a + b k through [(k, t), ...] (two k or more)."""
    n = len(points)
    mk = sum(k for k, _ in points) / n
    mt = sum(t for _, t in points) / n
    b = (sum((k - mk) * (t - mt) for k, t in points) /
         sum((k - mk) ** 2 for k, _ in points))
    return mt - b * mk, b


def print_fit(times, bk):
    """Each kernel's least-squares time = a + b K (us, us per K step of bk), and b and a
    as multiples of cuBLAS's; returns {"dtype kernel": {"a_us", "b_us_per_step"}}."""
    print(f"{'fit: time = a + b K':>28}  {'a us':>8}  {'b us/step':>9}  {'b / cuBLAS':>10}  "
          f"{'a / cuBLAS':>10}")
    fits = {}
    for key, pts in times.items():
        a, b = fit_line([(k, ms * 1e3) for k, ms in pts])
        fits[key] = (a, b * bk)
    for (dt, name), (a, b) in fits.items():
        ca, cb = fits.get((dt, "cuBLAS"), (a, b))
        print(f"{dt + ' ' + name:>28}  {a:8.1f}  {b:9.3f}  {b / cb:10.3f}  {a / ca:10.3f}")
    return {f"{dt} {name}": {"a_us": a, "b_us_per_step": b} for (dt, name), (a, b) in fits.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--parts", default="matmul,attention")
    ap.add_argument("--ks", default="4096", help="K of the matmuls (M = N = 4096)")
    ap.add_argument("--json", help="write the matmul times (and the fit) here")
    args = ap.parse_args()
    import torch
    from tilec.tools.tensor_descriptor import TensorDescriptor
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))
    ks = dict(mm_ptr=mm_ptr, mm_kdesc=mm_kdesc, mm_hdesc=mm_hdesc, attn_kdesc=attn_kdesc,
              attn_hdesc=attn_hdesc)
    timer = Timer(torch, args.reps, flush=True, behind_sleep=True)
    report = lambda name, fl, ms, err="": print(  # noqa: E731
        f"{name:>28}  {fl / ms / 1e9:7.1f} TFLOP/s  {ms * 1e3:8.1f} us  {err}", flush=True)
    if "matmul" in args.parts:
        times = {}  # (dtype, kernel) -> [(K, ms)]
        for dt, kk in [(d, int(k)) for d in (torch.float16, torch.bfloat16)
                       for k in args.ks.split(",")]:
            n, BK = 4096, 64
            fns, (a, b, c) = matmul_case(torch, dt, kk, n)
            ref = torch.matmul(a.float(), b.float())
            errs = {}
            for name in ("ptr", "kdesc", "hdesc"):
                c.zero_()
                fns[name]()
                torch.cuda.synchronize()
                errs[name] = f"max err {(c.float() - ref).abs().max().item():.3g}"
            for name, ms in timer.interleaved_ms(fns).items():
                report(f"matmul {str(dt)[6:]} 4096x4096x{kk} {name}", 2 * n * n * kk, ms,
                       errs.get(name, ""))
                times.setdefault((str(dt)[6:], name), []).append((kk, ms))
        fit = print_fit(times, BK) if len(args.ks.split(",")) > 1 else {}
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(), "m": 4096, "n": 4096,
                           "times_us": {f"{dt} {name}": {str(k): ms * 1e3 for k, ms in pts}
                                        for (dt, name), pts in times.items()},
                           "fit": fit}, f, indent=1)
    if "attention" in args.parts:
        seed = load_seeds("tilec").fused_attention_kernel
        for n_ctx in (1024, 4096):
            z, h, d, BM, BN = 4, 32, 64, 128, 64
            g = torch.Generator(device="cuda").manual_seed(0)
            q, k, v = (0.5 * torch.randn((z, h, n_ctx, d), device="cuda", generator=g).half()
                       for _ in range(3))
            o = torch.empty_like(q)
            grid = (triton.cdiv(n_ctx, BM), z * h)
            kd = TensorDescriptor.from_tensor(k.view(-1, d), [BN, d])
            vd = TensorDescriptor.from_tensor(v.view(-1, d), [BN, d])
            common = dict(BLOCK_M=BM, BLOCK_N=BN, num_warps=4, num_stages=2)
            fns = {
                "ptr": lambda: seed[grid](q, k, v, o, *q.stride(), *k.stride(), *v.stride(),
                                          *o.stride(), z, h, n_ctx, BLOCK_K=d, **common),
                "kdesc": lambda: ks["attn_kdesc"][grid](
                    q, k, v, o, q.stride(1), q.stride(2), k.stride(1), k.stride(2),
                    v.stride(1), v.stride(2), o.stride(1), o.stride(2), n_ctx, D=d, **common),
                "hdesc": lambda: ks["attn_hdesc"][grid](
                    q, kd, vd, o, q.stride(1), q.stride(2), o.stride(1), o.stride(2), n_ctx,
                    D=d, **common),
                "SDPA": lambda: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, scale=1.0),
            }
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0).float()
            errs = {}
            for name in ("ptr", "kdesc", "hdesc"):
                o.zero_()
                fns[name]()
                torch.cuda.synchronize()
                errs[name] = f"max err {(o.float() - ref).abs().max().item():.3g}"
            for name, ms in timer.interleaved_ms(fns).items():
                report(f"attention N{n_ctx} {name}", 4 * z * h * n_ctx * n_ctx * d, ms,
                       errs.get(name, ""))


if __name__ == "__main__":
    main()
