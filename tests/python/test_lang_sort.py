"""tl.sort (and x.sort), tl.topk, tl.bitonic_merge against numpy, for every dtype, 1-D and
2-D, both directions; the network itself bit for bit against GOLDEN values produced by
Triton 3.6's interpreter (TRITON_INTERPRET=1) from the same kernels, on data whose NaNs and
signed zeros Triton's network does not keep as a permutation. Also tl.add/sub/mul."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import INTS, bf16_bits_to_f32, f32_to_bf16_bits

NAN = float("nan")
GOLD_IN = [3., -0., 0., NAN, 1., -2., 0., -0., 5., NAN, -0., 2., 2., -7., 0., 1.,
           -1., 4., 0., -0., NAN, 3., 6., -0., 1., 1., -3., 0., 8., -0., 2., NAN]
_A = [0xc0e00000, 0xc0000000] + [0x80000000] * 6 + [
    0x3f800000, 0x40000000, 0x3f800000, 0x40400000, 0x40000000, 0x40400000, 0x40a00000,
    0x40a00000]
GOLD_SORT = {False: _A * 2, True: [0x7fc00000] * 32}
# GOLD_IN with its negative zeros replaced by 0.5 (tl.max's choice between -0 and +0 is
# the back end's), top 4 and top 16
GOLD_TOPK = {4: [0x40c00000, 0x40a00000, 0x40c00000, 0x40800000],
             16: [0x40a00000, 0x40a00000, 0x40400000, 0x40000000, 0x40400000, 0x3f800000,
                  0x40000000, 0x3f800000, 0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000,
                  0x0, 0x0, 0xc0000000, 0xc0e00000]}
# bitonic_merge of a row that is not bitonic: the network's output, not a sorted row
GOLD_MERGE_IN = [5, 3, 9, 1, 7, 2, 8, 4, 0, 6, 11, 15, 13, 10, 14, 12]
GOLD_MERGE = {False: [0, 1, 2, 8, 3, 7, 4, 9, 5, 6, 11, 12, 10, 13, 14, 15],
              True: [15, 14, 13, 10, 12, 11, 6, 5, 9, 4, 7, 3, 8, 2, 1, 0]}


@triton.jit
def k_sort(X, Y, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.sort(tl.load(X + offs), descending=DESC))


@triton.jit
def k_sort_bf16(X, Y, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs).to(tl.bfloat16, bitcast=True)
    tl.store(Y + offs, tl.sort(x, 0, DESC).to(tl.uint16, bitcast=True))


@triton.jit
def k_sort_rows(X, Y, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr, HOW: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    if HOW == 0:
        y = tl.sort(x, descending=DESC)
    elif HOW == 1:
        y = x.sort(dim=1, descending=DESC)
    else:
        y = tl.sort(x, -1, DESC)
    tl.store(Y + offs, y)


@triton.jit
def k_topk(X, Y, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    t = tl.topk(x, K, dim=1)
    tl.store(Y + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], t)


@triton.jit
def k_topk_1d(X, Y, N: tl.constexpr, K: tl.constexpr):
    tl.store(Y + tl.arange(0, K), tl.topk(tl.load(X + tl.arange(0, N)), K))


@triton.jit
def k_merge(X, Y, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Y + offs, tl.bitonic_merge(tl.load(X + offs), descending=DESC))


def _data(dtype, n, seed=0):
    rs = np.random.RandomState(seed)
    if dtype == "bool":
        return rs.randint(0, 2, n).astype(np.bool_)
    if dtype in INTS:
        info = np.iinfo(dtype)
        # duplicates, the extremes, and (signed) both signs
        x = rs.randint(-20 if info.min < 0 else 0, 20, n).astype(dtype)
        x[rs.randint(0, n, 3)] = info.max
        x[rs.randint(0, n, 3)] = info.min
        return x
    x = rs.randint(-30, 30, n).astype(dtype) / 4
    x[rs.randint(0, n, 4)] = -0.0  # equal to 0: numpy's order holds by value
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", INTS + ["float16", "float32", "float64", "bool"])
@pytest.mark.parametrize("desc", [False, True])
def test_sort_1d(dtype, desc):
    n = 128
    x = _data(dtype, n)
    y = np.zeros_like(x)
    k_sort[(1,)](x, y, N=n, DESC=desc)
    ref = np.sort(x)[::-1] if desc else np.sort(x)
    np.testing.assert_array_equal(y, ref)


@pytest.mark.parametrize("n", [1, 2, 1024])
def test_sort_sizes(n):
    x = _data("float32", n, seed=n)
    y = np.zeros_like(x)
    k_sort[(1,)](x, y, N=n, DESC=False, num_warps=4)
    np.testing.assert_array_equal(y, np.sort(x))


@pytest.mark.parametrize("desc", [False, True])
def test_sort_bf16(desc):
    n = 64
    v = bf16_bits_to_f32(f32_to_bf16_bits(_data("float32", n, seed=3)))
    y = np.zeros(n, np.uint16)
    k_sort_bf16[(1,)](f32_to_bf16_bits(v), y, N=n, DESC=desc)
    ref = np.sort(v)[::-1] if desc else np.sort(v)
    np.testing.assert_array_equal(bf16_bits_to_f32(y), ref)


@pytest.mark.parametrize("dtype", ["int16", "uint32", "float32", "float16"])
@pytest.mark.parametrize("desc", [False, True])
@pytest.mark.parametrize("how", [0, 1, 2])
def test_sort_rows(dtype, desc, how):
    m, n = 8, 32
    x = _data(dtype, m * n, seed=how).reshape(m, n)
    y = np.zeros_like(x)
    k_sort_rows[(1,)](x, y, M=m, N=n, DESC=desc, HOW=how)
    ref = np.sort(x, axis=1)
    np.testing.assert_array_equal(y, ref[:, ::-1] if desc else ref)


@pytest.mark.parametrize("desc", [False, True])
def test_sort_golden_nan_zeros(desc):
    """Triton's network bit for bit: NaN compares false both ways, so it spreads over
    its partners, and a -0 sent across meets +0 as equal and overwrites it."""
    x = np.array(GOLD_IN, np.float32)
    y = np.zeros_like(x)
    k_sort[(1,)](x, y, N=32, DESC=desc)
    assert y.view(np.uint32).tolist() == GOLD_SORT[desc]


@pytest.mark.parametrize("k", [4, 16])
def test_topk_golden(k):
    x = np.array(GOLD_IN, np.float32)
    x[(x == 0) & np.signbit(x)] = 0.5
    y = np.zeros(k, np.float32)
    k_topk_1d[(1,)](x, y, N=32, K=k)
    assert y.view(np.uint32).tolist() == GOLD_TOPK[k]


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float16"])
@pytest.mark.parametrize("k", [1, 2, 8, 64])
def test_topk(dtype, k):
    m, n = 4, 64
    x = _data(dtype, m * n, seed=k).reshape(m, n)
    y = np.zeros((m, k), x.dtype)
    k_topk[(1,)](x, y, M=m, N=n, K=k)
    np.testing.assert_array_equal(y, np.sort(x, axis=1)[:, ::-1][:, :k])


@triton.jit
def k_topk_dtype(X, Y):
    x = tl.load(X + tl.arange(0, 8))
    t = tl.topk(x, 2)
    # as Triton: the top-k reduction is tl.max's, which widens narrow types
    tl.static_assert(t.dtype == tl.float32)
    tl.static_assert(tl.topk(x, 8).dtype == tl.float16)
    tl.static_assert(tl.topk(x.to(tl.int8), 4).dtype == tl.int32)
    tl.store(Y + tl.arange(0, 2), t)


def test_topk_dtype():
    x = np.array([1, 7, 3, 5, 2, 8, 4, 6], np.float16)
    y = np.zeros(2, np.float32)
    k_topk_dtype[(1,)](x, y)
    np.testing.assert_array_equal(y, [8, 7])


@pytest.mark.parametrize("desc", [False, True])
def test_bitonic_merge(desc):
    m, n = 4, 32
    rs = np.random.RandomState(5)
    rows = []
    for i in range(m):  # up then down, rotated: bitonic
        v = np.sort(rs.randint(-50, 50, n).astype(np.float32))
        rows.append(np.roll(np.concatenate([v[::2], v[1::2][::-1]]), i * 3))
    x = np.stack(rows)
    y = np.zeros_like(x)
    k_merge[(1,)](x, y, M=m, N=n, DESC=desc)
    ref = np.sort(x, axis=1)
    np.testing.assert_array_equal(y, ref[:, ::-1] if desc else ref)


@pytest.mark.parametrize("desc", [False, True])
def test_bitonic_merge_golden(desc):
    x = np.array([GOLD_MERGE_IN], np.float32)
    y = np.zeros_like(x)
    k_merge[(1,)](x, y, M=1, N=16, DESC=desc)
    assert y[0].tolist() == GOLD_MERGE[desc]


@triton.jit
def k_arith(X, Y, Z, F, G):
    offs = tl.arange(0, 4)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Z + offs, tl.add(x, y))
    tl.store(Z + 4 + offs, tl.sub(x, y, sanitize_overflow=False))
    tl.store(Z + 8 + offs, tl.mul(x, 3))
    tl.store(Z + 12 + offs, tl.add(2, 3) + tl.mul(x, y, False) * 0)
    f = tl.load(F + offs)
    tl.store(G + offs, tl.mul(tl.sub(f, 0.5), tl.add(f, f)))


def test_add_sub_mul():
    x = np.array([2**31 - 1, 5, -3, -2**31], np.int32)
    y = np.array([1, 2, 3, 4], np.int32)
    z = np.zeros(16, np.int32)
    f = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    g = np.zeros(4, np.float32)
    k_arith[(1,)](x, y, z, f, g)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(z[:4], x + y)  # wraps, as Triton's without debug
        np.testing.assert_array_equal(z[4:8], x - y)
        np.testing.assert_array_equal(z[8:12], x * np.int32(3))
    np.testing.assert_array_equal(z[12:], [5] * 4)
    np.testing.assert_array_equal(g, (f - np.float32(0.5)) * (f + f))


def test_standard_constexpr_helpers():
    # Inductor's sort helpers import triton.language.standard._log2 (a constexpr_function in
    # Triton) and size their bitonic stages with it inside kernels.
    from tilec.language.standard import _is_power_of_two, _log2

    @triton.jit
    def k(Out, N: tl.constexpr):
        n_dims: tl.constexpr = _log2(N)
        tl.static_assert(_is_power_of_two(N))
        acc = tl.zeros([N], tl.int32)
        for i in tl.static_range(1, n_dims + 1):
            acc += i
        tl.store(Out + tl.arange(0, N), acc + _is_power_of_two(N + 1))

    out = np.zeros(64, np.int32)
    k[(1,)](out, N=64)
    assert (out == 21).all()  # 1 + ... + 6, and 65 is no power of two


def test_core_get_int_dtype():
    # Inductor's bitonic sort bitcasts its keys to the signed integer type of their width.
    @triton.jit
    def k(X, Out):
        x = tl.load(X + tl.arange(0, 8))
        idtype = tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
        u8 = tl.core.get_int_dtype(8, False)
        tl.store(Out + tl.arange(0, 8), x.to(idtype, bitcast=True) + (u8.primitive_bitwidth))

    x = np.linspace(-2, 2, 8).astype(np.float32)
    out = np.zeros(8, np.int32)
    k[(1,)](x, out)
    np.testing.assert_array_equal(out, x.view(np.int32) + 8)
