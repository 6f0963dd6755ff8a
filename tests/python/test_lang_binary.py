"""Binary and unary operators on tensors of every dtype pair, with Triton's promotion rules:
each generated kernel asserts the result dtype at compile time (tl.static_assert) and the
values are compared with a numpy reference that applies the same conversions."""

import itertools

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import (ALL_DTYPES, ARITH, BITWISE, COMPARE, FLOATS, INTS, UINT, PromotionError,
                       convert, from_storage, jit_from_source, load_src, out_storage, ref_binary,
                       result_dtype, store_src, to_storage, values, ON_GPU)

N = 32
PAIRS = list(itertools.product(ALL_DTYPES, ALL_DTYPES))
INT_PAIRS = list(itertools.product(INTS, INTS))


def _binary_kernel(expr: str, xn: str, yn: str, out: str):
    return jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            y = {load_src("Y + offs", yn)}
            z = {expr}
            tl.static_assert(z.dtype == tl.{out})
            {store_src("Z + offs", "z", out)}
        """)


def _check(got, want, out):
    if out in ("float32", "float16", "bfloat16", "float64"):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(got.astype(want.dtype), want)


def _run_binary(op, xn, yn, seed=0, x=None, y=None):
    rng = np.random.default_rng(seed)
    nonzero = op in ("/", "//", "%")
    if x is None:
        x = values(xn, N, rng)
    if y is None:
        y = values(yn, N, rng, nonzero=nonzero)
        if op in ("<<", ">>"):
            y = (np.abs(y.astype(np.int64)) % 8).astype(y.dtype)
    out = result_dtype(op, xn, yn)
    k = _binary_kernel(f"x {op} y", xn, yn, out)
    z = np.zeros(N, dtype=out_storage(out))
    k[(1,)](to_storage(x, xn), to_storage(y, yn), z, N=N)
    want = ref_binary(op, x, xn, y, yn)
    got = from_storage(z, out)
    if op == "/":
        rtol = 2.3e-16 if out == "float64" else (2.5e-7 if ON_GPU else 1.2e-7)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    elif out == "int1":
        np.testing.assert_array_equal(got.astype(bool), want)
    else:
        _check(got, want, out)


def _expect_rejected(expr, xn, yn):
    k = _binary_kernel(expr, xn, yn, "int32")
    x = to_storage(values(xn, N, np.random.default_rng(0), nonzero=True), xn)
    y = to_storage(values(yn, N, np.random.default_rng(1), nonzero=True), yn)
    with pytest.raises(triton.CompilationError):
        k[(1,)](x, y, np.zeros(N, np.int32), N=N)


@pytest.mark.parametrize("op", ARITH + ["/", "%"])
@pytest.mark.parametrize("xn,yn", PAIRS)
def test_arith_pairs(op, xn, yn):
    try:
        result_dtype(op, xn, yn)
    except PromotionError:
        _expect_rejected(f"x {op} y", xn, yn)
        return
    _run_binary(op, xn, yn)


@pytest.mark.parametrize("xn,yn", INT_PAIRS)
def test_floordiv_int_pairs(xn, yn):
    try:
        result_dtype("//", xn, yn)
    except PromotionError:
        _expect_rejected("x // y", xn, yn)
        return
    _run_binary("//", xn, yn)


@pytest.mark.parametrize("xn,yn", [("float32", "float32"), ("float16", "float16"),
                                   ("int32", "float32"), ("float64", "int64"),
                                   ("bfloat16", "bfloat16")])
def test_floordiv_float_rejected(xn, yn):
    # Triton's // is defined for integers only
    _expect_rejected("x // y", xn, yn)


@pytest.mark.parametrize("op", BITWISE)
@pytest.mark.parametrize("xn,yn", INT_PAIRS)
def test_bitwise_int_pairs(op, xn, yn):
    _run_binary(op, xn, yn)


@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
@pytest.mark.parametrize("xn,yn", [("float32", "float32"), ("int32", "float32"),
                                   ("float16", "int8"), ("bfloat16", "int16"),
                                   ("float64", "float64")])
def test_bitwise_float_rejected(op, xn, yn):
    _expect_rejected(f"x {op} y", xn, yn)


@pytest.mark.parametrize("xn,yn", PAIRS)
def test_compare_pairs(xn, yn):
    """All six comparisons in one kernel; each result is i1 (stored as int8)."""
    body = "\n".join(
        f"    z{i} = x {op} y\n    tl.static_assert(z{i}.dtype == tl.int1)\n"
        f"    tl.store(Z + {i} * N + offs, z{i})" for i, op in enumerate(COMPARE))
    k = jit_from_source(f"""
