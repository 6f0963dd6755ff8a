"""Edge cases across the language: full-range integer arithmetic (wrapping), float special
values (inf, nan, -0.0, fp16 overflow), NaN comparisons, kernel argument types (int64 /
uint64 / fp32 / bool scalars), int64 loop bounds, pointer casts, large grids."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import INTS, SINT, jit_from_source, ref_binary

N = 64


def _full_range(name, n, rng, nonzero=False):
    info = np.iinfo(np.dtype(name))
    v = rng.integers(info.min, info.max, n, dtype=np.dtype(name), endpoint=True)
    v[:4] = [info.min, info.max, 0, 1] if not nonzero else [info.min + 1, info.max, 1, 2]
    if nonzero:
        v = np.where(v == 0, 7, v).astype(np.dtype(name))
    return v


@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "&", "|", "^", "<", "=="])
@pytest.mark.parametrize("xn", INTS)
def test_full_range_int_ops(op, xn):
    """Same-type integer ops over the whole value range: results wrap like C."""
    out = "int1" if op in ("<", "==") else xn
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            z = tl.load(X + offs) {op} tl.load(Y + offs)
            tl.store(Z + offs, z)
        """)
    rng = np.random.default_rng(61)
    x = _full_range(xn, N, rng)
    y = _full_range(xn, N, rng, nonzero=op in ("//", "%"))
    if op in ("//", "%") and xn in SINT:
        # INT_MIN // -1 overflows (undefined in C and in Triton)
        y = np.where((y == -1) & (x == np.iinfo(x.dtype).min), 3, y).astype(y.dtype)
    z = np.zeros(N, np.int8 if out == "int1" else np.dtype(xn))
    k[(1,)](x, y, z, N=N)
    want = ref_binary(op, x, xn, y, xn)
    np.testing.assert_array_equal(z.astype(bool) if out == "int1" else z, want)


@pytest.mark.parametrize("xn", INTS)
def test_full_range_shifts(xn):
    k = jit_from_source("""
        @triton.jit
        def kernel(X, Y, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(X + offs)
            y = tl.load(Y + offs)
            tl.store(Z + offs, x << y)
            tl.store(Z + N + offs, x >> y)
        """)
    rng = np.random.default_rng(62)
    bits = np.dtype(xn).itemsize * 8
    x = _full_range(xn, N, rng)
    y = rng.integers(0, bits, N).astype(np.dtype(xn))
    z = np.zeros(2 * N, np.dtype(xn))
    k[(1,)](x, y, z, N=N)
    np.testing.assert_array_equal(z[:N], np.left_shift(x, y))
    np.testing.assert_array_equal(z[N:], np.right_shift(x, y))


def test_float_special_values_arithmetic():
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        y = tl.load(Y + offs)
        tl.store(Z + offs, x + y)
        tl.store(Z + N + offs, x * y)
        tl.store(Z + 2 * N + offs, x / y)
        tl.store(Z + 3 * N + offs, x - y)

    x = np.array([np.inf, np.inf, 0.0, -0.0, np.nan, 1.0, -1.0, 0.0], np.float32)
    y = np.array([-np.inf, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0, -5.0], np.float32)
    z = np.zeros(32, np.float32)
    k[(1,)](x, y, z, N=8)
    with np.errstate(all="ignore"):
        want = np.concatenate([x + y, x * y, x / y, x - y])
    np.testing.assert_array_equal(z, want)
    finite = ~np.isnan(want)  # the sign of a NaN means nothing
    np.testing.assert_array_equal(np.signbit(z[finite]), np.signbit(want[finite]))


def test_fp16_overflow_and_rounding():
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        y = tl.load(Y + offs)
        tl.store(Z + offs, x + y)
        tl.store(Z + N + offs, x * y)

    x = np.array([65504, 60000, 2049, 1.0, 1e-4, -65504, 0.1, 3.0], np.float16)
    y = np.array([65504, 10000, 1.0, 2.0**-11, 1e-4, -32.0, 0.2, 1 / 3], np.float16)
    z = np.zeros(16, np.float16)
    k[(1,)](x, y, z, N=8)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(z[:8], x + y)
        np.testing.assert_array_equal(z[8:], x * y)


