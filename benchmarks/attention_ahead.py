"""What issuing q k^T of the next block before the softmax of this one would be worth for
the seed attention (FlashAttention-3's intra-warpgroup pipelining), measured before any
compiler pass does it:

    python benchmarks/attention_ahead.py [--reps 50] [--ns 1024,4096] [--stages 2]

Rows (D 64, Z 4, H 32, BLOCK_M 128, BLOCK_N 64, 4 warps; TFLOP/s by CUDA events, median):
  seed              the seed kernel as its wrapper launches it (tilec's launch)
  ahead             the same attention written with the rotation in the source: s of block
                    j + 1 is computed in iteration j and carried (one extra, masked, block
                    of keys is multiplied after the last)
  ahead PTX         ahead's PTX through _C.gpu_build (to tell the launch path apart)
  ahead PTX, defer  ahead's PTX with the wait that retires the next block's q k^T right
                    after its issue removed: the wgmma group then runs under the softmax
                    and is retired by the loop's last wait (p v's). Safe here: the ring copies
                    issued meanwhile go to the other stage, and nothing reads the new s
                    before that wait
  SDPA              torch's scaled_dot_product_attention (scale 1)
Each row is checked against SDPA. A measurement for deciding on a pass; it never fails.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_kernels import load_seeds  # noqa: E402

SIG = ("*fp16:16,*fp16:16,*fp16:16,*fp16:16," + "i32:16,i32:16,i32:16,i32:1," * 4 +
       "i32,i32,i32:16")


def ahead_kernel():
    import tilec as triton
    import tilec.language as tl

    @triton.jit
    def attn_ahead(Q, K, V, Out, stride_qz, stride_qh, stride_qm, stride_qk, stride_kz,
                   stride_kh, stride_kn, stride_kk, stride_vz, stride_vh, stride_vn, stride_vk,
                   stride_oz, stride_oh, stride_om, stride_ok, Z, H, N_CTX,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
        k_base = K + off_hz * stride_kh + offs_k[None, :] * stride_kk
        v_base = V + off_hz * stride_vh + offs_k[None, :] * stride_vk
        rows0 = offs_n[:, None]
        s = tl.dot(q, tl.trans(tl.load(k_base + rows0 * stride_kn, mask=rows0 < N_CTX,
                                       other=0.0)))
        for start_n in range(0, N_CTX, BLOCK_N):
            rows = (start_n + offs_n)[:, None]
            v = tl.load(v_base + rows * stride_vn, mask=rows < N_CTX, other=0.0)
            nrows = rows + BLOCK_N
            k_next = tl.load(k_base + nrows * stride_kn, mask=nrows < N_CTX, other=0.0)
            s_next = tl.dot(q, tl.trans(k_next))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            alpha = tl.exp(m_i - m_new)
            p = tl.exp(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
            s = s_next
        acc = acc / l_i[:, None]
        tl.store(Out + off_hz * stride_oh + offs_m[:, None] * stride_om +
                 offs_k[None, :] * stride_ok, acc.to(Out.dtype.element_ty),
                 mask=offs_m[:, None] < N_CTX)

    return attn_ahead


class Case:
    """One problem of the seed attention's benchmarks (D 64, Z 4, H 32, 128-row blocks):
    q, k, v, the output o, SDPA's result, the FLOPs, the grid, the strides as the kernel
    takes them, and `values`: the arguments of its PTX built by _C.gpu_build (the :1
    strides dropped, as the signature SIG specialises them)."""

    def __init__(self, torch, n_ctx):
        z, h, d = 4, 32, 64
        g = torch.Generator(device="cuda").manual_seed(0)
        self.q, self.k, self.v = (
            0.5 * torch.randn((z, h, n_ctx, d), device="cuda", generator=g).half()
            for _ in range(3))
        self.ref = torch.nn.functional.scaled_dot_product_attention(
            self.q, self.k, self.v, scale=1.0).float()
        self.flops = 4 * z * h * n_ctx * n_ctx * d
        self.o = torch.empty_like(self.q)
        self.grid = ((n_ctx + 127) // 128, z * h)
        self.strides = [*self.q.stride(), *self.k.stride(), *self.v.stride(), *self.o.stride()]
        kept = [s for i, s in enumerate(self.strides) if i % 4 != 3]
        self.tail = [z, h, n_ctx]
        self.values = [self.q, self.k, self.v, self.o] + kept + self.tail

    def args(self):
        """The kernel's arguments, for kernel[grid](*args, ...)."""
        return [self.q, self.k, self.v, self.o, *self.strides, *self.tail]


