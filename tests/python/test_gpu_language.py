"""The language suite on a CUDA GPU, compact: representative kernels of test_lang_*.py
(binary operators over dtype pairs, unary operators, casts, reductions on each axis, scans,
control flow, atomics, 1-/2-/3-D grids, memory, math, shape ops, device_print) run on CUDA
tensors and on the CPU tile interpreter with the same inputs, and must agree: bitwise for
integers and exact float operations, within a tolerance for fp32/fp64 math (looser for the
approximated exp/log family). Atomics whose order is not fixed are checked for the
invariants both runs must meet. tl.dot is in test_gpu_dot.py; every case of the suites
runs on the GPU in test_gpu_lang_suites.py.

Every test is marked `gpu` and skipped without torch, a CUDA device or a driver;
scripts/gpu_check.sh runs them (`pytest -m gpu`) on a GPU machine."""

import ctypes
import itertools
from collections import Counter

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec import _C
from lang_util import (PromotionError, convert, is_float, jit_from_source, load_src,
                       out_storage, result_dtype, store_src, to_storage, values)
from test_lang_binary import _binary_kernel
from test_lang_control import _divmod, _early_exit, _nested_outer
from test_lang_debug import _print_tile
from test_lang_math import UNARY
from test_lang_memory import _grid_kernel
from test_lang_reduce import (_argmax_combine, _custom_max, _mul_combine, _pair_scan,
                              _running_max)

from gpu_util import HAVE_GPU, torch
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU, its driver and torch")]

N = 64
_TORCH = {"bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
          "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
          "float16": "float16", "float32": "float32", "float64": "float64"}


# --- running a kernel on both sides ----------------------------------------------------------

def to_dev(a):
    """A CUDA copy of numpy array `a`, moved as bytes (torch lacks some numpy dtypes'
    conversions, never their storage)."""
    a = np.ascontiguousarray(a)
    raw = torch.from_numpy(a.reshape(-1).view(np.uint8).copy()).to("cuda")
    return raw.view(getattr(torch, _TORCH[a.dtype.name])).reshape(a.shape)


def from_dev(t, like):
    return t.reshape(-1).view(torch.uint8).cpu().numpy().view(like.dtype).reshape(like.shape)


def sync():
    torch.cuda.synchronize()


def run_both(kernel, grid, *args, **meta):
    """Launches `kernel` on the CPU interpreter with numpy copies of the array arguments
    and on the GPU with CUDA copies; returns (cpu, gpu): the array arguments afterwards."""
    host = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid](*host, **meta)
    dev = [to_dev(a) if isinstance(a, np.ndarray) else a for a in args]
    r = kernel[grid](*dev, **meta)
    sync()
    assert r is not None and r.metadata.target.startswith("cuda"), r
    cpu = [a for a in host if isinstance(a, np.ndarray)]
    gpu = [from_dev(d, a) for d, a in zip(dev, args) if isinstance(a, np.ndarray)]
    return cpu, gpu


def agree(kernel, grid, *args, tol=None, **meta):
    """run_both, then every array argument must be equal on both sides: exactly, or for
    float arrays within tol = (rtol, atol). Returns the CPU arrays."""
    cpu, gpu = run_both(kernel, grid, *args, **meta)
    for i, (c, g) in enumerate(zip(cpu, gpu)):
        msg = f"array argument {i} ({c.dtype}): GPU vs CPU interpreter"
        if tol is None or c.dtype.kind != "f":
            np.testing.assert_array_equal(g, c, err_msg=msg)
        else:
            np.testing.assert_allclose(g.astype(np.float64), c.astype(np.float64), rtol=tol[0],
                                       atol=tol[1], equal_nan=True, err_msg=msg)
    return cpu


def _accepted(op, xn, yn):
    try:
        result_dtype(op, xn, yn)
        return True
    except PromotionError:
        return False


# --- elementwise operators -------------------------------------------------------------------

BIN_PAIRS = [("int32", "int32"), ("int8", "uint8"), ("int64", "int32"), ("uint32", "int32"),
             ("int16", "float16"), ("float16", "float16"), ("bfloat16", "bfloat16"),
             ("bfloat16", "float32"), ("float32", "float32"), ("float64", "int64")]
BIN_OPS = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", ">=", "==", "!="]


@pytest.mark.parametrize("op,xn,yn", [(op, x, y) for op in BIN_OPS for x, y in BIN_PAIRS
                                      if _accepted(op, x, y)])