def test_nan_comparisons():
    @triton.jit
    def k(X, Y, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        y = tl.load(Y + offs)
        tl.store(Z + offs, (x < y).to(tl.int8))
        tl.store(Z + N + offs, (x <= y).to(tl.int8))
        tl.store(Z + 2 * N + offs, (x == y).to(tl.int8))
        tl.store(Z + 3 * N + offs, (x != y).to(tl.int8))  # unordered-or-not-equal
        tl.store(Z + 4 * N + offs, (x > y).to(tl.int8))
        tl.store(Z + 5 * N + offs, (x == x).to(tl.int8))

    x = np.array([np.nan, 1.0, np.nan, 0.0], np.float32)
    y = np.array([1.0, np.nan, np.nan, -0.0], np.float32)
    z = np.zeros(24, np.int8)
    k[(1,)](x, y, z, N=4)
    with np.errstate(invalid="ignore"):
        want = [x < y, x <= y, x == y, x != y, x > y, x == x]
    np.testing.assert_array_equal(z, np.concatenate(want).astype(np.int8))


def test_mixed_large_int_and_float():
    @triton.jit
    def k(I, H, F, ZH, ZF, N: tl.constexpr):
        offs = tl.arange(0, N)
        i = tl.load(I + offs)  # int64
        a = i + tl.load(H + offs)  # int64 + fp16 -> fp16
        b = i + tl.load(F + offs)  # int64 + fp32 -> fp32
        tl.static_assert(a.dtype == tl.float16)
        tl.static_assert(b.dtype == tl.float32)
        tl.store(ZH + offs, a)
        tl.store(ZF + offs, b)

    i = np.array([2**40, 16777217, -70000, 3], np.int64)
    h = np.zeros(4, np.float16)
    f = np.zeros(4, np.float32)
    zh, zf = np.zeros(4, np.float16), np.zeros(4, np.float32)
    k[(1,)](i, h, f, zh, zf, N=4)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(zh, i.astype(np.float64).astype(np.float16))
    np.testing.assert_array_equal(zf, i.astype(np.float32))


# ---------------------------------------------------------------------------------------
# kernel argument types


def test_scalar_argument_types():
    @triton.jit
    def k(Z, a, b, c, f, flag):
        tl.static_assert(a.dtype == tl.int32)
        tl.static_assert(b.dtype == tl.int64)
        tl.static_assert(c.dtype == tl.uint64)
        tl.static_assert(f.dtype == tl.float32)
        tl.static_assert(flag.dtype == tl.int1)
        tl.store(Z + 0, a.to(tl.int64))
        tl.store(Z + 1, b)
        tl.store(Z + 2, (c >> 1).to(tl.int64))
        tl.store(Z + 3, (f * 4).to(tl.int64))
        tl.store(Z + 4, tl.where(flag, 11, 22).to(tl.int64))

    z = np.zeros(5, np.int64)
    k[(1,)](z, -5, 2**40 + 3, 2**63 + 10, 2.5, True)
    np.testing.assert_array_equal(z, [-5, 2**40 + 3, (2**63 + 10) >> 1, 10, 11])


def test_int64_loop_bounds():
    @triton.jit
    def k(Z, n):
        count = 0
        last = n * 0
        for i in range(n - 3, n):
            count += 1
            last = i
        tl.static_assert(last.dtype == tl.int64)
        tl.store(Z, last)
        tl.store(Z + 1, count)

    z = np.zeros(2, np.int64)
    k[(1,)](z, 2**33 + 5)
    np.testing.assert_array_equal(z, [2**33 + 4, 3])


def test_pointer_cast_reinterprets_memory():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        xi = X.to(tl.pointer_type(tl.int32))
        tl.store(Z + offs, tl.load(xi + offs))

    x = np.array([1.0, -2.0, np.inf, 0.5], np.float32)
    z = np.zeros(4, np.int32)
    k[(1,)](x, z, N=4)
    np.testing.assert_array_equal(z, x.view(np.int32))


def test_scalar_value_stored_through_tile_of_pointers():
    @triton.jit
    def k(Z, v, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, v)
        tl.store(Z + N + offs, 2.5, mask=offs % 2 == 0)

    z = np.zeros(16, np.float32)
    k[(1,)](z, 7.0, N=8)
    np.testing.assert_array_equal(z[:8], 7.0)
    np.testing.assert_array_equal(z[8:], np.tile([2.5, 0.0], 4))


def test_large_grid_vector_add():
    @triton.jit
    def k(X, Y, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m) + tl.load(Y + offs, mask=m), mask=m)

    n = 100_003
    rng = np.random.default_rng(63)
    x, y = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    z = np.zeros(n, np.float32)
    k[(triton.cdiv(n, 64),)](x, y, z, n, BLOCK=64)
    np.testing.assert_array_equal(z, x + y)


