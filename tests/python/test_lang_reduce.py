"""Reductions (sum, max, min, argmax, argmin, xor_sum) along every axis of 2-D and 3-D tiles
and over the whole tile, with keep_dims; tl.reduce with @jit combiners; scans (cumsum,
cumprod, reverse, associative_scan)."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import jit_from_source

SHAPES_AXES = [((4, 8), 0), ((4, 8), 1), ((4, 8), None), ((2, 4, 8), 0), ((2, 4, 8), 1),
               ((2, 4, 8), 2), ((2, 4, 8), None), ((16,), 0), ((16,), None)]


def _index_src(shape, name):
    """Source of a row-major offset tile for `shape`, assigned to `name`."""
    r = len(shape)
    if r == 0:
        return f"{name} = 0"
    terms = []
    for i, d in enumerate(shape):
        stride = int(np.prod(shape[i + 1:], dtype=np.int64))
        sl = "" if r == 1 else "[" + ", ".join(":" if j == i else "None" for j in range(r)) + "]"
        terms.append(f"tl.arange(0, {d}){sl} * {stride}")
    return f"{name} = " + " + ".join(terms)


def _np_reduce(op, x, axis, keep):
    if op == "sum":
        return np.sum(x, axis=axis, keepdims=keep).astype(x.dtype)
    if op == "max":
        return np.max(x, axis=axis, keepdims=keep)
    if op == "min":
        return np.min(x, axis=axis, keepdims=keep)
    if op == "xor_sum":
        if axis is None:
            r = np.bitwise_xor.reduce(x.reshape(-1))
            return np.reshape(r, (1,) * x.ndim) if keep else r
        return np.bitwise_xor.reduce(x, axis=axis, keepdims=keep)
    f = np.argmax if op == "argmax" else np.argmin
    if axis is None:
        r = f(x.reshape(-1))
        return np.reshape(np.int32(r), (1,) * x.ndim) if keep else np.int32(r)
    return f(x, axis=axis, keepdims=keep).astype(np.int32)


def _reduce_shape(shape, axis, keep):
    if axis is None:
        return (1,) * len(shape) if keep else ()
    if keep:
        return tuple(1 if i == axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i != axis)


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
@pytest.mark.parametrize("op,dt", [("sum", "int32"), ("sum", "float32"), ("max", "int32"),
                                   ("max", "float32"), ("min", "int32"), ("min", "float32"),
                                   ("argmax", "int32"), ("argmax", "float32"),
                                   ("argmin", "int32"), ("argmin", "float32"),
                                   ("xor_sum", "int32")])
def test_reduce(op, dt, shape, axis, keep):
    out_shape = _reduce_shape(shape, axis, keep)
    out_dt = "int32" if op.startswith("arg") else dt
    store = (f"tl.store(Z, y)" if not out_shape else "tl.store(Z + zoffs, y)")
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z):
            {_index_src(shape, "xoffs")}
            x = tl.load(X + xoffs)
            y = tl.{op}(x, axis={axis}, keep_dims={keep})
            tl.static_assert(y.dtype == tl.{out_dt})
            tl.static_assert(len(y.shape) == {len(out_shape)})
            {_index_src(out_shape, "zoffs")}
            {store}
        """)
    rng = np.random.default_rng(31)
    # a small range makes ties: argmax / argmin must pick the lowest index
    x = rng.integers(-5, 6, size=shape).astype(np.dtype(dt))
    if op.startswith("arg") or op in ("max", "min"):
        x.reshape(-1)[[3, 9]] = 7  # two equal maxima
        x.reshape(-1)[[4, 10]] = -7  # two equal minima
    z = np.zeros(max(1, int(np.prod(out_shape))), np.dtype(out_dt))
    k[(1,)](np.ascontiguousarray(x), z)
    want = np.asarray(_np_reduce(op, x, axis, keep))
    np.testing.assert_array_equal(z.reshape(want.shape), want)