def test_binary(op, xn, yn):
    rng = np.random.default_rng(1)
    x = values(xn, N, rng)
    y = values(yn, N, rng, nonzero=op in ("/", "//", "%"))
    if op in ("<<", ">>"):
        y = (np.abs(y.astype(np.int64)) % 8).astype(y.dtype)
    out = result_dtype(op, xn, yn)
    k = _binary_kernel(f"x {op} y", xn, yn, out)
    # fp32 `/` is Triton's div.full.f32 on the GPU (within 2 ulp); fp64 `/` rounds exactly
    tol = (2.5e-7, 0) if op == "/" and out != "float64" else None
    agree(k, (1,), to_storage(x, xn), to_storage(y, yn), np.zeros(N, out_storage(out)), N=N,
          tol=tol)


@pytest.mark.parametrize("xn", ["int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_full_range_int_ops(xn):
    k = jit_from_source("""
        @triton.jit
        def kernel(X, Y, S, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            y = tl.load(Y + offs)
            s = tl.load(S + offs)
            tl.store(Z + 0 * N + offs, x + y)
            tl.store(Z + 1 * N + offs, x - y)
            tl.store(Z + 2 * N + offs, x * y)
            tl.store(Z + 3 * N + offs, x // y)
            tl.store(Z + 4 * N + offs, x % y)
            tl.store(Z + 5 * N + offs, x << s)
            tl.store(Z + 6 * N + offs, x >> s)
            tl.store(Z + 7 * N + offs, (x < y).to(x.dtype))
        """)
    rng = np.random.default_rng(2)
    info = np.iinfo(np.dtype(xn))
    x = rng.integers(info.min, info.max, N, dtype=np.dtype(xn), endpoint=True)
    y = rng.integers(info.min, info.max, N, dtype=np.dtype(xn), endpoint=True)
    x[:4] = [info.min, info.max, 0, 1]
    y = np.where(y == 0, 7, y).astype(x.dtype)
    if info.min < 0:  # INT_MIN // -1 overflows (undefined)
        y = np.where((y == -1) & (x == info.min), 3, y).astype(x.dtype)
    s = rng.integers(0, info.bits, N).astype(x.dtype)
    agree(k, (1,), x, y, s, np.zeros(8 * N, x.dtype), N=N)


@pytest.mark.parametrize("xn", ["int8", "uint8", "int32", "int64", "float16", "bfloat16",
                                "float32", "float64"])
def test_unary(xn):
    inv = f"{store_src('Z + 2 * N + offs', '~x', xn)}" if not is_float(xn) else "pass"
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            {store_src("Z + offs", "-x", xn)}
            {store_src("Z + N + offs", "+x", xn)}
            {inv}
            {store_src("Z + 3 * N + offs", "tl.abs(x)", xn)}
        """)
    x = values(xn, N, np.random.default_rng(3))
    agree(k, (1,), to_storage(x, xn), np.zeros(4 * N, out_storage(xn)), N=N)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_rounds_every_operation(dt):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, W, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", dt)}
            y = {load_src("Y + offs", dt)}
            w = {load_src("W + offs", dt)}
            {store_src("Z + offs", "(x * y + w) - x * y", dt)}
            {store_src("Z + N + offs", "x + w + w + w", dt)}
            {store_src("Z + 2 * N + offs", f"(x / y).to(tl.{dt})", dt)}
        """)
    rng = np.random.default_rng(4)
    x = convert((rng.random(N) * 200 + 50).astype(np.float32), "float32", dt)
    y = convert((rng.random(N) * 3 + 1).astype(np.float32), "float32", dt)
    w = convert((rng.random(N) * 0.5).astype(np.float32), "float32", dt)
    z = np.zeros(3 * N, out_storage(dt))
    agree(k, (1,), to_storage(x, dt), to_storage(y, dt), to_storage(w, dt), z, N=N)


def test_float_special_values_where_minimum_maximum_clamp():
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        y = tl.load(Y + offs)
        tl.store(Z + 0 * N + offs, x * y)
        tl.store(Z + 1 * N + offs, x / y)
        tl.store(Z + 2 * N + offs, tl.minimum(x, y))
        tl.store(Z + 3 * N + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
        tl.store(Z + 4 * N + offs, tl.clamp(x, -1.0, 2.0))
        tl.store(Z + 5 * N + offs, tl.where(x < y, x, y + 0.5))
        tl.store(Z + 6 * N + offs, (x == y).to(tl.float32) + (x != x).to(tl.float32) * 2)

    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.25, 1e-40], np.float32)
    x = np.repeat(sp, 8)
    y = np.tile(sp, 8)
    agree(k, (1,), x, y, np.zeros(7 * N, np.float32), N=N)