@triton.jit
def kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = {load_src("X + offs", xn)}
    y = {load_src("Y + offs", yn)}
{body}
""")
    rng = np.random.default_rng(3)
    x = values(xn, N, rng)
    y = values(yn, N, rng)
    if xn == yn:
        y[::3] = x[::3]  # some equal pairs
    z = np.full(len(COMPARE) * N, 7, dtype=np.int8)
    k[(1,)](to_storage(x, xn), to_storage(y, yn), z, N=N)
    for i, op in enumerate(COMPARE):
        want = ref_binary(op, x, xn, y, yn)
        np.testing.assert_array_equal(z[i * N:(i + 1) * N], want.astype(np.int8), err_msg=op)


def test_compare_mixed_signedness_is_unsigned():
    # int8 -1 compared with uint8 1: both become uint8, so -1 is 255 and not smaller
    x = np.array([-1] * N, np.int8)
    y = np.array([1] * N, np.uint8)
    _run_binary("<", "int8", "uint8", x=x, y=y)
    k = _binary_kernel("x < y", "int8", "uint8", "int1")
    z = np.full(N, 9, np.int8)
    k[(1,)](x, y, z, N=N)
    assert (z == 0).all()


# ---------------------------------------------------------------------------------------
# a tensor and a Python number: the number does not promote the tensor within its kind

SCALAR_CASES = [
    # (expression, literal on the left?, the literal value, operator)
    ("x + 3", False, 3, "+"),
    ("3 + x", True, 3, "+"),
    ("x - 1", False, 1, "-"),
    ("x * 2", False, 2, "*"),
    ("x * 2.0", False, 2.0, "*"),
    ("2.5 * x", True, 2.5, "*"),
    ("x / 2", False, 2, "/"),
    ("x / 4.0", False, 4.0, "/"),
    ("x < 3", False, 3, "<"),
    ("x == 0.5", False, 0.5, "=="),
    ("2 - x", True, 2, "-"),
    ("1.0 / x", True, 1.0, "/"),
    ("3 > x", True, 3, ">"),
]


@pytest.mark.parametrize("case", SCALAR_CASES, ids=[c[0] for c in SCALAR_CASES])
@pytest.mark.parametrize("xn", ALL_DTYPES)
def test_scalar_tensor_mix(case, xn):
    expr, left, lit, op = case
    ln = "int32" if isinstance(lit, int) else "float32"
    if left:
        out = result_dtype(op, ln, xn, a_scalar=True)
    else:
        out = result_dtype(op, xn, ln, b_scalar=True)
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            z = {expr}
            tl.static_assert(z.dtype == tl.{out})
            {store_src("Z + offs", "z", out)}
        """)
    x = values(xn, N, np.random.default_rng(5))
    z = np.zeros(N, dtype=out_storage(out))
    k[(1,)](to_storage(x, xn), z, N=N)
    litarr = np.full(N, lit)
    if left:
        want = ref_binary(op, litarr.astype(np.int32 if ln == "int32" else np.float32), ln, x, xn,
                          a_scalar=True)
    else:
        want = ref_binary(op, x, xn, litarr.astype(np.int32 if ln == "int32" else np.float32), ln,
                          b_scalar=True)
    got = from_storage(z, out)
    if out == "int1":
        got = got.astype(bool)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1.2e-7)


INT_SCALAR_CASES = [
    ("x // 3", False, 3, "//"),
    ("x % 3", False, 3, "%"),
    ("7 - x", True, 7, "-"),
    ("100 // x", True, 100, "//"),
    ("x & 6", False, 6, "&"),
    ("x | 9", False, 9, "|"),
    ("x ^ 5", False, 5, "^"),
    ("x << 2", False, 2, "<<"),
    ("x >> 1", False, 1, ">>"),
    ("x != 4", False, 4, "!="),
]