def test_large_grid_atomics():
    @triton.jit
    def k(C, H, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.atomic_add(C, 1)
        tl.atomic_add(H + offs % 7, 1)

    c, h = np.zeros(1, np.int64), np.zeros(7, np.int32)
    k[(5000,)](c, h, BLOCK=16)
    assert c[0] == 5000
    np.testing.assert_array_equal(h, np.bincount(np.arange(5000 * 16) % 7))


def test_reduce_size_one_dims():
    @triton.jit
    def k(X, Z):
        x = tl.load(X + tl.arange(0, 8)[None, :])  # [1, 8]
        a = tl.sum(x, axis=0)  # [8]
        b = tl.sum(x, axis=1)  # [1]
        y = tl.load(X + tl.arange(0, 8)[:, None])  # [8, 1]
        c = tl.max(y, axis=1)  # [8]
        tl.store(Z + tl.arange(0, 8), a + c)
        tl.store(Z + 8 + tl.arange(0, 1), b)

    x = np.arange(8, dtype=np.float32)
    z = np.zeros(9, np.float32)
    k[(1,)](x, z)
    np.testing.assert_array_equal(z, np.r_[2 * x, x.sum()])


def test_scan_3d_last_axis_and_int8_dtype():
    @triton.jit
    def k(X, Z):
        r0 = tl.arange(0, 2)[:, None, None]
        r1 = tl.arange(0, 4)[None, :, None]
        r2 = tl.arange(0, 8)[None, None, :]
        offs = r0 * 32 + r1 * 8 + r2
        x = tl.load(X + offs)  # int8
        y = tl.cumsum(x, axis=2)
        tl.static_assert(y.dtype == tl.int32)
        tl.store(Z + offs, y)
        tl.store(Z + 64 + offs, tl.cumsum(x, axis=0))

    x = np.full((2, 4, 8), 100, np.int8)
    z = np.zeros(128, np.int32)
    k[(1,)](x, z)
    np.testing.assert_array_equal(z[:64].reshape(2, 4, 8), np.cumsum(x.astype(np.int32), 2))
    np.testing.assert_array_equal(z[64:].reshape(2, 4, 8), np.cumsum(x.astype(np.int32), 0))


def test_loop_carried_values_from_a_callee_tuple():
    @triton.jit
    def step(a, b):
        return b, a + b

    @triton.jit
    def k(Z, n):
        a = 0
        b = 1
        for _ in range(n):
            a, b = step(a, b)
        tl.store(Z, a)

    z = np.zeros(1, np.int32)
    k[(1,)](z, 20)
    assert z[0] == 6765


def test_if_inside_loop_merges_tiles():
    @triton.jit
    def k(Z, n, N: tl.constexpr):
        acc = tl.zeros([N], dtype=tl.float32)
        for i in range(n):
            if i % 3 == 0:
                acc = acc + 1.0
            elif i % 3 == 1:
                acc = acc * 2.0
            else:
                acc = acc - tl.arange(0, N).to(tl.float32)
        tl.store(Z + tl.arange(0, N), acc)

    z = np.zeros(4, np.float32)
    k[(1,)](z, 7, N=4)
    acc = np.zeros(4, np.float32)
    for i in range(7):
        acc = acc + 1 if i % 3 == 0 else (acc * 2 if i % 3 == 1 else acc - np.arange(4))
    np.testing.assert_array_equal(z, acc)


def test_literal_types_by_magnitude():
    """Triton types an int literal int32, then uint32, int64, uint64 by magnitude."""
    @triton.jit
    def k(Z, U):
        a = tl.full([1], 2147483647, tl.int64) * 0 + 2147483648  # uint32 literal
        tl.store(Z + tl.arange(0, 1), a)
        tl.store(Z + 1, 4294967296)  # int64 literal
        tl.store(U, 18446744073709551615)  # uint64 literal (2**64 - 1)
        u = tl.load(U + 1 + tl.arange(0, 1))
        tl.store(U + 1 + tl.arange(0, 1), u + 9223372036854775808)

    z = np.zeros(2, np.int64)
    u = np.array([0, 5], np.uint64)
    k[(1,)](z, u)
    np.testing.assert_array_equal(z, [2**31, 2**32])
    np.testing.assert_array_equal(u, np.array([2**64 - 1, 2**63 + 5], np.uint64))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_rounds_every_operation(dt):
    """Each fp16 / bf16 operation rounds to its format: a chain is not computed in fp32
    and rounded once at the end."""
    from lang_util import convert, from_storage, load_src, round_bf16, store_src, to_storage
    k = jit_from_source(f"""
        @triton.jit
        def kernel(X, Y, W, Z, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = {load_src("X + offs", dt)}
            y = {load_src("Y + offs", dt)}
            w = {load_src("W + offs", dt)}
            r = (x * y + w) - x * y
            s = x + w + w + w
            tl.static_assert(r.dtype == tl.{dt})
            {store_src("Z + offs", "r", dt)}
            {store_src("Z + N + offs", "s", dt)}
        """)
    rng = np.random.default_rng(64)
    x = convert((rng.random(N) * 200 + 50).astype(np.float32), "float32", dt)
    y = convert((rng.random(N) * 3 + 1).astype(np.float32), "float32", dt)
    w = convert((rng.random(N) * 0.5).astype(np.float32), "float32", dt)
    z = np.zeros(2 * N, np.uint16 if dt == "bfloat16" else np.float16)
    k[(1,)](to_storage(x, dt), to_storage(y, dt), to_storage(w, dt), z, N=N)
    if dt == "float16":
        r = (x * y + w) - x * y
        s = x + w + w + w
    else:
        rb = round_bf16
        xy = rb(x * y)
        r = rb(rb(xy + w) - xy)
        s = rb(rb(rb(x + w) + w) + w)
    np.testing.assert_array_equal(from_storage(z[:N], dt), r)
    np.testing.assert_array_equal(from_storage(z[N:], dt), s)
    # and the fp32 result differs for most elements: the test can tell
    exact = (x.astype(np.float64) * y + w) - x.astype(np.float64) * y
    assert (np.asarray(r, np.float64) != exact).sum() > N // 4


@triton.jit
def _negative_runs_kernel(Z, s, BLOCK: tl.constexpr):
    # axis info reads // and % as if the dividend were non-negative (as Triton does): a
    # thread holding a run of 4 must still compute each element of x // 4 and x % 4 when x
    # is negative (truncating division), and so must a compare on them
    x = tl.arange(0, BLOCK) - s
    q = x // 4
    r = x % 4
    w = tl.where(q < 1, r, 100)
    offs = tl.arange(0, BLOCK)
    tl.store(Z + offs, q)
    tl.store(Z + BLOCK + offs, r)
    tl.store(Z + 2 * BLOCK + offs, w)


@pytest.mark.parametrize("s", [16, 0, 32])
def test_truncating_division_of_negative_runs(s):
    block = 1024
    z = np.zeros(3 * block, np.int32)
    _negative_runs_kernel[(1,)](z, s, BLOCK=block)
    x = np.arange(block) - s
    q = np.trunc(x / 4).astype(np.int32)
    r = (x - 4 * q).astype(np.int32)
    np.testing.assert_array_equal(z[:block], q)
    np.testing.assert_array_equal(z[block:2 * block], r)
    np.testing.assert_array_equal(z[2 * block:], np.where(q < 1, r, 100))