# --- casts -----------------------------------------------------------------------------------

CAST_TYPES = ["int8", "uint8", "int32", "int64", "uint64", "float16", "bfloat16", "float32",
              "float64"]


@pytest.mark.parametrize("src,dst", list(itertools.product(CAST_TYPES, CAST_TYPES + ["int1"])))
def test_cast(src, dst):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", src)}
            {store_src("Z + offs", f"x.to(tl.{dst})", dst)}
        """)
    x = values(src, N, np.random.default_rng(5))
    if is_float(src) and dst.startswith("uint"):
        x = np.abs(x)  # negative floats to unsigned ints are undefined
    agree(k, (1,), to_storage(x, src), np.zeros(N, out_storage(dst)), N=N)


@pytest.mark.parametrize("rounding", [None, "rtne", "rtz"])
def test_float_downcast_rounding(rounding):
    arg = "" if rounding is None else f', fp_downcast_rounding="{rounding}"'
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, D, H, B, F, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            tl.store(H + offs, x.to(tl.float16{arg}))
            tl.store(B + offs, x.to(tl.bfloat16{arg}).to(tl.uint16, bitcast=True))
            tl.store(F + offs, tl.load(D + offs).to(tl.float32{arg}))
        """)
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(N) * 1000).astype(np.float32)
    # no NaN: bf16 is compared as bits, and NaN payloads may differ
    x[:6] = [np.inf, -np.inf, 65519.0, 70000.0, -1e-8, 0.0]
    d = rng.standard_normal(N) * 1e3
    agree(k, (1,), x, d, np.zeros(N, np.float16), np.zeros(N, np.uint16),
          np.zeros(N, np.float32), N=N)


def test_bitcast():
    @triton.jit
    def k(X, Z, W, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, x.to(tl.int32, bitcast=True) ^ 0x7FFFFFFF)
        tl.store(W + offs, tl.cast(x, tl.uint32, bitcast=True).to(tl.float32, bitcast=True))

    x = np.random.default_rng(7).standard_normal(N).astype(np.float32)
    agree(k, (1,), x, np.zeros(N, np.int32), np.zeros(N, np.float32), N=N)


# --- reductions and scans --------------------------------------------------------------------

REDUCE_OPS = [("sum", "float32", "float32"), ("sum", "int32", "int32"), ("sum", "int8", "int32"),
              ("max", "float32", "float32"), ("min", "int32", "int32"),
              ("max", "float16", "float16"), ("argmax", "float32", "int32"),
              ("argmin", "int32", "int32"), ("xor_sum", "int32", "int32")]
REDUCE_SHAPES = [((32, 64), 0), ((32, 64), 1), ((32, 64), None), ((1, 256), 1), ((256, 2), 0),
                 ((8, 1024), 1)]


