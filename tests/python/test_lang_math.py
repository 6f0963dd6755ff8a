"""Math builtins against numpy (with tolerances for the approximated functions) and
tl.dot on the CPU: fp16 -> fp32, fp32 with input_precision="ieee", int8 -> int32, with an
accumulator, out_dtype, 3-D batched."""

import math

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import f32_to_bf16_bits, jit_from_source

N = 64

_erf = np.vectorize(math.erf)

UNARY = {
    # name: (numpy reference, input generator, rtol, atol)
    "exp": (np.exp, lambda r: r.uniform(-10, 10, N), 2e-6, 0),
    "exp2": (np.exp2, lambda r: r.uniform(-20, 20, N), 2e-6, 0),
    "log": (np.log, lambda r: r.uniform(1e-3, 1e3, N), 2e-6, 1e-6),
    "log2": (np.log2, lambda r: r.uniform(1e-3, 1e3, N), 2e-6, 1e-6),
    "sqrt": (np.sqrt, lambda r: r.uniform(0, 1e4, N), 2e-7, 0),
    "rsqrt": (lambda x: 1 / np.sqrt(x), lambda r: r.uniform(1e-2, 1e4, N), 2e-6, 0),
    "sin": (np.sin, lambda r: r.uniform(-10, 10, N), 2e-6, 2e-6),
    "cos": (np.cos, lambda r: r.uniform(-10, 10, N), 2e-6, 2e-6),
    "erf": (_erf, lambda r: r.uniform(-3, 3, N), 2e-6, 2e-6),
    "floor": (np.floor, lambda r: r.uniform(-100, 100, N), 0, 0),
    "ceil": (np.ceil, lambda r: r.uniform(-100, 100, N), 0, 0),
    "abs": (np.abs, lambda r: r.uniform(-100, 100, N), 0, 0),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), lambda r: r.uniform(-20, 20, N), 2e-6, 1e-7),
}


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_math(name, dt):
    ref, gen, rtol, atol = UNARY[name]
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            y = tl.{name}(x)
            tl.static_assert(y.dtype == tl.{dt})
            tl.store(Z + offs, y)
        """)
    x = gen(np.random.default_rng(41)).astype(np.dtype(dt))
    z = np.zeros(N, np.dtype(dt))
    k[(1,)](x, z, N=N)
    if dt == "float64" and rtol:
        rtol, atol = rtol * 1e-6, atol * 1e-6
    np.testing.assert_allclose(z, ref(x.astype(np.float64)), rtol=rtol, atol=atol)


def test_math_namespace_and_methods():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, tl.math.exp(x))
        tl.store(Z + N + offs, x.exp())
        tl.store(Z + 2 * N + offs, tl.math.rsqrt(x))
        tl.store(Z + 3 * N + offs, x.sqrt())

    x = np.linspace(0.5, 4, 8).astype(np.float32)
    z = np.zeros(32, np.float32)
    k[(1,)](x, z, N=8)
    np.testing.assert_allclose(z[:8], np.exp(x), rtol=2e-6)
    np.testing.assert_allclose(z[8:16], np.exp(x), rtol=2e-6)
    np.testing.assert_allclose(z[16:24], 1 / np.sqrt(x), rtol=2e-6)
    np.testing.assert_allclose(z[24:], np.sqrt(x), rtol=2e-7)


def test_logical_and_or_methods():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        a, b = x > 0, x < 3
        tl.store(Z + offs, a.logical_and(b).to(tl.int32))
        tl.store(Z + N + offs, a.logical_or(x < -3).to(tl.int32))
        tl.store(Z + 2 * N + offs, (offs % 2).logical_and(b).to(tl.int32))

    x = np.array([-4, -1, 0, 1, 2, 3, 4, 5], np.float32)
    z = np.zeros(24, np.int32)
    k[(1,)](x, z, N=8)
    assert z[:8].tolist() == [0, 0, 0, 1, 1, 0, 0, 0]
    assert z[8:16].tolist() == [1, 0, 0, 1, 1, 1, 1, 1]
    assert z[16:].tolist() == [0, 1, 0, 1, 0, 0, 0, 0]


def test_special_values():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, tl.exp(x))
        tl.store(Z + N + offs, tl.log(x))
        tl.store(Z + 2 * N + offs, tl.sqrt(x))

    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 100.0], np.float32)
    z = np.zeros(24, np.float32)
    k[(1,)](x, z, N=8)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(z[:8], np.exp(x), rtol=2e-6)
        np.testing.assert_array_equal(z[8:16], np.log(x))
        np.testing.assert_array_equal(z[16:], np.sqrt(x))


def test_abs_int_and_fp16():
    @triton.jit
    def k(I, H, ZI, ZH, N: tl.constexpr):
        offs = tl.arange(0, N)
        i = tl.abs(tl.load(I + offs))
        h = tl.abs(tl.load(H + offs))
        tl.static_assert(i.dtype == tl.int32)
        tl.static_assert(h.dtype == tl.float16)
        tl.store(ZI + offs, i)
        tl.store(ZH + offs, h)

    i = np.array([-5, 0, 7, -2**31 + 1], np.int32)
    h = np.array([-1.5, 0.0, 2.25, -65504], np.float16)
    zi, zh = np.zeros(4, np.int32), np.zeros(4, np.float16)
    k[(1,)](i, h, zi, zh, N=4)
    np.testing.assert_array_equal(zi, np.abs(i))
    np.testing.assert_array_equal(zh, np.abs(h))


def test_fma():
    @triton.jit
    def k(X, Y, W, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.fma(tl.load(X + offs), tl.load(Y + offs), tl.load(W + offs)))

    r = np.random.default_rng(42)
    x, y, w = (r.normal(size=N).astype(np.float32) for _ in range(3))
    z = np.zeros(N, np.float32)
    k[(1,)](x, y, w, z, N=N)
    want = (x.astype(np.float64) * y + w).astype(np.float32)
    np.testing.assert_allclose(z, want, rtol=1.2e-7, atol=1e-30)


def test_softmax_and_sigmoid_dtype():
    @triton.jit
    def k(X, Z, ZS, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        s = tl.softmax(x)
        tl.static_assert(s.dtype == tl.float32)
        tl.store(Z + offs, s)
        g = tl.sigmoid(x)
        tl.static_assert(g.dtype == tl.float32)
        tl.store(ZS + offs, g)

    x = np.random.default_rng(43).normal(size=N).astype(np.float32) * 3
    z, zs = np.zeros(N, np.float32), np.zeros(N, np.float32)
    k[(1,)](x, z, zs, N=N)
    e = np.exp(x.astype(np.float64) - x.max())
    np.testing.assert_allclose(z, e / e.sum(), rtol=1e-5)
    np.testing.assert_allclose(zs, 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)


def test_cdiv():
    @triton.jit
    def k(X, Z, N: tl.constexpr, D: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.cdiv(tl.load(X + offs), 4))
        tl.store(Z + N, tl.cdiv(N, D))

    x = np.array([0, 1, 4, 5, 8, 9, 100, 103], np.int32)
    z = np.zeros(9, np.int32)
    k[(1,)](x, z, N=8, D=3)
    np.testing.assert_array_equal(z, [0, 1, 1, 2, 2, 3, 25, 26, 3])


@pytest.mark.parametrize("dt", [np.uint32, np.int32, np.uint64, np.int64])
def test_umulhi(dt):
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.umulhi(tl.load(X + offs), tl.load(Y + offs)))

    r = np.random.default_rng(44)
    bits = np.dtype(dt).itemsize * 8
    # non-negative values, where signed and unsigned interpretations agree
    top = 2**31 if bits == 32 else 2**63
    x = np.array([int(r.integers(0, 2**31 - 4)) * (top // 2**31) + 1 for _ in range(16)], dtype=dt)
    y = np.array([int(r.integers(0, 2**31 - 4)) * (top // 2**31) + 3 for _ in range(16)], dtype=dt)
    z = np.zeros(16, dt)
    k[(1,)](x, y, z, N=16)
    want = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype=dt)
    np.testing.assert_array_equal(z, want)


# ---------------------------------------------------------------------------------------
# dot


def _dot_kernel(body, a_dt="", b_dt=""):
    return jit_from_source(f"""
        @triton.jit
        def kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
            rm = tl.arange(0, M)
            rn = tl.arange(0, N)
            rk = tl.arange(0, K)
            a = tl.load(A + rm[:, None] * K + rk[None, :])
            b = tl.load(B + rk[:, None] * N + rn[None, :])
            {body}
            tl.store(C + rm[:, None] * N + rn[None, :], c)
        """)


@pytest.mark.parametrize("M,N,K", [(16, 16, 16), (32, 16, 64), (16, 64, 32)])
def test_dot_fp16_fp32_acc(M, N, K):
    k = _dot_kernel("c = tl.dot(a, b)\n            tl.static_assert(c.dtype == tl.float32)")
    r = np.random.default_rng(45)
    a = r.normal(size=(M, K)).astype(np.float16)
    b = r.normal(size=(K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    k[(1,)](a, b, c, M=M, N=N, K=K)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
                               atol=1e-5)


def test_dot_fp32_ieee():
    k = _dot_kernel("c = tl.dot(a, b, input_precision='ieee')")
    r = np.random.default_rng(46)
    a = r.normal(size=(32, 16)).astype(np.float32)
    b = r.normal(size=(16, 32)).astype(np.float32)
    c = np.zeros((32, 32), np.float32)
    k[(1,)](a, b, c, M=32, N=32, K=16)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
                               atol=1e-5)


def test_dot_fp32_default_precision():
    # the default (tf32 on GPUs) may round the inputs to 10 mantissa bits
    k = _dot_kernel("c = tl.dot(a, b)\n            tl.static_assert(c.dtype == tl.float32)")
    r = np.random.default_rng(47)
    a = r.normal(size=(16, 16)).astype(np.float32)
    b = r.normal(size=(16, 16)).astype(np.float32)
    c = np.zeros((16, 16), np.float32)
    k[(1,)](a, b, c, M=16, N=16, K=16)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2,
                               atol=1e-2)


def test_dot_int8_int32():
    k = _dot_kernel("c = tl.dot(a, b)\n            tl.static_assert(c.dtype == tl.int32)")
    r = np.random.default_rng(48)
    a = r.integers(-128, 128, (16, 64)).astype(np.int8)
    b = r.integers(-128, 128, (64, 32)).astype(np.int8)
    c = np.zeros((16, 32), np.int32)
    k[(1,)](a, b, c, M=16, N=32, K=64)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_dot_with_accumulator_forms():
    k = _dot_kernel("""acc = tl.full((M, N), 1.0, tl.float32)
            acc = tl.dot(a, b, acc)
            acc += tl.dot(a, b)
            c = tl.dot(a, b, acc=acc) + a.shape[1] * 0""")
    r = np.random.default_rng(49)
    a = r.integers(-4, 5, (16, 32)).astype(np.float16)  # small integers: exact sums
    b = r.integers(-4, 5, (32, 16)).astype(np.float16)
    c = np.zeros((16, 16), np.float32)
    k[(1,)](a, b, c, M=16, N=16, K=32)
    np.testing.assert_array_equal(c, 1 + 3 * (a.astype(np.float32) @ b.astype(np.float32)))


def test_dot_out_dtype_fp16():
    k = _dot_kernel("c = tl.dot(a, b, out_dtype=tl.float16)\n"
                    "            tl.static_assert(c.dtype == tl.float16)")
    r = np.random.default_rng(50)
    a = r.integers(-4, 5, (16, 16)).astype(np.float16)
    b = r.integers(-4, 5, (16, 16)).astype(np.float16)
    c = np.zeros((16, 16), np.float16)
    k[(1,)](a, b, c, M=16, N=16, K=16)
    np.testing.assert_array_equal(c, (a.astype(np.float32) @ b.astype(np.float32)))


def test_dot_bf16():
    @triton.jit
    def k(A, B, C, M: tl.constexpr):
        r = tl.arange(0, M)
        a = tl.load(A + r[:, None] * M + r[None, :]).to(tl.bfloat16, bitcast=True)
        b = tl.load(B + r[:, None] * M + r[None, :]).to(tl.bfloat16, bitcast=True)
        c = tl.dot(a, b)
        tl.static_assert(c.dtype == tl.float32)
        tl.store(C + r[:, None] * M + r[None, :], c)

    rg = np.random.default_rng(51)
    a = rg.integers(-8, 9, (16, 16)).astype(np.float32)
    b = rg.integers(-8, 9, (16, 16)).astype(np.float32)
    c = np.zeros((16, 16), np.float32)
    k[(1,)](f32_to_bf16_bits(a), f32_to_bf16_bits(b), c, M=16)
    np.testing.assert_array_equal(c, a @ b)


def test_dot_transposed_operand():
    @triton.jit
    def k(A, B, C, M: tl.constexpr):
        r = tl.arange(0, M)
        a = tl.load(A + r[:, None] * M + r[None, :])
        b = tl.load(B + r[:, None] * M + r[None, :])
        tl.store(C + r[:, None] * M + r[None, :], tl.dot(a, tl.trans(b)))

    rg = np.random.default_rng(52)
    a = rg.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rg.integers(-4, 5, (16, 16)).astype(np.float16)
    c = np.zeros((16, 16), np.float32)
    k[(1,)](a, b, c, M=16)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32).T)


def test_dot_3d_batched():
    @triton.jit
    def k(A, B, C, BS: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rb = tl.arange(0, BS)[:, None, None]
        rm = tl.arange(0, M)[None, :, None]
        rn = tl.arange(0, N)[None, None, :]
        rk_col = tl.arange(0, K)[None, None, :]
        rk_row = tl.arange(0, K)[None, :, None]
        a = tl.load(A + rb * M * K + rm * K + rk_col)  # [BS, M, K]
        b = tl.load(B + rb * K * N + rk_row * N + rn)  # [BS, K, N]
        c = tl.dot(a, b)
        tl.static_assert(len(c.shape) == 3)
        tl.store(C + rb * M * N + rm * N + rn, c)

    rg = np.random.default_rng(53)
    a = rg.normal(size=(2, 16, 32)).astype(np.float16)
    b = rg.normal(size=(2, 32, 16)).astype(np.float16)
    c = np.zeros((2, 16, 16), np.float32)
    k[(1,)](a, b, c, BS=2, M=16, N=16, K=32)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
                               atol=1e-5)


def test_dot_precision_keywords():
    k = _dot_kernel("""c = tl.dot(a, b, allow_tf32=False)
            c += tl.dot(a, b, input_precision="ieee", max_num_imprecise_acc=None)
            c += tl.dot(a, b, input_precision="tf32")
            c += tl.dot(a, b, input_precision="tf32x3")""")
    r = np.random.default_rng(54)
    a = r.integers(-8, 9, (16, 16)).astype(np.float32)  # exact in tf32 too
    b = r.integers(-8, 9, (16, 16)).astype(np.float32)
    c = np.zeros((16, 16), np.float32)
    k[(1,)](a, b, c, M=16, N=16, K=16)
    np.testing.assert_array_equal(c, 4 * (a @ b))