def test_reduce_promotes_small_types():
    """Triton sums int8/int16 in int32 (uint8 in uint32), and max/min of types narrower
    than 32 bits return int32 / fp32; argmax keeps its int32 index."""
    @triton.jit
    def k(X8, XU, XH, Z, ZF):
        offs = tl.arange(0, 16)
        x8 = tl.load(X8 + offs)
        xu = tl.load(XU + offs)
        xh = tl.load(XH + offs)
        s8 = tl.sum(x8, axis=0)
        su = tl.sum(xu, axis=0)
        sh = tl.sum(xh, axis=0)
        m8 = tl.max(x8, axis=0)
        mh = tl.max(xh, axis=0)
        c8 = tl.cumsum(x8, axis=0)
        tl.static_assert(s8.dtype == tl.int32)
        tl.static_assert(su.dtype == tl.uint32)
        tl.static_assert(sh.dtype == tl.float16)
        tl.static_assert(m8.dtype == tl.int32)
        tl.static_assert(mh.dtype == tl.float32)
        tl.static_assert(c8.dtype == tl.int32)
        tl.store(Z + 0, s8)
        tl.store(Z + 1, su.to(tl.int32))
        tl.store(Z + 2, m8)
        tl.store(Z + 3, tl.sum(c8, axis=0))
        tl.store(ZF + 0, sh.to(tl.float32))
        tl.store(ZF + 1, mh)

    x8 = np.full(16, 100, np.int8)  # 1600 overflows int8
    xu = np.full(16, 200, np.uint8)
    xh = np.arange(16).astype(np.float16)
    z, zf = np.zeros(4, np.int32), np.zeros(2, np.float32)
    k[(1,)](x8, xu, xh, z, zf)
    np.testing.assert_array_equal(z, [1600, 3200, 100, sum(100 * (i + 1) for i in range(16))])
    np.testing.assert_array_equal(zf, [120.0, 15.0])


def test_sum_with_dtype_and_methods():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, N)[None, :]
        x = tl.load(X + rm * N + rn)  # int8
        a = x.sum(axis=1)  # method form
        b = tl.sum(x, axis=0, dtype=tl.int64)
        tl.static_assert(b.dtype == tl.int64)
        c = x.max(axis=1)
        d = tl.argmax(x, axis=1)
        tl.store(Z + tl.arange(0, M), a)
        tl.store(Z + M + tl.arange(0, N), b.to(tl.int32))
        tl.store(Z + M + N + tl.arange(0, M), c)
        tl.store(Z + 2 * M + N + tl.arange(0, M), d)

    x = np.random.default_rng(3).integers(-100, 100, (4, 8)).astype(np.int8)
    z = np.zeros(4 + 8 + 4 + 4, np.int32)
    k[(1,)](x, z, M=4, N=8)
    np.testing.assert_array_equal(z[:4], x.astype(np.int32).sum(1))
    np.testing.assert_array_equal(z[4:12], x.astype(np.int64).sum(0))
    np.testing.assert_array_equal(z[12:16], x.max(1))
    np.testing.assert_array_equal(z[16:], x.argmax(1))


def test_max_return_indices():
    @triton.jit
    def k(X, V, I, N: tl.constexpr):
        x = tl.load(X + tl.arange(0, N))
        v, i = tl.max(x, axis=0, return_indices=True)
        w, j = tl.min(x, 0, return_indices=True)
        tl.store(V, v)
        tl.store(V + 1, w)
        tl.store(I, i)
        tl.store(I + 1, j)

    x = np.array([3, 9, 1, 9, -4, 0, -4, 2], np.float32)
    v, i = np.zeros(2, np.float32), np.zeros(2, np.int32)
    k[(1,)](x, v, i, N=8)
    np.testing.assert_array_equal(v, [9, -4])
    np.testing.assert_array_equal(i, [1, 4])


def test_reduce_nan_and_inf():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        x = tl.load(X + tl.arange(0, N))
        tl.store(Z, tl.max(x, axis=0))
        tl.store(Z + 1, tl.min(x, axis=0))
        tl.store(Z + 2, tl.sum(x, axis=0))

    x = np.array([1.0, -np.inf, 3.0, 2.0], np.float32)
    z = np.zeros(3, np.float32)
    k[(1,)](x, z, N=4)
    np.testing.assert_array_equal(z, [3.0, -np.inf, -np.inf])


# ---------------------------------------------------------------------------------------
# tl.reduce with @jit combiners


@triton.jit
def _custom_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    gt = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