@pytest.mark.parametrize("shape,axis", REDUCE_SHAPES)
@pytest.mark.parametrize("op,dt,out", REDUCE_OPS)
def test_reduce(op, dt, out, shape, axis):
    M, R = shape
    dest = {None: "Z", 0: "Z + tl.arange(0, R)", 1: "Z + tl.arange(0, M)"}[axis]
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, M: tl.constexpr, R: tl.constexpr):
            x = tl.load(X + tl.arange(0, M)[:, None] * R + tl.arange(0, R)[None, :])
            tl.store({dest}, tl.{op}(x, axis={axis}))
        """)
    rng = np.random.default_rng(8)
    if dt.startswith("float"):
        x = rng.standard_normal(shape).astype(dt)
    else:  # a small range: ties, so argmin's choice of the first index shows
        x = rng.integers(-50, 50, shape).astype(dt)
    n_out = {None: 1, 0: R, 1: M}[axis]
    for num_warps in (1, 4, 8):
        agree(k, (1,), x, np.zeros(n_out, out), M=M, R=R, num_warps=num_warps,
              tol=(1e-5, 1e-5))


def test_reduce_custom_combiners_and_keep_dims():
    @triton.jit
    def k(X, Z, V, I, K, M: tl.constexpr, R: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, R)[None, :]
        x = tl.load(X + rm * R + rn)
        tl.store(Z + tl.arange(0, M), tl.reduce(x, 1, _custom_max))
        tl.store(Z + M + tl.arange(0, R), tl.reduce(x, axis=0, combine_fn=_custom_max))
        tl.store(Z + M + R, tl.reduce(x, None, _custom_max))
        v, i = tl.reduce((x, tl.broadcast_to(rn, (M, R))), 1, _argmax_combine)
        tl.store(V + tl.arange(0, M), v)
        tl.store(I + tl.arange(0, M), i)
        tl.store(K + rm * R + rn, x - tl.max(x, 1, keep_dims=True))

    x = np.random.default_rng(9).integers(-20, 20, (16, 32)).astype(np.int32)
    agree(k, (1,), x, np.zeros(16 + 32 + 1, np.int32), np.zeros(16, np.int32),
          np.zeros(16, np.int32), np.zeros((16, 32), np.int32), M=16, R=32)


def test_reduce_3d_and_wrapping_product():
    @triton.jit
    def k(X, Z0, Z1, Z2, P, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
        ia = tl.arange(0, A)[:, None, None]
        ib = tl.arange(0, B)[None, :, None]
        ic = tl.arange(0, C)[None, None, :]
        x = tl.load(X + (ia * B + ib) * C + ic)
        tl.store(Z0 + tl.arange(0, B)[:, None] * C + tl.arange(0, C)[None, :], tl.sum(x, 0))
        tl.store(Z1 + tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :], tl.max(x, 1))
        tl.store(Z2 + tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :], tl.argmin(x, 2))
        tl.store(P, tl.reduce(tl.reshape(x, [A * B * C]), 0, _mul_combine))

    x = np.random.default_rng(10).integers(-3, 4, (4, 8, 32)).astype(np.int32)
    agree(k, (1,), x, np.zeros(8 * 32, np.int32), np.zeros(4 * 32, np.int32),
          np.zeros(4 * 8, np.int32), np.zeros(1, np.int32), A=4, B=8, C=32)


@pytest.mark.parametrize("op,dt", [("cumsum", "int32"), ("cumsum", "float32"),
                                   ("cumprod", "int32"), ("cumprod", "float32")])
@pytest.mark.parametrize("axis,reverse", [(0, False), (1, False), (1, True), (0, True)])
def test_scan(op, dt, axis, reverse):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, M: tl.constexpr, R: tl.constexpr):
            offs = tl.arange(0, M)[:, None] * R + tl.arange(0, R)[None, :]
            x = tl.load(X + offs)
            tl.store(Z + offs, tl.{op}(x, axis={axis}, reverse={reverse}))
        """)
    rng = np.random.default_rng(11)
    if dt == "float32":
        x = rng.uniform(0.9, 1.1, (16, 64)).astype(np.float32)
    else:
        x = rng.integers(-3, 4, (16, 64)).astype(np.int32)
    agree(k, (1,), x, np.zeros_like(x), M=16, R=64, tol=(1e-5, 1e-5))


def test_scan_long_rows_and_custom_combiners():
    @triton.jit
    def k(X, A, B, Z, ZM, ZA, ZB, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, x.cumsum(0))
        tl.store(ZM + offs, tl.associative_scan(x, 0, _running_max, reverse=True))
        ra, rb = tl.associative_scan((tl.load(A + offs), tl.load(B + offs)), 0, _pair_scan)
        tl.store(ZA + offs, ra)
        tl.store(ZB + offs, rb)

    rng = np.random.default_rng(12)
    n = 4096
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    a = rng.choice(np.array([-1, 1], np.int32), n)
    b = rng.integers(-5, 6, n).astype(np.int32)
    z = [np.zeros(n, np.int32) for _ in range(4)]
    agree(k, (1,), x, a, b, *z, N=n, num_warps=8)


# --- control flow ----------------------------------------------------------------------------

def test_if_else_merges_values_and_elif_chains():
    @triton.jit
    def k(X, V, Z, W, N: tl.constexpr):
        pid = tl.program_id(0)
        offs = tl.arange(0, N)
        x = tl.load(X + pid * N + offs)
        if pid % 2 == 0:
            y = x * 2
            s = 1
        else:
            y = x - 1
            s = -1
        tl.store(Z + pid * N + offs, y * s)
        v = tl.load(V + pid)
        r = 0.0
        if v < 0:
            r = -1.0
        elif v == 0:
            r = 100.0
        elif v < 10:
            r = v * 10.5
        tl.store(W + pid, r + tl.where(v > 5, 1.5, 0.5))

    x = np.arange(6 * 16, dtype=np.int32)
    v = np.array([-3, 0, 4, 9, 10, 50], np.int32)
    agree(k, (6,), x, v, np.zeros(6 * 16, np.int32), np.zeros(6, np.float32), N=16)