def build_meta(ck, name):
    """(parameter names, metadata) for _C.gpu_build of the PTX `ck` (tilec.compile at SIG)
    holds: 4 pointers and 15 i32 (the :1 strides dropped), 4 warps, its shared memory."""
    md = ck.metadata
    shared = md.get("shared", 0) if isinstance(md, dict) else getattr(md, "shared", 0)
    kinds = ["ptr"] * 4 + ["i32"] * 15
    names = [f"p{i}" for i in range(len(kinds))]
    return names, {"name": name, "params": list(zip(names, kinds)), "num_warps": 4,
                   "shared": max(int(shared), 256)}


def defer_first_wait(ptx):
    """Drop the loop's first `wgmma.wait_group.sync.aligned 0` (the one right after the
    next block's q k^T is committed); None when the loop has no such wait."""
    lines = ptx.split("\n")
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("$L__loop:"))
        i = next(i for i in range(start, len(lines))
                 if "wgmma.wait_group.sync.aligned 0" in lines[i])
    except StopIteration:
        return None
    if "wgmma.commit_group" not in lines[i - 1]:
        return None
    del lines[i]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--ns", default="1024,4096")
    ap.add_argument("--stages", type=int, default=2)
    args = ap.parse_args()
    import torch
    import tilec
    from tilec import _C

    dev = torch.cuda.current_device()
    arch = _C.gpu_device_arch(dev)
    seed = load_seeds("tilec").fused_attention_kernel
    ahead = ahead_kernel()
    consts = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}
    ck = tilec.compile(ahead, signature=SIG, constexprs=consts, num_warps=4,
                       num_stages=args.stages, target=arch)
    ptx = ck.asm["ptx"]
    names, meta = build_meta(ck, "attn_ahead")
    built = {"ahead PTX": _C.gpu_build(ptx, meta, arch, dev)}
    deferred = defer_first_wait(ptx)
    if deferred is None:
        print("defer: no wait to drop in the loop")
    else:
        built["ahead PTX, defer"] = _C.gpu_build(deferred, meta, arch, dev)
    for n_ctx in map(int, args.ns.split(",")):
        c = Case(torch, n_ctx)
        q, k, v, o, ref, flops, grid, values = (c.q, c.k, c.v, c.o, c.ref, c.flops, c.grid,
                                                c.values)
        rows = {
            "seed": lambda: seed[grid](*c.args(), num_warps=4, num_stages=args.stages,
                                       **consts),
            "ahead": lambda: ahead[grid](*c.args(), num_warps=4, num_stages=args.stages,
                                         **consts),
            "SDPA": lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0),
        }
        for name, kern in built.items():
            rows[name] = (lambda kern: lambda: kern.launch((grid[0], grid[1], 1), None, names,
                                                           values, dev))(kern)
        for name, run in rows.items():
            o.zero_()
            run()
            torch.cuda.synchronize()
            err = 0.0 if name == "SDPA" else (o.float() - ref).abs().max().item()
            ms = median_ms(torch, run, args.reps)
            print(f"{name:>18} N{n_ctx}  {flops / ms / 1e9:7.1f} TFLOP/s  max err {err:.2e}",
                  flush=True)


def median_ms(torch, fn, reps):
    """Median milliseconds of `fn` over `reps` launches, each between CUDA events and
    synchronised (the host's time before the launch is not counted)."""
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


if __name__ == "__main__":
    main()
