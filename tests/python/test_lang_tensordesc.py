"""Tensor descriptors: tl.make_tensor_descriptor in kernels and host TensorDescriptor
arguments (tilec.tools.tensor_descriptor, Triton's triton.tools.tensor_descriptor); loads
and stores of 1-D, 2-D and 3-D blocks, partial and wholly outside blocks, padding "zero"
and "nan", stores that leave the memory outside the described tensor alone, descriptors
through loops, `if`, @jit helpers and tuples, a tl.dot matmul, atomics, gather / scatter,
and the AOT signature of a descriptor (host TensorDescriptor arguments in detail:
test_lang_tensordesc_host.py). The references are numpy's."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor
from lang_util import aligned, rand


def window(x, offsets, block, fill=0):
    """The block of `x` at `offsets`, `fill` outside x."""
    out = np.full(block, fill, dtype=np.float64 if np.isnan(fill) else x.dtype)
    idx = np.indices(block).reshape(len(block), -1).T
    for i in idx:
        src = tuple(int(o + d) for o, d in zip(offsets, i))
        if all(0 <= s < n for s, n in zip(src, x.shape)):
            out[tuple(i)] = x[src]
    return out


# --------------------------------------------------------------------------------------
# in-kernel descriptors


@triton.jit
def k_copy2d(X, Y, M, N, sx, sy, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(X, shape=[M, N], strides=[sx, 1], block_shape=[BM, BN])
    yd = tl.make_tensor_descriptor(Y, [M, N], [sy, 1], [BM, BN])
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    yd.store([pm, pn], xd.load([pm, pn]) * 2)


@pytest.mark.parametrize("m,n", [(37, 53), (64, 64), (1, 17)])
def test_2d_copy_with_partial_blocks(m, n):
    x = rand((m, n))
    y = aligned((m, n), np.float32)
    k_copy2d[(triton.cdiv(m, 16), triton.cdiv(n, 32))](x, y, m, n, n, n, BM=16, BN=32)
    np.testing.assert_array_equal(y, 2 * x)


def test_store_leaves_memory_outside_the_tensor_alone():
    # the tensor is the top-left 37 x 50 of a 48 x 64 array (row stride 64): blocks that
    # reach past it write nothing there
    x = rand((48, 64), seed=1)
    y = aligned((48, 64), np.float32, fill=-7.0)
    k_copy2d[(3, 2)](x, y, 37, 50, 64, 64, BM=16, BN=32)
    np.testing.assert_array_equal(y[:37, :50], 2 * x[:37, :50])
    assert (y[37:, :] == -7).all() and (y[:, 50:] == -7).all()


@triton.jit
def k_1d(X, Y, N, B: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [N], [1], [B])
    o = tl.make_tensor_descriptor(Y, [N], [1], [B])
    p = tl.program_id(0) * B
    o.store([p], d.load([p]) + 1)


def test_1d():
    x = rand((100,), seed=2)
    y = aligned((100,), np.float32, fill=5.0)
    k_1d[(4,)](x, y, 100, B=32)
    np.testing.assert_array_equal(y, x + 1)


@triton.jit
def k_3d(X, Y, D0, D1, D2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    xd = tl.make_tensor_descriptor(X, [D0, D1, D2], [D1 * D2, D2, 1], [B0, B1, B2])
    yd = tl.make_tensor_descriptor(Y, [D0, D1, D2], [D1 * D2, D2, 1], [B0, B1, B2])
    p, q = tl.program_id(0) * B0, tl.program_id(1) * B2
    yd.store([p, 0, q], xd.load([p, 0, q]) - 3.0)


def test_3d():
    x = rand((5, 3, 40), seed=3)
    y = aligned((5, 3, 40), np.float32)
    k_3d[(3, 3)](x, y, 5, 3, 40, B0=2, B1=4, B2=16)
    np.testing.assert_array_equal(y, x - 3)


@triton.jit
def k_read_at(X, Y, M, N, om, on, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    xd = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    v = xd.load([om, on])
    r = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(Y + r, v)


@pytest.mark.parametrize("om,on", [(0, 0), (3, 5), (-5, -3), (12, 0), (0, 40), (-16, 0),
                                   (100, 100)])
@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_blocks_at_edges_and_outside(om, on, pad):
    m, n = 13, 20
    x = rand((m, n), seed=4)
    y = aligned((8, 16), np.float32, fill=99.0)
    k_read_at[(1,)](x, y, m, n, om, on, BM=8, BN=16, PAD=pad)
    want = window(x, (om, on), (8, 16), np.nan if pad == "nan" else 0)
    np.testing.assert_array_equal(y, want)


@triton.jit
def k_int_block(X, Y, N, B: tl.constexpr):
    v = tl.make_tensor_descriptor(X, [N], [1], [B]).load([0])
    tl.store(Y + tl.arange(0, B), v + 1)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float16",
                                   "float64"])
def test_dtypes_read_zero_outside(dtype):
    x = aligned((5,), dtype)
    x[...] = np.arange(1, 6)
    b = max(16, 16 // x.itemsize)
    y = aligned((b,), dtype)
    k_int_block[(1,)](x, y, 5, B=b)
    assert y.tolist() == [2, 3, 4, 5, 6] + [1] * (b - 5)


@triton.jit
def k_attrs(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    tl.static_assert(d.block_shape[0] == BM and d.block_shape[1] == BN)
    tl.static_assert(d.dtype == tl.float32)
    tl.static_assert(d.block_type.shape[1] == BN)
    tl.store(Y + 0, d.shape[0] * 1000 + d.shape[1])
    tl.store(Y + 1, d.strides[0] * 10 + d.strides[1])
    v = tl.load_tensor_descriptor(d, [1, 0])
    tl.store_tensor_descriptor(d, [0, 0], v)


def test_attributes_and_free_functions():
    x = rand((4, 16), seed=5)
    want = x.copy()
    want[:3] = x[1:4]
    y = aligned((2,), np.int64)
    k_attrs[(1,)](x, y, 4, 16, BM=4, BN=16)
    assert y.tolist() == [4016, 161]
    np.testing.assert_array_equal(x[:3], want[:3])
    assert (x[3] == 0).all()


# --------------------------------------------------------------------------------------
# descriptors through control flow, helpers and tuples


@triton.jit
def k_row_sums(X, Out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0) * BM
    acc = tl.zeros((BM,), tl.float32)
    for k in range(0, N, BN):
        acc += tl.sum(d.load([pm, k]), axis=1)
    tl.store(Out + pm + tl.arange(0, BM), acc, mask=pm + tl.arange(0, BM) < M)


def test_loads_in_a_loop():
    x = rand((40, 70), seed=6)
    out = aligned((40,), np.float32)
    k_row_sums[(3,)](x, out, 40, 70, BM=16, BN=32)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-6)


@triton.jit
def k_window_sums(X, Out, N, start, B: tl.constexpr, START: tl.constexpr):
    # loop offsets from a run-time start and from a negative constexpr one: neither is
    # known to be >= 0, so both bounds are checked
    d = tl.make_tensor_descriptor(X, [N], [1], [B])
    acc = tl.zeros((B,), tl.float32)
    for k in range(start, N, B):
        acc += d.load([k])
    for k in range(START, N, B):
        acc += d.load([k]) * 10
    tl.store(Out + tl.arange(0, B), acc)


def test_loop_offsets_of_unknown_sign():
    n, b = 50, 16
    x = rand((n,), seed=25)
    out = aligned((b,), np.float32)
    k_window_sums[(1,)](x, out, n, -7, B=b, START=-20)
    want = sum(window(x, (k,), (b,)) for k in range(-7, n, b))
    want = want + 10 * sum(window(x, (k,), (b,)) for k in range(-20, n, b))
    np.testing.assert_allclose(out, want, rtol=1e-6)


@triton.jit
def k_carried(X, Out, ROWS, N, B: tl.constexpr):
    # the descriptor itself is loop-carried: each iteration makes the next row's
    d = tl.make_tensor_descriptor(X, [N], [1], [B])
    acc = tl.zeros((B,), tl.float32)
    for r in range(1, ROWS + 1):
        acc += d.load([0])
        d = tl.make_tensor_descriptor(X + r * N, [N], [1], [B])
    o = tl.make_tensor_descriptor(Out, [N], [1], [B])
    o.store([0], acc)


def test_loop_carried_descriptor():
    x = rand((5, 24), seed=7)
    out = aligned((24,), np.float32, fill=-1.0)
    k_carried[(1,)](x, out, 5, 24, B=32)
    np.testing.assert_allclose(out, x.sum(axis=0), rtol=1e-6)


@triton.jit
def k_while(X, Out, N, B: tl.constexpr):
    # a while loop carrying a descriptor whose shape shrinks: each pass reads one element
    # fewer (the rest zero)
    n = N
    d = tl.make_tensor_descriptor(X, [n], [1], [B])
    acc = tl.zeros((B,), tl.float32)
    while n > 0:
        acc += d.load([0])
        n -= 1
        d = tl.make_tensor_descriptor(X, [n], [1], [B])
    tl.store(Out + tl.arange(0, B), acc)


def test_descriptor_carried_by_a_while_loop():
    x = rand((16,), seed=26)
    out = aligned((16,), np.float32)
    k_while[(1,)](x, out, 10, B=16)
    want = np.array([x[i] * (10 - i) if i < 10 else 0 for i in range(16)], np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6)


@triton.jit
def k_pick(X, Y, Out, N, which, B: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [N], [1], [B])
    if which > 0:
        d = tl.make_tensor_descriptor(Y, [N - 4], [1], [B])
    o = tl.make_tensor_descriptor(Out, [N], [1], [B])
    o.store([0], d.load([0]))


def test_descriptor_joined_after_if():
    x, y = rand((20,), seed=8), rand((20,), seed=9)
    out = aligned((20,), np.float32)
    k_pick[(1,)](x, y, out, 20, 0, B=32)
    np.testing.assert_array_equal(out, x)
    k_pick[(1,)](x, y, out, 20, 1, B=32)
    np.testing.assert_array_equal(out, np.concatenate([y[:16], np.zeros(4, np.float32)]))


@triton.jit
def _make(ptr, n, B: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, [n], [1], [B])


@triton.jit
def _scaled_copy(descs, off, scale):
    src, dst = descs
    dst.store([off], src.load([off]) * scale)


@triton.jit
def k_helpers(X, Y, N, B: tl.constexpr):
    pair = (_make(X, N, B), _make(Y, N, B))
    _scaled_copy(pair, tl.program_id(0) * B, 3.0)


def test_descriptors_through_jit_helpers_and_tuples():
    x = rand((50,), seed=10)
    y = aligned((50,), np.float32)
    k_helpers[(2,)](x, y, 50, B=32)
    np.testing.assert_array_equal(y, 3 * x)


@triton.jit
def _maybe_desc(desc_or_ptr, n, B: tl.constexpr):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, [n], [1], [B])


@triton.jit
def k_maybe(X, Y, N, B: tl.constexpr):
    src = _maybe_desc(X, N, B)
    dst = _maybe_desc(Y, N, B)
    dst.store([0], src.load([0]) + 0.5)


def test_isinstance_tensor_descriptor():
    # the fused-attention tutorial's _maybe_make_tensor_desc: pointers or host descriptors
    x = rand((20,), seed=11)
    y = aligned((20,), np.float32)
    k_maybe[(1,)](x, y, 20, B=32)
    np.testing.assert_array_equal(y, x + 0.5)
    y[...] = 0
    k_maybe[(1,)](TensorDescriptor(x, [20], [1], [32]), y, 20, B=32)
    np.testing.assert_array_equal(y, x + 0.5)


# --------------------------------------------------------------------------------------
# matmul through descriptors


@triton.jit
def k_matmul(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_d = tl.make_tensor_descriptor(A, [M, K], [K, 1], [BM, BK])
    b_d = tl.make_tensor_descriptor(B, [K, N], [N, 1], [BK, BN])
    c_d = tl.make_tensor_descriptor(C, [M, N], [N, 1], [BM, BN])
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_d.load([pm, k]), b_d.load([k, pn]), acc)
    c_d.store([pm, pn], acc.to(tl.float16))


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (70, 40, 88)])
def test_matmul_in_kernel_descriptors(m, n, k):
    a = rand((m, k), np.float16, seed=12) / 8
    b = rand((k, n), np.float16, seed=13) / 8
    c = aligned((m, n), np.float16)
    k_matmul[(triton.cdiv(m, 32), triton.cdiv(n, 32))](a, b, c, m, n, k, BM=32, BN=32, BK=32)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)


@triton.jit
def k_matmul_host(a_d, b_d, c_d, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(a_d.load([pm, k]), b_d.load([pn, k]).T)
    c_d.store([pm, pn], acc)


def test_matmul_host_descriptors_transposed_b():
    m, n, k = 48, 40, 72
    a = rand((m, k), np.float16, seed=14) / 8
    bt = rand((n, k), np.float16, seed=15) / 8  # B stored N x K
    c = aligned((m, n), np.float32, fill=-1.0)
    a_d = TensorDescriptor.from_tensor(a, [32, 32])
    b_d = TensorDescriptor.from_tensor(bt, [32, 32])
    c_d = TensorDescriptor.from_tensor(c, [32, 32])
    k_matmul_host[(2, 2)](a_d, b_d, c_d, k, BM=32, BN=32, BK=32)
    ref = a.astype(np.float32) @ bt.astype(np.float32).T
    np.testing.assert_allclose(c, ref, rtol=1e-2, atol=1e-2)


@triton.jit
def _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def k_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, GROUP_SIZE_M: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr,
                 NUM_SMS: tl.constexpr):
    # the persistent matmul of Triton's tutorial 09 (B stored N x K, a subtiled epilogue)
    dtype = c_ptr.dtype.element_ty
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(
        c_ptr, shape=[M, N], strides=[N, 1],
        block_shape=[BM, BN if not EPILOGUE_SUBTILE else BN // 2])
    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BM
        offs_bn = pid_n * BN
        accumulator = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BK
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _tile_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_cm = pid_m * BM
        offs_cn = pid_n * BN
        if EPILOGUE_SUBTILE:
            acc = tl.reshape(accumulator, (BM, 2, BN // 2))
            acc = tl.permute(acc, (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c_desc.store([offs_cm, offs_cn], acc0.to(dtype))
            c_desc.store([offs_cm, offs_cn + BN // 2], acc1.to(dtype))
        else:
            c_desc.store([offs_cm, offs_cn], accumulator.to(dtype))


@pytest.mark.parametrize("subtile", [False, True])
def test_persistent_matmul_tutorial(subtile):
    triton.set_allocator(lambda size, align, stream: None)  # as the tutorial does
    m, n, k = 80, 96, 72
    a = rand((m, k), np.float16, seed=27) / 8
    b = rand((n, k), np.float16, seed=28) / 8
    c = aligned((m, n), np.float16)
    k_persistent[(3,)](a, b, c, m, n, k, BM=32, BN=32, BK=32, GROUP_SIZE_M=2,
                       EPILOGUE_SUBTILE=subtile, NUM_SMS=3)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    triton.set_allocator(None)


# --------------------------------------------------------------------------------------
# host descriptors


def test_set_allocator_is_accepted():
    calls = []
    triton.set_allocator(lambda size, align, stream: calls.append(size))
    x = rand((32,), seed=20)
    y = aligned((32,), np.float32)
    k_1d[(1,)](x, y, 32, B=32)
    np.testing.assert_array_equal(y, x + 1)
    assert calls == []  # 1-D descriptors build no tensor maps: no scratch memory
    triton.set_allocator(None)


# --------------------------------------------------------------------------------------
# atomics, gather and scatter


@triton.jit
def k_atomic(X, V, M, N, om, on, BM: tl.constexpr, BN: tl.constexpr, OP: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    v = tl.load(V + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    if OP == "add":
        d.atomic_add([om, on], v)
    elif OP == "min":
        d.atomic_min([om, on], v)
    elif OP == "max":
        d.atomic_max([om, on], v)
    elif OP == "and":
        d.atomic_and([om, on], v)
    elif OP == "or":
        d.atomic_or([om, on], v)
    else:
        d.atomic_xor([om, on], v)


_NP_OPS = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
           "or": np.bitwise_or, "xor": np.bitwise_xor}


@pytest.mark.parametrize("op,dtype", [("add", "int32"), ("add", "float32"),
                                      ("min", "int32"), ("max", "int64"), ("and", "int32"),
                                      ("or", "uint32"), ("xor", "int64")])
def test_atomics_at_an_edge(op, dtype):
    m, n = 10, 20
    x = rand((m, n), dtype, seed=21)
    if dtype.startswith("u"):
        x[...] = np.abs(x.astype(np.int64)).astype(dtype)
    before = x.copy()
    v = rand((8, 16), dtype, seed=22)
    if dtype.startswith("u"):
        v[...] = np.abs(v.astype(np.int64)).astype(dtype)
    om, on = 6, 12  # rows 6..13, cols 12..27: a 4 x 8 corner inside
    k_atomic[(2,)](x, v, m, n, om, on, BM=8, BN=16, OP=op)  # two programs: applied twice
    want = before.copy()
    for _ in range(2):
        want[om:, on:] = _NP_OPS[op](want[om:, on:], v[:m - om, :n - on])
    np.testing.assert_array_equal(x, want)


@triton.jit
def k_atomic_race(X, V, M, N, om, on, BM: tl.constexpr, BN: tl.constexpr, OP: tl.constexpr):
    # every program reduces its own block of values into the same window of X
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    base = tl.program_id(0) * BM * BN
    v = tl.load(V + base + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    if OP == "min":
        d.atomic_min([om, on], v)
    else:
        d.atomic_max([om, on], v)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_min_max_race(op, dtype):
    # fp16/bf16 min/max (which tl.atomic_min/max refuse; Triton runs them as TMA reductions):
    # a compare-and-swap loop on the GPU, here with 8 programs racing on one window
    from lang_util import bf16_bits_to_f32, f32_to_bf16_bits
    m, n, progs = 10, 20, 8
    rng = np.random.default_rng(31)
    x0 = rng.integers(-64, 65, (m, n)) / 4.0  # exact in fp16 and bf16
    v0 = rng.integers(-64, 65, (progs, 8, 16)) / 4.0
    if dtype == "float16":
        x, v = aligned((m, n), np.float16), aligned((progs, 8, 16), np.float16)
        x[...], v[...] = x0, v0
        xa, va = x, v
    else:
        x, v = aligned((m, n), np.uint16), aligned((progs, 8, 16), np.uint16)
        x[...], v[...] = f32_to_bf16_bits(x0), f32_to_bf16_bits(v0)
        xa, va = triton.reinterpret(x, tl.bfloat16), triton.reinterpret(v, tl.bfloat16)
    om, on = 6, 12  # the 4 x 8 corner of the 8 x 16 block is inside X
    k_atomic_race[(progs,)](xa, va, m, n, om, on, BM=8, BN=16, OP=op)
    want = x0.copy()
    for p in range(progs):
        want[om:, on:] = _NP_OPS[op](want[om:, on:], v0[p, :m - om, :n - on])
    got = x.astype(np.float64) if dtype == "float16" else bf16_bits_to_f32(x)
    np.testing.assert_array_equal(got, want)


@triton.jit
def k_gather(X, R, Y, M, N, y0, ROWS: tl.constexpr, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [1, BN])
    rows = tl.load(R + tl.arange(0, ROWS))
    g = d.gather(rows, y0)
    tl.store(Y + tl.arange(0, ROWS)[:, None] * BN + tl.arange(0, BN)[None, :], g)


def test_gather_rows():
    x = rand((12, 40), seed=23)
    rows = aligned((8,), np.int32)
    rows[...] = [3, 0, 11, 12, -1, 5, 5, 7]  # 12 and -1 are outside: zeros
    y = aligned((8, 32), np.float32, fill=9.0)
    k_gather[(1,)](x, rows, y, 12, 40, 20, ROWS=8, BN=32)
    want = np.stack([window(x, (r, 20), (1, 32))[0] for r in rows])
    np.testing.assert_array_equal(y, want)


@triton.jit
def k_scatter(X, R, V, M, N, y0, ROWS: tl.constexpr, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [1, BN])
    v = tl.load(V + tl.arange(0, ROWS)[:, None] * BN + tl.arange(0, BN)[None, :])
    d.scatter(v, tl.load(R + tl.arange(0, ROWS)), y0)


def test_scatter_rows():
    x = aligned((12, 40), np.float32, fill=-1.0)
    rows = aligned((8,), np.int32)
    rows[...] = [1, 3, 5, 7, 9, 11, 13, -2]
    v = rand((8, 32), seed=24)
    k_scatter[(1,)](x, rows, v, 12, 40, 16, ROWS=8, BN=32)
    want = np.full((12, 40), -1.0, np.float32)
    for i, r in enumerate(rows):
        if 0 <= r < 12:
            want[r, 16:40] = v[i, :24]
    np.testing.assert_array_equal(x, want)