@pytest.mark.parametrize("start,stop,step", [(0, 10, 1), (2, 11, 3), (5, 5, 1), (-4, 4, 3),
                                             (7, 3, 1), (10, -3, -2)])
def test_for_runtime_bounds_and_step(start, stop, step):
    @triton.jit
    def k(X, Z, start, stop, step, N: tl.constexpr):
        offs = tl.arange(0, N)
        acc = tl.zeros([N], dtype=tl.float32)
        count = 0
        last = -999
        for i in range(start, stop, step):
            acc += tl.load(X + (i + 10) * N + offs) * i
            count += 1
            last = i
        tl.store(Z + offs, acc)
        tl.store(Z + N, count.to(tl.float32))
        tl.store(Z + N + 1, last.to(tl.float32))

    x = np.random.default_rng(13).standard_normal((25, 32)).astype(np.float32)
    # exact agreement: no fma contraction of `acc += x * i` on the GPU (as Triton's tests do)
    agree(k, (1,), x, np.zeros(34, np.float32), start, stop, step, N=32, enable_fp_fusion=False)


def test_while_loops_and_nested_loops():
    @triton.jit
    def k(Z, n, N: tl.constexpr):
        steps = 0
        m = n
        while m != 1:  # Collatz steps of n
            if m % 2 == 0:
                m = m // 2
            else:
                m = 3 * m + 1
            steps += 1
        x = tl.arange(0, N) + 1
        it = 0
        while tl.max(x, axis=0) < 1000:
            x = x * 2
            it += 1
        total = 0
        for i in range(n):
            for j in range(i, n + 2):
                if (i + j) % 3 == 0:
                    total += i * j
        tl.store(Z + tl.arange(0, N), x)
        tl.store(Z + N, steps)
        tl.store(Z + N + 1, it)
        tl.store(Z + N + 2, total)

    for n in (1, 6, 27):
        cpu = agree(k, (1,), np.zeros(11, np.int32), n, N=8)
        assert cpu[0][9] == 7


def test_early_return_and_static_range_and_constexpr_branches():
    @triton.jit
    def k(X, Z, n, N: tl.constexpr, MODE: tl.constexpr):
        pid = tl.program_id(0)
        if pid >= n:
            return
        offs = pid * N + tl.arange(0, N)
        x = tl.load(X + offs)
        for s in tl.static_range(3):
            x = x * 2 + s
        if MODE == "neg":
            x = -x
        else:
            x = x + 1000
        tl.store(Z + offs, x)

    x = np.arange(64, dtype=np.float32)
    for mode in ("neg", "add"):
        agree(k, (8,), x, np.zeros(64, np.float32), 5, N=8, MODE=mode)


