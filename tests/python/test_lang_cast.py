"""Casts: every dtype pair through .to(), integer wrapping, float->int truncation,
int->float and float downcast rounding (rtne, rtz), bitcast, casts to and from int1."""

import itertools

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import (ALL_DTYPES, UINT, convert, f32_to_bf16_bits, f32_to_f16, from_storage,
                       is_float, jit_from_source, load_src, out_storage, round_bf16, store_src,
                       to_storage, values)

N = 32


@pytest.mark.parametrize("src,dst", list(itertools.product(ALL_DTYPES, ALL_DTYPES + ["int1"])))
def test_cast_pairs(src, dst):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", src)}
            y = x.to(tl.{dst})
            tl.static_assert(y.dtype == tl.{dst})
            {store_src("Z + offs", "y", dst)}
        """)
    x = values(src, N, np.random.default_rng(21))
    if is_float(src) and dst in UINT:
        x = np.abs(x)  # negative floats to unsigned ints are undefined
    x[:3] = [0, 1, 2] if not is_float(src) else [0.0, 0.75, -0.0]
    z = np.zeros(N, dtype=out_storage(dst))
    k[(1,)](to_storage(x, src), z, N=N)
    want = convert(x, src, dst)
    got = from_storage(z, dst)
    if dst == "int1":
        np.testing.assert_array_equal(got, want.astype(np.int8))
    else:
        np.testing.assert_array_equal(got, want)


def _cast_kernel(src, dst, extra=""):
    return jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            tl.store(Z + offs, x.to(tl.{dst}{extra}))
        """)


@pytest.mark.parametrize("dst,want", [
    ("int8", [44, -1, -128, -1, 127, 0, 1, -56]),
    ("uint8", [44, 255, 128, 255, 127, 0, 1, 200]),
    ("int16", [300, -1, 128, -1, -129, -32768, 1, 200]),
    ("uint16", [300, 65535, 128, 65535, 65407, 32768, 1, 200]),
    ("int64", [300, -1, 128, 65535, -129, 32768, 65537, 200]),
    ("uint32", [300, 2**32 - 1, 128, 65535, 2**32 - 129, 32768, 65537, 200]),
])
def test_int_narrowing_wraps(dst, want):
    x = np.array([300, -1, 128, 65535, -129, 32768, 65537, 200], np.int32)
    z = np.zeros(8, np.dtype(dst))
    _cast_kernel("int32", dst)[(1,)](x, z, N=8)
    np.testing.assert_array_equal(z, np.array(want).astype(np.dtype(dst)))