def test_reduce_custom_combiner():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, N)[None, :]
        x = tl.load(X + rm * N + rn)
        tl.store(Z + tl.arange(0, M), tl.reduce(x, 1, _custom_max))
        tl.store(Z + M + tl.arange(0, N), tl.reduce(x, axis=0, combine_fn=_mul_combine))
        tl.store(Z + M + N, tl.reduce(x, None, _custom_max))

    x = np.random.default_rng(4).integers(-3, 4, (4, 8)).astype(np.int32)
    z = np.zeros(4 + 8 + 1, np.int32)
    k[(1,)](x, z, M=4, N=8)
    np.testing.assert_array_equal(z[:4], x.max(1))
    np.testing.assert_array_equal(z[4:12], x.prod(0))
    assert z[12] == x.max()


def test_reduce_tuple_argmax():
    @triton.jit
    def k(X, V, I, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, N)[None, :]
        x = tl.load(X + rm * N + rn)
        idx = tl.broadcast_to(rn, (M, N))
        v, i = tl.reduce((x, idx), 1, _argmax_combine)
        tl.store(V + tl.arange(0, M), v)
        tl.store(I + tl.arange(0, M), i)

    x = np.random.default_rng(5).integers(0, 4, (4, 8)).astype(np.float32)
    v, i = np.zeros(4, np.float32), np.zeros(4, np.int32)
    k[(1,)](x, v, i, M=4, N=8)
    np.testing.assert_array_equal(v, x.max(1))
    np.testing.assert_array_equal(i, x.argmax(1))


def test_reduce_keep_dims_custom():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, N)[None, :]
        x = tl.load(X + rm * N + rn)
        m = tl.reduce(x, 1, _custom_max, keep_dims=True)  # [M, 1]
        tl.static_assert(m.shape[1] == 1)
        tl.store(Z + rm * N + rn, x - m)

    x = np.random.default_rng(6).normal(size=(4, 8)).astype(np.float32)
    z = np.zeros((4, 8), np.float32)
    k[(1,)](x, z, M=4, N=8)
    np.testing.assert_array_equal(z, x - x.max(1, keepdims=True))