def test_nested_jit_calls():
    @triton.jit
    def k(X, Q, R, T, E, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        q, r = _divmod(x, 4)
        tl.store(Q + offs, q)
        tl.store(R + offs, r)
        tl.store(T + offs, _nested_outer(x))
        tl.store(E + tl.program_id(0), _early_exit(tl.load(X + tl.program_id(0))))

    x = np.arange(-16, 16, dtype=np.int32)
    z = [np.zeros(32, np.int32) for _ in range(4)]
    agree(k, (32,), x, *z, N=32)


# --- atomics ---------------------------------------------------------------------------------

G = 256  # programs


@pytest.mark.parametrize("dt,inc", [(np.int32, 1), (np.int64, 3), (np.uint32, 2),
                                    (np.float32, 0.5), (np.float64, 0.25)])
def test_atomic_add_counter(dt, inc):
    @triton.jit
    def k(C, inc):
        tl.atomic_add(C, inc)

    cpu = agree(k, (G,), np.zeros(1, dt), inc)
    assert cpu[0][0] == G * inc


def test_atomic_add_old_values_and_tiles():
    @triton.jit
    def k(C, Old, T, M, N: tl.constexpr):
        pid = tl.program_id(0)
        tl.store(Old + pid, tl.atomic_add(C, 1))
        offs = tl.arange(0, N)
        tl.atomic_add(T + offs % 4, offs.to(tl.float32))  # repeated addresses in a tile
        tl.atomic_add(M + offs, 1, mask=offs < 5)
        tl.atomic_max(M + N + offs, offs * 10 + pid, mask=offs % 2 == 0)

    for c, old, t, m in run_both(k, (G,), np.zeros(1, np.int32), np.full(G, -1, np.int32),
                                 np.zeros(4, np.float32), np.zeros(16, np.int32), N=8):
        assert c[0] == G
        np.testing.assert_array_equal(np.sort(old), np.arange(G))
        np.testing.assert_array_equal(t, G * np.array([4, 6, 8, 10], np.float32))
        np.testing.assert_array_equal(m[:8], [G] * 5 + [0] * 3)
        np.testing.assert_array_equal(m[8:], [G - 1, 0, G + 19, 0, G + 39, 0, G + 59, 0])


def test_atomic_max_min_bitwise_xchg_cas():
    @triton.jit
    def k(P, U, F, B, X, Old, Cas):
        pid = tl.program_id(0)
        v = (pid * 37) % 64 - 20
        tl.atomic_max(P, v)
        tl.atomic_min(P + 1, v)
        u = (pid * 5000).to(tl.uint32) + 3000000000
        tl.atomic_max(U, u)
        tl.atomic_min(U + 1, u)
        f = -(pid + 1).to(tl.float32) * 0.5
        tl.atomic_max(F, f)
        tl.atomic_min(F + 1, f)
        bit = (1 << (pid % 32)).to(tl.int32)
        tl.atomic_or(B, bit)
        tl.atomic_and(B + 1, ~bit)
        tl.atomic_xor(B + 2, pid * 7 + 1)
        tl.store(Old + pid, tl.atomic_xchg(X, pid + 1))
        tl.store(Cas + 1 + pid, tl.atomic_cas(Cas, 0, pid + 1, sem="acq_rel", scope="gpu"))

    args = (np.array([-1000, 1000], np.int32), np.array([0, 0xFFFFFFFF], np.uint32),
            np.array([-1000.0, 1000.0], np.float32), np.array([0, -1, 5], np.int32),
            np.zeros(1, np.int32), np.full(G, -1, np.int32), np.full(G + 1, -1, np.int32))
    args[6][0] = 0
    vals = (np.arange(G) * 37) % 64 - 20
    for p, u, f, b, x, old, cas in run_both(k, (G,), *args):
        np.testing.assert_array_equal(p, [vals.max(), vals.min()])
        np.testing.assert_array_equal(u, [3000000000 + 5000 * (G - 1), 3000000000])
        np.testing.assert_array_equal(f, [-0.5, -G * 0.5])
        np.testing.assert_array_equal(b, [-1, 0, 5 ^ np.bitwise_xor.reduce(np.arange(G) * 7 + 1)])
        # the exchanges form a chain: every value but the last one is returned once
        np.testing.assert_array_equal(np.sort(np.append(old, x[0])), np.arange(G + 1))
        winners = np.nonzero(cas[1:] == 0)[0]  # the first writer wins, the others see it
        assert len(winners) == 1 and cas[0] == winners[0] + 1
        assert (cas[1:][cas[1:] != 0] == cas[0]).all()


def test_atomic_cas_spin_lock():
    @triton.jit
    def k(L, C, Tries, LIMIT: tl.constexpr):
        pid = tl.program_id(0)
        tries = 0
        while (tl.atomic_cas(L, 0, 1) == 1) & (tries < LIMIT):
            tries += 1
        v = tl.load(C, volatile=True)  # critical section: a plain read-modify-write
        tl.store(C, v + 1)
        tl.atomic_xchg(L, 0)
        tl.store(Tries + pid, tries)

    for lock, c, tries in run_both(k, (64,), np.zeros(1, np.int32), np.zeros(1, np.int32),
                                   np.zeros(64, np.int32), LIMIT=1 << 20):
        assert (tries < (1 << 20)).all() and c[0] == 64 and lock[0] == 0


# --- grids and memory ------------------------------------------------------------------------

@pytest.mark.parametrize("grid", [(7,), (3, 5), (2, 3, 4), (5, 1, 2), (70000,), (3, 300, 2)])
def test_grid_ids(grid):
    n = int(np.prod(grid))
    agree(_grid_kernel, grid, np.full((n, 6), -1, np.int32))


def test_many_programs_2d_tiles():
    @triton.jit
    def k(X, Z, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        offs = rm[:, None] * stride + rn[None, :]
        x = tl.load(X + offs, mask=mask, other=0.0)
        tl.store(Z + offs, x * 2 + pm * 1000 + pn, mask=mask)

    M, Nc = 300, 533
    x = np.random.default_rng(14).standard_normal((M, Nc)).astype(np.float32)
    for bm, bn, nw in [(16, 8, 1), (32, 64, 4), (64, 128, 8)]:
        agree(k, (triton.cdiv(M, bm), triton.cdiv(Nc, bn)), x, np.zeros((M, Nc), np.float32),
              M, Nc, Nc, BM=bm, BN=bn, num_warps=nw)


def test_masked_loads_other_and_scalar_access():
    @triton.jit
    def k(X, Z, S, Y2, Z2, n, M, N: tl.constexpr):
        offs = tl.arange(0, N)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m, other=-1.5))
        tl.store(Z + N + offs, tl.load(X + offs, mask=m, other=offs.to(tl.float32) * 100))
        tl.store(Z + 2 * N + offs, tl.load(X + offs, mask=m), mask=m)
        a = tl.load(X)
        b = tl.load(X + 3)
        tl.store(S, a + b)
        tl.store(S + 1, a * b, mask=tl.program_id(0) == 0)
        tl.store(S + 2, tl.load(X + 1000, mask=tl.program_id(0) > 100, other=-1.0))
        rm = tl.arange(0, 4)
        y = tl.load(Y2 + rm[:, None] * N + offs[None, :], mask=rm[:, None] < M, other=7)
        tl.store(Z2 + rm[:, None] * N + offs[None, :], y)

    x = np.arange(5, dtype=np.float32) + 1  # 5 elements: the masks guard the rest
    y2 = np.arange(3 * 64, dtype=np.int16).reshape(3, 64)
    agree(k, (1,), x, np.full(3 * 64, 9.0, np.float32), np.zeros(3, np.float32), y2,
          np.zeros((4, 64), np.int16), 5, 3, N=64)


