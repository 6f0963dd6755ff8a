"""Grids (1-, 2- and 3-D, callable grids, program_id / num_programs on every axis) and
memory: masked loads with `other`, scalar loads and stores, pointer arithmetic with
strides, strided numpy views, bool arrays, implicit conversion on store, hints."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


@triton.jit
def _grid_kernel(Z):
    p0 = tl.program_id(0)
    p1 = tl.program_id(axis=1)
    p2 = tl.program_id(2)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(axis=1)
    n2 = tl.num_programs(2)
    lin = (p2 * n1 + p1) * n0 + p0
    base = Z + lin * 6
    tl.store(base + 0, p0)
    tl.store(base + 1, p1)
    tl.store(base + 2, p2)
    tl.store(base + 3, n0)
    tl.store(base + 4, n1)
    tl.store(base + 5, n2)


@pytest.mark.parametrize("grid", [(7,), (3, 5), (2, 3, 4), (1, 1, 1), (5, 1, 2)])
def test_grid_ids(grid):
    full = tuple(grid) + (1,) * (3 - len(grid))
    n = int(np.prod(full))
    z = np.full((n, 6), -1, np.int32)
    _grid_kernel[grid](z)
    want = []
    for p2 in range(full[2]):
        for p1 in range(full[1]):
            for p0 in range(full[0]):
                want.append([p0, p1, p2, *full])
    np.testing.assert_array_equal(z, np.array(want))


def test_grid_callable_with_meta():
    @triton.jit
    def k(X, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m) + 1, mask=m)

    n = 1000
    x = np.arange(n, dtype=np.float32)
    z = np.zeros(n, np.float32)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton.cdiv(n, meta["BLOCK"]),)

    k[grid](x, z, n, BLOCK=128)
    np.testing.assert_array_equal(z, x + 1)
    assert seen and seen[0]["BLOCK"] == 128 and seen[0]["n"] == n


def test_empty_grid_launches_nothing():
    @triton.jit
    def k(Z):
        tl.store(Z + tl.program_id(0), 1)

    z = np.zeros(4, np.int32)
    k[(0,)](z)
    k[(2, 0)](z)
    assert (z == 0).all()


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

    M, N = 37, 53
    x = np.random.default_rng(1).normal(size=(M, N)).astype(np.float32)
    z = np.zeros((M, N), np.float32)
    k[(triton.cdiv(M, 16), triton.cdiv(N, 8))](x, z, M, N, N, BM=16, BN=8)
    pm = (np.arange(M) // 16)[:, None]
    pn = (np.arange(N) // 8)[None, :]
    np.testing.assert_allclose(z, x * 2 + pm * 1000 + pn, rtol=1e-6)


# ---------------------------------------------------------------------------------------
# loads and stores


def test_masked_load_other_values():
    @triton.jit
    def k(X, Z, n, N: tl.constexpr):
        offs = tl.arange(0, N)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m, other=-1.5))
        tl.store(Z + N + offs, tl.load(X + offs, mask=m, other=0))  # int other, fp32 pointer
        alt = offs.to(tl.float32) * 100
        tl.store(Z + 2 * N + offs, tl.load(X + offs, mask=m, other=alt))  # tile other
        a = tl.load(X + offs, mask=m)  # masked-out lanes are not stored either
        tl.store(Z + 3 * N + offs, a, mask=m)

    x = np.arange(5, dtype=np.float32) + 1  # only 5 elements: the mask guards the rest
    z = np.full(32, 9.0, np.float32)
    k[(1,)](x, z, 5, N=8)
    tail = np.arange(5, 8)
    np.testing.assert_array_equal(z[:8], np.r_[x, [-1.5] * 3])
    np.testing.assert_array_equal(z[8:16], np.r_[x, [0] * 3])
    np.testing.assert_array_equal(z[16:24], np.r_[x, tail * 100])
    np.testing.assert_array_equal(z[24:32], np.r_[x, [9.0] * 3])


def test_masked_load_2d_broadcast_mask():
    @triton.jit
    def k(X, Z, M, BM: tl.constexpr, BN: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        x = tl.load(X + rm[:, None] * BN + rn[None, :], mask=rm[:, None] < M, other=7)
        tl.store(Z + rm[:, None] * BN + rn[None, :], x)

    x = np.arange(3 * 4, dtype=np.int16).reshape(3, 4)
    z = np.zeros((4, 4), np.int16)
    k[(1,)](x, z, 3, BM=4, BN=4)
    np.testing.assert_array_equal(z, np.r_[x, np.full((1, 4), 7)])


def test_scalar_loads_and_stores():
    @triton.jit
    def k(X, Z):
        a = tl.load(X)
        b = tl.load(X + 3)
        tl.store(Z, a + b)
        tl.store(Z + 1, a * b)
        pid = tl.program_id(0)
        tl.store(Z + 2, 5, mask=pid == 0)
        c = tl.load(X + 10, mask=pid > 100, other=-1)  # masked: no access past the end
        tl.store(Z + 3, c)

    x = np.array([2, 0, 0, 7], np.int32)
    z = np.zeros(4, np.int32)
    k[(1,)](x, z)
    np.testing.assert_array_equal(z, [9, 14, 5, -1])


def test_pointer_arithmetic_with_strides():
    @triton.jit
    def k(X, Z, stride_r, stride_c, col, N: tl.constexpr):
        offs = tl.arange(0, N)
        column = tl.load(X + offs * stride_r + col * stride_c)
        row = tl.load(X + 2 * stride_r + offs * stride_c)
        tl.store(Z + offs, column)
        tl.store(Z + N + offs, row)
        p = X + 1
        p += stride_r  # pointer increment
        q = p - 1  # pointer minus an integer
        tl.store(Z + 2 * N, tl.load(q))

    x = np.arange(8 * 8, dtype=np.float64).reshape(8, 8)
    z = np.zeros(17, np.float64)
    k[(1,)](x, z, 8, 1, 3, N=8)
    np.testing.assert_array_equal(z[:8], x[:, 3])
    np.testing.assert_array_equal(z[8:16], x[2])
    assert z[16] == x[1, 0]


def test_pointer_increment_in_loop():
    @triton.jit
    def k(X, Z, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        ptrs = X + offs
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for _ in range(0, n, BLOCK):
            acc += tl.load(ptrs)
            ptrs += BLOCK
        tl.store(Z + offs, acc)

    x = np.arange(64, dtype=np.float32)
    z = np.zeros(8, np.float32)
    k[(1,)](x, z, 64, BLOCK=8)
    np.testing.assert_array_equal(z, x.reshape(8, 8).sum(0))


def test_strided_numpy_view():
    @triton.jit
    def k(X, Z, stride, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.load(X + offs * stride))

    base = np.arange(40, dtype=np.int32).reshape(8, 5)
    col = base[:, 2]  # a non-contiguous view: its pointer is &base[0, 2]
    z = np.zeros(8, np.int32)
    k[(1,)](col, z, col.strides[0] // col.itemsize, N=8)
    np.testing.assert_array_equal(z, col)


def test_unsigned_offsets_are_zero_extended():
    @triton.jit
    def k(X, U, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        u = tl.load(U + offs)  # uint8 offsets above 127
        tl.store(Z + offs, tl.load(X + u))

    x = np.arange(256, dtype=np.int32)
    u = np.array([200, 255, 128, 3], np.uint8)
    z = np.zeros(4, np.int32)
    k[(1,)](x, u, z, N=4)
    np.testing.assert_array_equal(z, [200, 255, 128, 3])


def test_int64_offsets():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N).to(tl.int64)
        tl.store(Z + offs, tl.load(X + offs * 2))

    x = np.arange(16, dtype=np.float32)
    z = np.zeros(8, np.float32)
    k[(1,)](x, z, N=8)
    np.testing.assert_array_equal(z, x[::2])


def test_bool_arrays():
    @triton.jit
    def k(B, Z, ZB, N: tl.constexpr):
        offs = tl.arange(0, N)
        b = tl.load(B + offs)
        tl.static_assert(b.dtype == tl.int1)
        tl.store(Z + offs, tl.where(b, 1, -1))
        tl.store(ZB + offs, ~b)

    b = np.array([True, False, True, True], bool)
    z, zb = np.zeros(4, np.int32), np.zeros(4, bool)
    k[(1,)](b, z, zb, N=4)
    np.testing.assert_array_equal(z, [1, -1, 1, 1])
    np.testing.assert_array_equal(zb, ~b)


def test_store_converts_to_pointer_type():
    @triton.jit
    def k(ZF, ZH, ZI, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(ZF + offs, offs)  # int32 -> fp32
        tl.store(ZH + offs, offs.to(tl.float32) * 0.5)  # fp32 -> fp16
        tl.store(ZI + offs, offs.to(tl.float32) * 1.75)  # fp32 -> int8 truncates
        tl.store(ZF + N, 3)  # a constant

    zf, zh, zi = np.zeros(5, np.float32), np.zeros(4, np.float16), np.zeros(4, np.int8)
    k[(1,)](zf, zh, zi, N=4)
    np.testing.assert_array_equal(zf, [0, 1, 2, 3, 3])
    np.testing.assert_array_equal(zh, np.arange(4) * 0.5)
    np.testing.assert_array_equal(zi, [0, 1, 3, 5])


def test_load_store_hints_accepted():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.multiple_of(tl.arange(0, N), 8)
        offs = tl.max_contiguous(offs, 8)
        x = tl.load(X + offs, cache_modifier=".cg", eviction_policy="evict_last")
        y = tl.load(X + offs, volatile=True)
        tl.debug_barrier()
        tl.store(Z + offs, x + y, cache_modifier=".wb", eviction_policy="evict_first")

    x = np.arange(8, dtype=np.float32)
    z = np.zeros(8, np.float32)
    k[(1,)](x, z, N=8)
    np.testing.assert_array_equal(z, 2 * x)


def test_in_place_update():
    @triton.jit
    def k(X, N: tl.constexpr):
        offs = tl.program_id(0) * N + tl.arange(0, N)
        tl.store(X + offs, tl.load(X + offs) * 3)

    x = np.arange(32, dtype=np.float32)
    k[(4,)](x, N=8)
    np.testing.assert_array_equal(x, np.arange(32) * 3)


def test_pointer_dtype_and_element_ty():
    @triton.jit
    def k(X, Z):
        tl.static_assert(X.dtype.element_ty == tl.float16)
        tl.static_assert(Z.dtype.element_ty == tl.int64)
        tl.store(Z, tl.load(X).to(Z.dtype.element_ty))

    z = np.zeros(1, np.int64)
    k[(1,)](np.array([7.9], np.float16), z)
    assert z[0] == 7


@triton.jit
def _row_mask_kernel(X, Z, M, stride, n, BLOCK: tl.constexpr):
    # a 2-D mask whose bound is a multiple of 16 on some calls: the GPU path then compares
    # once per run of 16 columns; the selected values and the masked stores must not change
    rows = tl.arange(0, 8)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    mask = (cols < n) & (rows < M)
    x = tl.load(X + rows * stride + cols, mask=mask, other=-1.0)
    y = tl.where(cols < n, x * 2.0, 7.0)
    odd = (cols >= n) | (rows >= M)
    tl.store(Z + rows * stride + cols, tl.where(odd, y + 100.0, y), mask=rows < M)


@pytest.mark.parametrize("n", [48, 64, 16, 0, 40, 33])
def test_mask_bound_multiple_of_16(n):
    block, m = 64, 6
    x = np.random.default_rng(n).standard_normal((m, block)).astype(np.float32)
    z = np.full((m, block), np.nan, np.float32)
    _row_mask_kernel[(1,)](x, z, m, block, n, BLOCK=block)
    cols = np.arange(block)[None, :]
    want = np.where(cols < n, x * 2.0, 107.0).astype(np.float32)
    np.testing.assert_array_equal(z, want)


# ---------------------------------------------------------------------------------------
# tl.const pointer parameters


@triton.jit
def _copy_from_const(src: tl.const, dst, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def test_const_pointer_loads():
    # reading through a tl.const pointer (and pointers computed from it) is ordinary
    src = np.arange(16, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    _copy_from_const[(1,)](src, dst, 16, B=16)
    np.testing.assert_array_equal(dst, src)


@triton.jit
def _store_const(dst: tl.const, B: tl.constexpr):
    tl.store(dst + tl.arange(0, B), 1.0)  # MARK store


@triton.jit
def _atomic_const(dst: tl.const):
    tl.atomic_add(dst, 1.0)  # MARK atomic


@triton.jit
def _if_joins_const(a, c: tl.const, pick):
    if pick:
        out = c
    else:
        out = a
    tl.store(out, 1.0)


@triton.jit
def _ternary_joins_const(a, c: tl.const, pick):
    out = c if pick else a
    tl.store(out, 1.0)


@triton.jit
def _pick(a, b, pick):
    if pick:
        return b
    else:
        return a


@triton.jit
def _return_joins_const(a, c: tl.const, pick):
    tl.store(_pick(a, c, pick), 1.0)


@pytest.mark.parametrize("kernel, args, words", [
    (_store_const, dict(B=4), "Cannot store to a constant pointer"),
    (_atomic_const, {}, "Cannot store to a constant pointer"),
    (_if_joins_const, dict(pick=3), "Mismatched type for out"),
    (_ternary_joins_const, dict(pick=3),
     "Ternary expression with dynamic condition has inconsistent type"),
    (_return_joins_const, dict(pick=3), "Inconsistent return types"),
])
def test_const_pointer_errors(kernel, args, words):
    # Triton's rules and wording: no store or atomic through a const pointer; a const and a
    # plain pointer do not join (the message names the const_pointer type; pick is a
    # run-time value: 1 would be specialised to a constant and choose a branch)
    names = [n for n in kernel.arg_names if n not in args]
    pos = [np.zeros(4, np.float32) for _ in names]
    with pytest.raises(triton.CompilationError) as info:
        kernel[(1,)](*pos, **args)
    assert words in str(info.value)
    if "store" in words:
        assert "MARK" in str(info.value)  # the caret line is the offending call
    else:
        assert "const_pointer<fp32>" in str(info.value)