@pytest.mark.parametrize("case", INT_SCALAR_CASES, ids=[c[0] for c in INT_SCALAR_CASES])
@pytest.mark.parametrize("xn", INTS)
def test_int_scalar_tensor_mix(case, xn):
    """An int literal keeps the tensor's integer type; // and % truncate toward zero."""
    expr, left, lit, op = case
    out = result_dtype(op, "int32", xn, a_scalar=True) if left else \
        result_dtype(op, xn, "int32", b_scalar=True)
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            z = {expr}
            tl.static_assert(z.dtype == tl.{out})
            {store_src("Z + offs", "z", out)}
        """)
    x = values(xn, N, np.random.default_rng(6), nonzero=True)
    z = np.zeros(N, dtype=out_storage(out))
    k[(1,)](x, z, N=N)
    litarr = np.full(N, lit, np.int32)
    if left:
        want = ref_binary(op, litarr, "int32", x, xn, a_scalar=True)
    else:
        want = ref_binary(op, x, xn, litarr, "int32", b_scalar=True)
    np.testing.assert_array_equal(z.astype(want.dtype) if out != "int1" else z.astype(bool),
                                  want)


def test_scalar_keeps_fp16():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        a = x + 1
        b = x * 2.0
        c = x / 2  # / on fp16 computes in fp32
        d = x - 0.5
        tl.static_assert(a.dtype == tl.float16)
        tl.static_assert(b.dtype == tl.float16)
        tl.static_assert(c.dtype == tl.float32)
        tl.static_assert(d.dtype == tl.float16)
        tl.store(Z + offs, a)
        tl.store(Z + N + offs, b)
        tl.store(Z + 2 * N + offs, c)
        tl.store(Z + 3 * N + offs, d)

    x = (np.arange(N) * 0.25 - 3).astype(np.float16)
    z = np.zeros(4 * N, np.float16)
    k[(1,)](x, z, N=N)
    np.testing.assert_array_equal(z[:N], x + np.float16(1))
    np.testing.assert_array_equal(z[N:2 * N], x * np.float16(2))
    np.testing.assert_array_equal(z[2 * N:3 * N], (x.astype(np.float32) / 2).astype(np.float16))
    np.testing.assert_array_equal(z[3 * N:], x - np.float16(0.5))


def test_runtime_scalar_argument_promotes():
    """A kernel's int/float argument is a scalar tensor (int32 / fp32), not a Python
    number: it takes part in promotion."""
    @triton.jit
    def k(X8, X16, Z32, ZF, n, f, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(X8 + offs) + n
        b = tl.load(X16 + offs) * f
        tl.static_assert(a.dtype == tl.int32)
        tl.static_assert(b.dtype == tl.float32)
        tl.store(Z32 + offs, a)
        tl.store(ZF + offs, b)

    x8 = np.full(N, 120, np.int8)
    x16 = np.arange(N).astype(np.float16)
    z32 = np.zeros(N, np.int32)
    zf = np.zeros(N, np.float32)
    k[(1,)](x8, x16, z32, zf, 100, 0.1, N=N)
    np.testing.assert_array_equal(z32, np.full(N, 220, np.int32))  # no int8 wrap
    np.testing.assert_allclose(zf, x16.astype(np.float32) * np.float32(0.1), rtol=1e-7)


@pytest.mark.parametrize("expr,msg", [("x + 300", "300"), ("x - 200", "200"),
                                      ("x * 2**40", "1099511627776")])
def test_scalar_out_of_range_rejected(expr, msg):
    # Triton: "Scalar 300 is out of range for type int8"
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            tl.store(Z + offs, {expr})
        """)
    with pytest.raises(triton.CompilationError, match=msg):
        k[(1,)](np.zeros(N, np.int8), np.zeros(N, np.int8), N=N)


def test_negative_scalar_with_unsigned_rejected():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, x + (-1))

    with pytest.raises(triton.CompilationError, match="(?i)unsigned"):
        k[(1,)](np.zeros(N, np.uint8), np.zeros(N, np.uint8), N=N)