def test_pointer_arithmetic_offsets_and_hints():
    @triton.jit
    def k(X, U, B, Z, ZU, ZB, stride, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        ptrs = X + offs * stride
        acc = tl.zeros([BLOCK], dtype=tl.float64)
        for _ in range(0, n):
            acc += tl.load(ptrs, cache_modifier=".cg", eviction_policy="evict_last")
            ptrs += 1
        tl.store(Z + offs, acc, cache_modifier=".cs")
        tl.store(Z + BLOCK + offs, tl.load(X + offs.to(tl.int64) * 2))
        u = tl.load(U + offs)  # uint8 offsets above 127 are zero-extended
        tl.store(ZU + offs, tl.load(X + u, eviction_policy="evict_first").to(tl.int32))
        b = tl.load(B + offs)
        tl.store(ZB + offs, tl.where(b, 1, -1).to(tl.int8))
        tl.store(ZB + BLOCK + offs, (~b).to(tl.int8))

    x = np.arange(256 * 8, dtype=np.float64)
    u = np.random.default_rng(15).integers(0, 256, 32).astype(np.uint8)
    b = np.random.default_rng(16).integers(0, 2, 32).astype(bool)
    agree(k, (1,), x, u, b, np.zeros(64, np.float64), np.zeros(32, np.int32),
          np.zeros(64, np.int8), 8, 5, BLOCK=32)


@pytest.mark.parametrize("dt", ["int8", "float16", "float32", "int64"])
def test_vectorised_copy_with_ragged_tails(dt):
    @triton.jit
    def k(X, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m) + 1, mask=m)

    for n in (1, 127, 1000, 4099):
        x = values(dt, n, np.random.default_rng(n))
        agree(k, (triton.cdiv(n, 512),), x, np.zeros(n + 16, dt), n, BLOCK=512)


def test_misaligned_tensor_views():
    @triton.jit
    def k(X, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m) * 3, mask=m)

    base = torch.arange(4100, device="cuda", dtype=torch.float32)
    out = torch.zeros_like(base)
    for s in (1, 2, 3, 4):  # views whose data pointers are not 16-byte aligned
        n = 4096 - s
        out.zero_()
        k[(triton.cdiv(n, 1024),)](base[s:], out[s + 1:], n, BLOCK=1024)
        sync()
        want = torch.zeros_like(base)
        want[s + 1:s + 1 + n] = base[s:s + n] * 3
        torch.testing.assert_close(out, want, rtol=0, atol=0)