# ---------------------------------------------------------------------------------------
# scans


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dt", ["int32", "float32"])
def test_scan(op, axis, reverse, dt):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, M: tl.constexpr, N: tl.constexpr):
            rm = tl.arange(0, M)[:, None]
            rn = tl.arange(0, N)[None, :]
            x = tl.load(X + rm * N + rn)
            y = tl.{op}(x, axis={axis}, reverse={reverse})
            tl.static_assert(y.dtype == tl.{dt})
            tl.store(Z + rm * N + rn, y)
        """)
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, (4, 8)).astype(np.dtype(dt)) if op == "cumsum" else \
        rng.choice([-2, -1, 1, 2], (4, 8)).astype(np.dtype(dt))
    z = np.zeros((4, 8), np.dtype(dt))
    k[(1,)](x, z, M=4, N=8)
    f = np.cumsum if op == "cumsum" else np.cumprod
    xs = np.flip(x, axis) if reverse else x
    want = f(xs, axis=axis).astype(np.dtype(dt))
    if reverse:
        want = np.flip(want, axis)
    np.testing.assert_array_equal(z, want)


def test_scan_1d_and_method():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, x.cumsum(0))
        tl.store(Z + N + offs, tl.cumsum(x, 0, reverse=True))

    x = np.arange(16, dtype=np.float32)
    z = np.zeros(32, np.float32)
    k[(1,)](x, z, N=16)
    np.testing.assert_array_equal(z[:16], np.cumsum(x))
    np.testing.assert_array_equal(z[16:], np.cumsum(x[::-1])[::-1])


@triton.jit
def _running_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def _pair_scan(a1, b1, a2, b2):
    # composition of affine maps x -> a*x + b: first (a1, b1), then (a2, b2)
    return a1 * a2, b1 * a2 + b2


def test_associative_scan_custom():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, N)[None, :]
        x = tl.load(X + rm * N + rn)
        tl.store(Z + rm * N + rn, tl.associative_scan(x, 1, _running_max))
        tl.store(Z + M * N + rm * N + rn, tl.associative_scan(x, 0, _running_max, reverse=True))

    x = np.random.default_rng(8).integers(-50, 50, (4, 8)).astype(np.int32)
    z = np.zeros((2, 4, 8), np.int32)
    k[(1,)](x, z, M=4, N=8)
    np.testing.assert_array_equal(z[0], np.maximum.accumulate(x, axis=1))
    np.testing.assert_array_equal(z[1], np.flip(np.maximum.accumulate(np.flip(x, 0), axis=0), 0))


def test_associative_scan_tuple():
    @triton.jit
    def k(A, B, ZA, ZB, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        ra, rb = tl.associative_scan((a, b), 0, _pair_scan)
        tl.store(ZA + offs, ra)
        tl.store(ZB + offs, rb)

    a = np.array([1, 2, -1, 1, 3, 1, 1, -2], np.int32)
    b = np.array([1, 0, 2, -1, 1, 1, 0, 3], np.int32)
    za, zb = np.zeros(8, np.int32), np.zeros(8, np.int32)
    k[(1,)](a, b, za, zb, N=8)
    # the linear recurrence h_i = a_i * h_{i-1} + b_i with h_{-1} = 0
    h, hs = 0, []
    for ai, bi in zip(a, b):
        h = ai * h + bi
        hs.append(h)
    np.testing.assert_array_equal(za, np.cumprod(a))
    np.testing.assert_array_equal(zb, hs)


@pytest.mark.parametrize("dt", ["uint32", "uint64", "int64", "uint8", "int16"])
def test_reduce_integer_types_compare_correctly(dt):
    """max / min / argmax / argmin use the type's own order (unsigned above 2**31 too)."""
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, I, N: tl.constexpr):
            x = tl.load(X + tl.arange(0, N))
            tl.store(Z + 0, tl.max(x, axis=0).to(tl.{dt}))
            tl.store(Z + 1, tl.min(x, axis=0).to(tl.{dt}))
            tl.store(Z + 2, tl.sum(x, axis=0).to(tl.{dt}))
            tl.store(Z + 3, tl.xor_sum(x, axis=0))
            tl.store(I + 0, tl.argmax(x, axis=0))
            tl.store(I + 1, tl.argmin(x, axis=0))
        """)
    info = np.iinfo(np.dtype(dt))
    rng = np.random.default_rng(65)
    x = rng.integers(info.min, info.max, 16, dtype=np.dtype(dt), endpoint=True)
    x[5] = info.max
    x[9] = info.min
    z = np.zeros(4, np.dtype(dt))
    i = np.zeros(2, np.int32)
    k[(1,)](x, z, i, N=16)
    acc = np.zeros(1, np.dtype(dt))
    with np.errstate(over="ignore"):
        for v in x:
            acc = (acc + v).astype(np.dtype(dt))
    np.testing.assert_array_equal(z, [x.max(), x.min(), acc[0], np.bitwise_xor.reduce(x)])
    np.testing.assert_array_equal(i, [5, 9])


def test_reduce_half_types():
    @triton.jit
    def k(H, B, Z, I, N: tl.constexpr):
        offs = tl.arange(0, N)
        h = tl.load(H + offs)
        b = tl.load(B + offs).to(tl.bfloat16, bitcast=True)
        mb = tl.max(b, axis=0)
        tl.static_assert(mb.dtype == tl.float32)  # bf16 max/min are computed in fp32
        tl.store(Z + 0, mb)
        tl.store(Z + 1, tl.min(h, axis=0))
        tl.store(I + 0, tl.argmax(h, axis=0))
        tl.store(I + 1, tl.argmin(b, axis=0))
        cb = tl.cumsum(b, axis=0)
        tl.static_assert(cb.dtype == tl.float32)
        tl.store(Z + 2, tl.sum(cb, axis=0))

    from lang_util import f32_to_bf16_bits
    h = np.array([1.5, -2.0, 7.25, 7.25, 0.0, -3.5, 2.0, 1.0], np.float16)
    bv = np.array([0.5, 4.0, -8.0, 3.0, 4.0, 1.0, -8.0, 2.0], np.float32)
    z, i = np.zeros(3, np.float32), np.zeros(2, np.int32)
    k[(1,)](h, f32_to_bf16_bits(bv), z, i, N=8)
    np.testing.assert_array_equal(z, [4.0, -3.5, np.cumsum(bv).sum()])
    np.testing.assert_array_equal(i, [2, 2])