def test_int_widening_sign_and_zero_extend():
    @triton.jit
    def k(S, U, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        s = tl.load(S + offs)  # int8
        u = tl.load(U + offs)  # uint8
        tl.store(Z + offs, s.to(tl.int64))
        tl.store(Z + N + offs, u.to(tl.int64))
        tl.store(Z + 2 * N + offs, s.to(tl.uint32).to(tl.int64))
        tl.store(Z + 3 * N + offs, u.to(tl.int8).to(tl.int64))

    s = np.array([-1, -128, 127, 5], np.int8)
    u = np.array([255, 128, 127, 5], np.uint8)
    z = np.zeros(16, np.int64)
    k[(1,)](s, u, z, N=4)
    np.testing.assert_array_equal(z[:4], [-1, -128, 127, 5])
    np.testing.assert_array_equal(z[4:8], [255, 128, 127, 5])
    np.testing.assert_array_equal(z[8:12], [2**32 - 1, 2**32 - 128, 127, 5])
    np.testing.assert_array_equal(z[12:], [-1, -128, 127, 5])


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
@pytest.mark.parametrize("dst", ["int8", "int32", "int64", "uint8", "uint32"])
def test_float_to_int_truncates(src, dst):
    x = np.array([2.75, -2.75, 0.5, -0.5, 100.99, -100.99, 7.0, 127.5], np.dtype(src))
    if dst in UINT:
        x = np.abs(x)
    z = np.zeros(8, np.dtype(dst))
    _cast_kernel(src, dst)[(1,)](x, z, N=8)
    np.testing.assert_array_equal(z, np.trunc(x.astype(np.float64)).astype(np.dtype(dst)))


def test_large_float_to_int64():
    x = np.array([2.0**53, -2.0**62, 1e15 + 0.5, 4294967296.0], np.float64)
    z = np.zeros(4, np.int64)
    _cast_kernel("float64", "int64")[(1,)](x, z, N=4)
    np.testing.assert_array_equal(z, [2**53, -2**62, 10**15, 2**32])


def test_int_to_float_rounds_to_nearest_even():
    @triton.jit
    def k(A, B, C, ZA, ZB, ZC, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(ZA + offs, tl.load(A + offs).to(tl.float32))
        tl.store(ZB + offs, tl.load(B + offs).to(tl.float64))
        tl.store(ZC + offs, tl.load(C + offs).to(tl.float32))

    a = np.array([16777217, 16777219, -16777217, 2**31 - 1], np.int32)
    b = np.array([2**53 + 1, 2**53 + 3, -(2**53 + 1), 2**62 + 1], np.int64)
    c = np.array([2**32 - 1, 2**24 + 1, 3, 0], np.uint32)
    za, zb, zc = np.zeros(4, np.float32), np.zeros(4, np.float64), np.zeros(4, np.float32)
    k[(1,)](a, b, c, za, zb, zc, N=4)
    np.testing.assert_array_equal(za, [16777216.0, 16777220.0, -16777216.0, 2.0**31])
    np.testing.assert_array_equal(zb, [2.0**53, 2.0**53 + 4, -2.0**53, 2.0**62])
    np.testing.assert_array_equal(zc, [2.0**32, 2.0**24, 3.0, 0.0])


# fp32 values around the rounding points of fp16 and bf16
_FP32_ROUNDING = np.array([
    1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-11 + 2.0**-20, -(1.0 + 3 * 2.0**-11),
    1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -(1.0 + 2.0**-8 + 2.0**-20), 3.14159265,
    65504.0, 65519.0, 65520.0, 70000.0, -70000.0, 1e-8, 3e-8, -2.5e-5,
    np.inf, -np.inf, 0.0, -0.0, 1e-3, 1234.5678, -0.1, 3e38,
], np.float32)


@pytest.mark.parametrize("rounding", [None, "rtne", "rtz"])
def test_fp32_to_fp16_rounding(rounding):
    extra = "" if rounding is None else f", fp_downcast_rounding='{rounding}'"
    x = np.resize(_FP32_ROUNDING, 32)
    z = np.zeros(32, np.float16)
    _cast_kernel("float32", "float16", extra)[(1,)](x, z, N=32)
    want = f32_to_f16(x, rounding or "rtne")
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("rounding", [None, "rtne", "rtz"])
def test_fp32_to_bf16_rounding(rounding):
    extra = "" if rounding is None else f", fp_downcast_rounding='{rounding}'"
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            y = tl.load(X + offs).to(tl.bfloat16{extra})
            tl.static_assert(y.dtype == tl.bfloat16)
            tl.store(Z + offs, y.to(tl.uint16, bitcast=True))
        """)
    x = np.resize(_FP32_ROUNDING, 32)
    z = np.zeros(32, np.uint16)
    k[(1,)](x, z, N=32)
    np.testing.assert_array_equal(z, f32_to_bf16_bits(x, rounding or "rtne"))


@pytest.mark.parametrize("src", ["float32", "float16", "float64"])
def test_fp8e5_round_toward_zero(src):
    # e5m2 toward zero: the top byte of the fp16 toward zero (the same exponent); an
    # overflow gives the largest finite value (57344), inf stays inf
    x = np.array([1.0, 1.125 + 2.0**-10, 1.75, 1.99, -1.99, 57344.0, 60000.0, 65504.0,
                  -65504.0, np.inf, -np.inf, 0.0, -0.0, 2.0**-17, 3 * 2.0**-17,
                  -3 * 2.0**-17, 0.1, 448.5, np.nan, 3.0, 5.5, -7.0, 1e-3, 2.0**-14 * 1.9,
                  100.0, -1000.0, 12345.0, 0.33, 2.0**-16, 0.75, 6.0, 40000.0]).astype(src)
    z = np.zeros(32, np.uint8)
    k = jit_from_source("""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            y = tl.load(X + offs).to(tl.float8e5, fp_downcast_rounding="rtz")
            tl.store(Z + offs, y.to(tl.uint8, bitcast=True))
        """)
    k[(1,)](x, z, N=32)
    with np.errstate(over="ignore"):
        want = (f32_to_f16(x.astype(np.float32), "rtz").view(np.uint16) >> 8).astype(np.uint8)
    nan = np.isnan(x)
    np.testing.assert_array_equal(z[~nan], want[~nan])
    assert ((z[nan] & 0x7C) == 0x7C).all() and (z[nan] & 3).all()  # a NaN
    np.testing.assert_array_equal(z[:8], [0x3C, 0x3C, 0x3F, 0x3F, 0xBF, 0x7B, 0x7B, 0x7B])


def test_fp8e4nv_round_toward_zero_is_refused_on_the_gpu():
    k = _cast_kernel("float32", "float8e4nv", ", fp_downcast_rounding='rtz'")
    with pytest.raises(triton.CompilationError, match="toward zero to float8e4nv"):
        triton.compile(k, signature="*fp32:16,*fp8e4nv:16", constexprs={"N": 32},
                       target="cuda:90")


def test_fp64_to_fp32_rounding():
    x = np.array([1.0 + 2.0**-24, 1.0 + 3 * 2.0**-24, 0.1, 1e300, -1e-300, np.nan, 2.0**-149,
                  3.4028235677973366e38], np.float64)
    z = np.zeros(8, np.float32)
    _cast_kernel("float64", "float32")[(1,)](x, z, N=8)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(z, x.astype(np.float32))


def test_nan_and_inf_survive_downcasts():
    @triton.jit
    def k(X, Z16, ZB, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z16 + offs, x.to(tl.float16))
        tl.store(ZB + offs, x.to(tl.bfloat16).to(tl.float32))

    x = np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)
    z16, zb = np.zeros(4, np.float16), np.zeros(4, np.float32)
    k[(1,)](x, z16, zb, N=4)
    np.testing.assert_array_equal(z16, x.astype(np.float16))
    np.testing.assert_array_equal(zb, x)
    assert np.signbit(z16[3]) and np.signbit(zb[3])


def test_fp16_to_bf16_and_back():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, x.to(tl.bfloat16).to(tl.float16))

    x = np.array([1.0 + 2.0**-10, 3.0, -1.5, 1000.25, 2.0**-14, 60000.0, 0.1, -7.0], np.float16)
    z = np.zeros(8, np.float16)
    k[(1,)](x, z, N=8)
    want = round_bf16(x.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(z, want)


def test_cast_function_and_scalar_cast():
    @triton.jit
    def k(X, Z, ZS):
        offs = tl.arange(0, 4)
        x = tl.load(X + offs)
        y = tl.cast(x, tl.float16)
        tl.static_assert(y.dtype == tl.float16)
        tl.store(Z + offs, y)
        s = tl.load(X + 1).to(tl.int32)
        tl.static_assert(s.dtype == tl.int32)
        tl.store(ZS, s)

    x = np.array([0.5, -2.75, 3.0, 1e5], np.float32)
    z, zs = np.zeros(4, np.float16), np.zeros(1, np.int32)
    k[(1,)](x, z, zs)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(z, x.astype(np.float16))
    assert zs[0] == -2


def test_dtype_as_constexpr_argument():
    @triton.jit
    def k(X, Z, DT: tl.constexpr, N: tl.constexpr):
        offs = tl.arange(0, N)
        y = tl.load(X + offs).to(DT)
        tl.static_assert(y.dtype == DT)
        tl.store(Z + offs, y)

    x = np.array([1.7, -1.7, 300.2, 5.5], np.float32)
    z = np.zeros(4, np.int16)
    k[(1,)](x, z, DT=tl.int16, N=4)
    np.testing.assert_array_equal(z, [1, -1, 300, 5])
    z2 = np.zeros(4, np.float16)
    k[(1,)](x, z2, DT=tl.float16, N=4)
    np.testing.assert_array_equal(z2, x.astype(np.float16))


def test_element_ty_of_pointer():
    @triton.jit
    def k(X, Out, N: tl.constexpr):
        offs = tl.arange(0, N)
        y = tl.load(X + offs).to(Out.dtype.element_ty)
        tl.static_assert(y.dtype == tl.float16)
        tl.store(Out + offs, y)

    x = np.array([1.0, 2.5, -3.25, 4.0], np.float32)
    z = np.zeros(4, np.float16)
    k[(1,)](x, z, N=4)
    np.testing.assert_array_equal(z, x.astype(np.float16))


# ---------------------------------------------------------------------------------------
# bool


def test_bool_to_int_and_float_is_one():
    @triton.jit
    def k(X, ZI, ZF, ZU, N: tl.constexpr):
        offs = tl.arange(0, N)
        b = tl.load(X + offs) > 0
        tl.store(ZI + offs, b.to(tl.int32))  # 1, not -1
        tl.store(ZF + offs, b.to(tl.float32))
        tl.store(ZU + offs, b.to(tl.uint8))

    x = np.array([-1, 0, 1, 5], np.int32)
    zi, zf, zu = np.zeros(4, np.int32), np.zeros(4, np.float32), np.zeros(4, np.uint8)
    k[(1,)](x, zi, zf, zu, N=4)
    np.testing.assert_array_equal(zi, [0, 0, 1, 1])
    np.testing.assert_array_equal(zf, [0, 0, 1, 1])
    np.testing.assert_array_equal(zu, [0, 0, 1, 1])


def test_to_int1_is_nonzero():
    @triton.jit
    def k(F, I, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        f = tl.load(F + offs).to(tl.int1)
        i = tl.load(I + offs).to(tl.int1)
        tl.static_assert(f.dtype == tl.int1)
        tl.store(Z + offs, f.to(tl.int8))
        tl.store(Z + N + offs, i.to(tl.int8))

    f = np.array([0.0, 0.5, -0.0, -3.0, np.nan, 1e-30, 2.0, 0.0], np.float32)
    i = np.array([0, 2, 256, -1, 0, 1, -256, 4], np.int32)  # 2 and 256: nonzero, not the low bit
    z = np.zeros(16, np.int8)
    k[(1,)](f, i, z, N=8)
    np.testing.assert_array_equal(z[:8], [0, 1, 0, 1, 1, 1, 1, 0])
    np.testing.assert_array_equal(z[8:], [0, 1, 1, 1, 0, 1, 1, 1])


# ---------------------------------------------------------------------------------------
# bitcast


def test_bitcast_float_int():
    @triton.jit
    def k(X, H, D, Z32, Z16, Z64, ZB, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        h = tl.load(H + offs)
        d = tl.load(D + offs)
        i = x.to(tl.int32, bitcast=True)
        tl.static_assert(i.dtype == tl.int32)
        tl.store(Z32 + offs, i)
        tl.store(Z16 + offs, h.to(tl.uint16, bitcast=True))
        tl.store(Z64 + offs, tl.cast(d, tl.int64, bitcast=True))
        tl.store(ZB + offs, i.to(tl.float32, bitcast=True))

    x = np.array([1.0, -2.5, np.inf, 3.14159], np.float32)
    h = np.array([1.0, -2.5, 65504.0, 0.1], np.float16)
    d = np.array([1.0, -2.5, 1e300, 0.1], np.float64)
    z32, z16, z64 = np.zeros(4, np.int32), np.zeros(4, np.uint16), np.zeros(4, np.int64)
    zb = np.zeros(4, np.float32)
    k[(1,)](x, h, d, z32, z16, z64, zb, N=4)
    np.testing.assert_array_equal(z32, x.view(np.int32))
    np.testing.assert_array_equal(z16, h.view(np.uint16))
    np.testing.assert_array_equal(z64, d.view(np.int64))
    np.testing.assert_array_equal(zb, x)


def test_bitcast_width_mismatch_rejected():
    @triton.jit
    def k(X, Z):
        x = tl.load(X + tl.arange(0, 4))
        tl.store(Z + tl.arange(0, 4), x.to(tl.int16, bitcast=True))

    with pytest.raises(triton.CompilationError, match="(?i)bitcast|size|width"):
        k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.int16))


def test_rounding_mode_on_non_downcast_rejected():
    @triton.jit
    def k(X, Z):
        x = tl.load(X + tl.arange(0, 4))
        tl.store(Z + tl.arange(0, 4), x.to(tl.float32, fp_downcast_rounding="rtz"))

    with pytest.raises(triton.CompilationError, match="(?i)round"):
        k[(1,)](np.zeros(4, np.int32), np.zeros(4, np.float32))