# --- math ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_math(name, dt):
    _, gen, rtol, atol = UNARY[name]
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            tl.store(Z + offs, tl.{name}(tl.load(X + offs)))
        """)
    x = gen(np.random.default_rng(41)).astype(dt)
    scale = 1e-6 if dt == "float64" else 1.0
    # both sides are within (rtol, atol) of the truth: within twice that of each other
    agree(k, (1,), x, np.zeros(len(x), dt), N=len(x), tol=(2 * rtol * scale, 2 * atol * scale))


def test_fma_umulhi_cdiv_sigmoid_softmax():
    @triton.jit
    def k(X, Y, W, A, B, Z, ZI, ZU, N: tl.constexpr):
        offs = tl.arange(0, N)
        x, y, w = tl.load(X + offs), tl.load(Y + offs), tl.load(W + offs)
        tl.store(Z + offs, tl.fma(x, y, w))
        tl.store(Z + N + offs, tl.sigmoid(x))
        tl.store(Z + 2 * N + offs, tl.softmax(x))
        a, b = tl.load(A + offs), tl.load(B + offs)
        tl.store(ZI + offs, tl.umulhi(a, b))
        tl.store(ZI + N + offs, tl.cdiv(a, 7))
        tl.store(ZU + offs, tl.umulhi(a.to(tl.uint32, bitcast=True), b.to(tl.uint32,
                                                                            bitcast=True)))

    rng = np.random.default_rng(17)
    x, y, w = (rng.standard_normal(N).astype(np.float32) for _ in range(3))
    a = rng.integers(-2**31, 2**31, N).astype(np.int32)
    b = rng.integers(-2**31, 2**31, N).astype(np.int32)
    agree(k, (1,), x, y, w, a, b, np.zeros(3 * N, np.float32), np.zeros(2 * N, np.int32),
          np.zeros(N, np.uint32), N=N, tol=(4e-6, 1e-7))


# --- shape ops -------------------------------------------------------------------------------

def test_trans_permute_reshape_join_split_broadcast():
    @triton.jit
    def k(X, T, P, R, J, S, BC, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(T + rn[:, None] * M + rm[None, :], tl.trans(x))
        x3 = tl.reshape(x, [2, M // 2, N])
        p = tl.permute(x3, (2, 0, 1))  # [N, 2, M // 2]
        i0 = tl.arange(0, N)[:, None, None]
        i1 = tl.arange(0, 2)[None, :, None]
        i2 = tl.arange(0, M // 2)[None, None, :]
        tl.store(P + (i0 * 2 + i1) * (M // 2) + i2, p)
        tl.store(R + tl.arange(0, M * N), tl.reshape(x, [M * N]) * 2)
        j = tl.join(x, x + 1000)  # [M, N, 2]
        tl.store(J + (rm[:, None, None] * N + rn[None, :, None]) * 2
                 + tl.arange(0, 2)[None, None, :], j)
        lo, hi = tl.split(j)
        tl.store(S + rm[:, None] * N + rn[None, :], hi - lo * 3)
        row = tl.load(X + rn)
        tl.store(BC + rm[:, None] * N + rn[None, :],
                 tl.broadcast_to(row[None, :], (M, N)) + tl.expand_dims(rm, 1))

    M, Nc = 32, 64
    x = np.arange(M * Nc, dtype=np.int32).reshape(M, Nc)
    t, p, r, s, bc = (np.zeros(M * Nc, np.int32) for _ in range(5))
    outs = [t, p, r, np.zeros(2 * M * Nc, np.int32), s, bc]  # T, P, R, J, S, BC
    for nw in (1, 4):
        agree(k, (1,), x, *outs, M=M, N=Nc, num_warps=nw)


# --- printing --------------------------------------------------------------------------------

def test_device_print_tiles(capfd):
    @triton.jit
    def k2(X, M: tl.constexpr, N: tl.constexpr):
        v = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
        tl.device_print("v ", v)

    def lines():
        out = capfd.readouterr().out
        return Counter(ln for ln in out.splitlines() if ln.startswith("pid ("))

    cases = [(_print_tile, (1,), np.arange(16, dtype=np.int32) * 3 - 7, {"N": 16}),
             (_print_tile, (1,), np.array([1.5, -0.25, 3.0, 100.125], np.float32), {"N": 4}),
             (k2, (1, 2, 1), np.arange(32, dtype=np.float16).reshape(2, 16), {"M": 2, "N": 16})]
    for kern, grid, x, meta in cases:
        capfd.readouterr()
        kern[grid](to_dev(x), **meta)
        sync()
        ctypes.CDLL(None).fflush(None)  # GPU printf goes through C's buffered stdout
        gpu = lines()
        kern[grid](x, **meta)
        cpu = lines()
        assert cpu and gpu == cpu, (gpu, cpu)