# ---------------------------------------------------------------------------------------
# division and modulo semantics


def test_int_div_mod_truncate_toward_zero():
    @triton.jit
    def k(A, B, Q, R, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        tl.store(Q + offs, a // b)
        tl.store(R + offs, a % b)

    a = np.array([-7, 7, -7, 7, -1, 0, 9, -9], np.int32)
    b = np.array([2, 2, -2, -2, 3, -5, 3, 3], np.int32)
    q = np.zeros(8, np.int32)
    r = np.zeros(8, np.int32)
    k[(1,)](a, b, q, r, N=8)
    np.testing.assert_array_equal(q, [-3, 3, 3, -3, 0, 0, 3, -3])
    np.testing.assert_array_equal(r, [-1, 1, -1, 1, -1, 0, 0, 0])


def test_int_div_mod_by_literal_truncates():
    @triton.jit
    def k(A, Q, R, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs)
        tl.store(Q + offs, a // 4)
        tl.store(R + offs, a % 4)

    a = np.array([-9, -4, -3, 0, 3, 4, 9, -1], np.int64)
    q = np.zeros(8, np.int64)
    r = np.zeros(8, np.int64)
    k[(1,)](a, q, r, N=8)
    np.testing.assert_array_equal(q, [-2, -1, 0, 0, 0, 1, 2, 0])
    np.testing.assert_array_equal(r, [-1, 0, -3, 0, 3, 0, 1, -1])


def test_constexpr_div_mod_use_python_floor_semantics():
    @triton.jit
    def k(Z, A: tl.constexpr, B: tl.constexpr):
        tl.store(Z + 0, A // B)
        tl.store(Z + 1, A % B)
        tl.store(Z + 2, -7 // 2)
        tl.store(Z + 3, -7 % 2)
        tl.store(Z + 4, 7 // -2)
        tl.store(Z + 5, 7 % -2)

    z = np.zeros(6, np.int32)
    k[(1,)](z, A=-7, B=2)
    np.testing.assert_array_equal(z, [-4, 1, -4, 1, -4, -1])


def test_constexpr_true_division_is_python():
    @triton.jit
    def k(Z, A: tl.constexpr, B: tl.constexpr):
        tl.static_assert(A / B == 3.5)
        tl.static_assert(A // B == 3)
        tl.store(Z, A / B)

    z = np.zeros(1, np.float32)
    k[(1,)](z, A=7, B=2)
    assert z[0] == 3.5


def test_int_true_division_gives_fp32():
    @triton.jit
    def k(A, B, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        q = a / b
        tl.static_assert(q.dtype == tl.float32)
        tl.store(Z + offs, q)

    a = np.array([1, -7, 10, 3], np.int64)
    b = np.array([2, 2, 4, 3], np.int64)
    z = np.zeros(4, np.float32)
    k[(1,)](a, b, z, N=4)
    np.testing.assert_array_equal(z, [0.5, -3.5, 2.5, 1.0])


def test_float_mod_is_fmod():
    @triton.jit
    def k(A, B, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.load(A + offs) % tl.load(B + offs))

    a = np.array([5.5, -5.5, 5.5, -5.5], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0], np.float32)
    z = np.zeros(4, np.float32)
    k[(1,)](a, b, z, N=4)
    np.testing.assert_array_equal(z, np.fmod(a, b))


def test_unsigned_division():
    @triton.jit
    def k(A, B, Q, R, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        tl.store(Q + offs, a // b)
        tl.store(R + offs, a % b)

    a = np.array([0xFFFFFFFF, 7, 0x80000000, 5], np.uint32)
    b = np.array([2, 3, 3, 7], np.uint32)
    q = np.zeros(4, np.uint32)
    r = np.zeros(4, np.uint32)
    k[(1,)](a, b, q, r, N=4)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


# ---------------------------------------------------------------------------------------
# shifts


def test_shift_semantics():
    @triton.jit
    def k(S, U, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        s = tl.load(S + offs)
        u = tl.load(U + offs)
        tl.store(Z + offs, s >> 28)
        tl.store(Z + N + offs, (u >> 28).to(tl.int32))
        tl.store(Z + 2 * N + offs, s << 4)
        tl.store(Z + 3 * N + offs, (u << 31).to(tl.int32, bitcast=True))

    s = np.array([-1, -2**31, 2**31 - 1, 12345], np.int32)
    u = np.array([0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 3], np.uint32)
    z = np.zeros(16, np.int32)
    k[(1,)](s, u, z, N=4)
    np.testing.assert_array_equal(z[:4], s >> 28)  # arithmetic for signed
    np.testing.assert_array_equal(z[4:8], (u >> 28).astype(np.int32))  # logical for unsigned
    np.testing.assert_array_equal(z[8:12], (s.astype(np.int64) << 4).astype(np.int32))
    np.testing.assert_array_equal(z[12:], (u << 31).view(np.int32))


def test_shift_int8_promotion():
    @triton.jit
    def k(A, B, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        c = a << b  # int8 << int32 -> int32: no int8 wrap
        tl.static_assert(c.dtype == tl.int32)
        tl.store(Z + offs, c)

    a = np.array([100, -100, 1, 64], np.int8)
    b = np.array([3, 2, 20, 1], np.int32)
    z = np.zeros(4, np.int32)
    k[(1,)](a, b, z, N=4)
    np.testing.assert_array_equal(z, [800, -400, 1 << 20, 128])


# ---------------------------------------------------------------------------------------
# unary operators


@pytest.mark.parametrize("xn", ALL_DTYPES)
def test_unary_minus_plus(xn):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            a = -x
            b = +x
            tl.static_assert(a.dtype == tl.{xn})
            tl.static_assert(b.dtype == tl.{xn})
            {store_src("Z + offs", "a", xn)}
            {store_src("Z + N + offs", "b", xn)}
        """)
    x = values(xn, N, np.random.default_rng(8))
    z = np.zeros(2 * N, dtype=out_storage(xn))
    k[(1,)](to_storage(x, xn), z, N=N)
    with np.errstate(all="ignore"):
        want = (-x).astype(x.dtype) if xn not in UINT else (0 - x).astype(x.dtype)
    np.testing.assert_array_equal(from_storage(z[:N], xn), want)
    np.testing.assert_array_equal(from_storage(z[N:], xn), x)


@pytest.mark.parametrize("xn", INTS)
def test_invert(xn):
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            y = ~x
            tl.static_assert(y.dtype == tl.{xn})
            tl.store(Z + offs, y)
        """)
    x = values(xn, N, np.random.default_rng(9))
    z = np.zeros(N, dtype=np.dtype(xn))
    k[(1,)](x, z, N=N)
    np.testing.assert_array_equal(z, ~x)


def test_logical_not_and_bool_ops():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        a = x > 2
        b = x < 6
        tl.store(Z + offs, (a & b).to(tl.int8))
        tl.store(Z + N + offs, (a | b).to(tl.int8))
        tl.store(Z + 2 * N + offs, (a ^ b).to(tl.int8))
        tl.store(Z + 3 * N + offs, (~a).to(tl.int8))

    x = np.arange(8, dtype=np.int32)
    z = np.zeros(32, np.int8)
    k[(1,)](x, z, N=8)
    a, b = x > 2, x < 6
    np.testing.assert_array_equal(z[:8], a & b)
    np.testing.assert_array_equal(z[8:16], a | b)
    np.testing.assert_array_equal(z[16:24], a ^ b)
    np.testing.assert_array_equal(z[24:], ~a)


# ---------------------------------------------------------------------------------------
# where, minimum, maximum, clamp


@pytest.mark.parametrize("xn,yn", [("float32", "float32"), ("float16", "float16"),
                                   ("int8", "int32"), ("int32", "float32"), ("uint8", "uint16"),
                                   ("float16", "float32"), ("bfloat16", "bfloat16"),
                                   ("int64", "float64")])
def test_where(xn, yn):
    out = result_dtype("+", xn, yn)
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            y = {load_src("Y + offs", yn)}
            z = tl.where(offs % 3 == 0, x, y)
            tl.static_assert(z.dtype == tl.{out})
            {store_src("Z + offs", "z", out)}
        """)
    rng = np.random.default_rng(11)
    x, y = values(xn, N, rng), values(yn, N, rng)
    z = np.zeros(N, dtype=out_storage(out))
    k[(1,)](to_storage(x, xn), to_storage(y, yn), z, N=N)
    want = np.where(np.arange(N) % 3 == 0, convert(x, xn, out), convert(y, yn, out))
    np.testing.assert_array_equal(from_storage(z, out), want)


def test_where_scalar_operands_keep_tensor_dtype():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        a = tl.where(x > 0, x, 0.0)
        tl.static_assert(a.dtype == tl.float16)
        b = tl.where(offs < 4, 1, 2)
        tl.static_assert(b.dtype == tl.int32)
        tl.store(Z + offs, a + b)

    x = (np.arange(8) - 4).astype(np.float16)
    z = np.zeros(8, np.float16)
    k[(1,)](x, z, N=8)
    np.testing.assert_array_equal(z, np.maximum(x, 0) + np.where(np.arange(8) < 4, 1, 2))


def test_where_scalar_condition():
    @triton.jit
    def k(Z, N: tl.constexpr):
        pid = tl.program_id(0)
        offs = tl.arange(0, N)
        v = tl.where(pid == 1, offs, -offs)
        tl.store(Z + pid * N + offs, v)

    z = np.zeros(16, np.int32)
    k[(2,)](z, N=8)
    np.testing.assert_array_equal(z, np.concatenate([-np.arange(8), np.arange(8)]))


@pytest.mark.parametrize("xn,yn", [("int32", "int32"), ("uint32", "uint32"), ("int8", "int16"),
                                   ("float32", "float32"), ("float16", "float16"),
                                   ("int32", "float32"), ("int8", "uint8"), ("float64", "float32"),
                                   ("bfloat16", "bfloat16"), ("bfloat16", "int8"),
                                   ("float16", "bfloat16")])
def test_minimum_maximum(xn, yn):
    # Triton computes minimum / maximum of bf16 operands in fp32
    out = result_dtype("+", *["float32" if t == "bfloat16" else t for t in (xn, yn)])
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            y = {load_src("Y + offs", yn)}
            a = tl.minimum(x, y)
            b = tl.maximum(x, y)
            tl.static_assert(a.dtype == tl.{out})
            tl.static_assert(b.dtype == tl.{out})
            {store_src("Z + offs", "a", out)}
            {store_src("Z + N + offs", "b", out)}
        """)
    rng = np.random.default_rng(12)
    x, y = values(xn, N, rng), values(yn, N, rng)
    z = np.zeros(2 * N, dtype=out_storage(out))
    k[(1,)](to_storage(x, xn), to_storage(y, yn), z, N=N)
    cx, cy = convert(x, xn, out), convert(y, yn, out)
    np.testing.assert_array_equal(from_storage(z[:N], out), np.minimum(cx, cy))
    np.testing.assert_array_equal(from_storage(z[N:], out), np.maximum(cx, cy))


def test_minimum_maximum_nan():
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        y = tl.load(Y + offs)
        tl.store(Z + offs, tl.maximum(x, y))
        tl.store(Z + N + offs, tl.minimum(x, y))

    x = np.array([np.nan, 1.0, 3.0, np.nan], np.float32)
    y = np.array([2.0, np.nan, 4.0, np.nan], np.float32)
    z = np.zeros(8, np.float32)
    k[(1,)](x, y, z, N=4)
    np.testing.assert_array_equal(z[:4], [2.0, 1.0, 4.0, np.nan])  # NaN is ignored by default
    np.testing.assert_array_equal(z[4:8], [2.0, 1.0, 3.0, np.nan])


def test_maximum_propagate_nan_all():
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        y = tl.load(Y + offs)
        tl.store(Z + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))

    x = np.array([np.nan, 1.0, 3.0, np.nan], np.float32)
    y = np.array([2.0, np.nan, 4.0, np.nan], np.float32)
    z = np.zeros(4, np.float32)
    k[(1,)](x, y, z, N=4)
    np.testing.assert_array_equal(z, [np.nan, np.nan, 4.0, np.nan])


def test_clamp():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, tl.clamp(x, -1.5, 2.0))
        lo = tl.full([N], -0.5, tl.float32)
        tl.store(Z + N + offs, tl.clamp(x, lo, 0.5))

    x = np.linspace(-4, 4, 16).astype(np.float32)
    z = np.zeros(32, np.float32)
    k[(1,)](x, z, N=16)
    np.testing.assert_array_equal(z[:16], np.clip(x, -1.5, 2.0))
    np.testing.assert_array_equal(z[16:], np.clip(x, -0.5, 0.5))


def test_python_min_max_builtins():
    @triton.jit
    def k(X, Z, n, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, max(x, 2))
        tl.store(Z + N + offs, min(x, n))
        tl.store(Z + 2 * N, min(n, 3))

    x = np.arange(8, dtype=np.int32) - 2
    z = np.zeros(17, np.int32)
    k[(1,)](x, z, 4, N=8)
    np.testing.assert_array_equal(z[:8], np.maximum(x, 2))
    np.testing.assert_array_equal(z[8:16], np.minimum(x, 4))
    assert z[16] == 3


def test_float_literal_inf():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs, mask=offs < 3, other=-float("inf"))
        tl.store(Z + offs, x)
        tl.store(Z + N + offs, tl.where(x > 0, x, float("inf")))

    x = np.array([1, 2, 3, 4], np.float32)
    z = np.zeros(8, np.float32)
    k[(1,)](x, z, N=4)
    np.testing.assert_array_equal(z, [1, 2, 3, -np.inf, 1, 2, 3, np.inf])


@pytest.mark.parametrize("xn", FLOATS)
def test_float_pairs_exact_values(xn):
    """Sums and products of fp16 / bf16 values round once to their format."""
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", xn)}
            y = {load_src("Y + offs", xn)}
            {store_src("Z + offs", "x + y", xn)}
            {store_src("Z + N + offs", "x * y", xn)}
        """)
    rng = np.random.default_rng(13)
    # values needing rounding in the narrow formats
    x = (rng.random(N) * 100).astype(np.float32)
    y = (rng.random(N) * 3).astype(np.float32)
    x, y = convert(x, "float32", xn), convert(y, "float32", xn)
    z = np.zeros(2 * N, dtype=out_storage(xn))
    k[(1,)](to_storage(x, xn), to_storage(y, xn), z, N=N)
    np.testing.assert_array_equal(from_storage(z[:N], xn), ref_binary("+", x, xn, y, xn))
    np.testing.assert_array_equal(from_storage(z[N:], xn), ref_binary("*", x, xn, y, xn))


def test_right_shift_kind_follows_the_tensor_operand_before_promotion():
    # Triton: int8 >> uint8 promotes to uint8 but shifts arithmetically (the left operand
    # is signed); uint8 >> int16 promotes to int16 and shifts logically; `c >> t` follows t
    @triton.jit
    def k(X, Y, U, Z1, Z2, Z3, N: tl.constexpr):
        o = tl.arange(0, N)
        x = tl.load(X + o)
        y = tl.load(Y + o)
        u = tl.load(U + o)
        tl.store(Z1 + o, x >> y)
        tl.store(Z2 + o, u >> (y.to(tl.int16) + 8))
        tl.store(Z3 + o, -64 >> y.to(tl.int32))

    x = np.array([24, -24, 100, -1], np.int8)
    y = np.array([3, 3, 5, 1], np.uint8)
    u = np.array([0x80, 0xFF, 0x10, 0x7F], np.uint8)
    z1 = np.zeros(4, np.uint8)
    z2 = np.zeros(4, np.int16)
    z3 = np.zeros(4, np.int32)
    k[(1,)](x, y, u, z1, z2, z3, 4)
    np.testing.assert_array_equal(z1, (x >> y.astype(np.int8)).view(np.uint8))
    np.testing.assert_array_equal(z2, u.astype(np.int16) >> (y.astype(np.int16) + 8))
    np.testing.assert_array_equal(z3, np.int32(-64) >> y.astype(np.int32))
