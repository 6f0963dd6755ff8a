"""Host TensorDescriptor arguments (tilec.tools.tensor_descriptor, Triton's
triton.tools.tensor_descriptor): copies through them in several dtypes, NaN padding over a
sub-tensor, the block shape as part of the kernel's specialisation (changed by an
autotuner pre_hook: a new variant each), a descriptor larger than its array, the
host-side checks of the constructor, and the AOT signature spelling. The references are
numpy's."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor
from lang_util import ON_GPU, aligned, rand


@triton.jit
def k_host_copy(src, dst, B0: tl.constexpr, B1: tl.constexpr):
    tl.static_assert(src.block_shape[0] == B0 and dst.block_shape[1] == B1)
    p, q = tl.program_id(0) * B0, tl.program_id(1) * B1
    dst.store([p, q], src.load([p, q]))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "int64"])
def test_host_descriptor_copy(dtype):
    # 45 x 70 elements of 45 x 80 arrays (rows of whole 16-byte units, as Triton requires)
    x = rand((45, 80), dtype, seed=16)
    y = aligned((45, 80), dtype)
    b1 = max(16, 16 // np.dtype(dtype).itemsize)
    k_host_copy[(3, triton.cdiv(70, b1))](TensorDescriptor(x, [45, 70], [80, 1], [16, b1]),
                                          TensorDescriptor(y, (45, 70), (80, 1), (16, b1)),
                                          B0=16, B1=b1)
    np.testing.assert_array_equal(y[:, :70], x[:, :70])
    assert (y[:, 70:] == 0).all()


def test_host_descriptor_nan_padding_and_sub_tensor():
    # a 10 x 12 window of a 16 x 16 array, NaN outside it
    x = rand((16, 16), seed=17)
    y = aligned((16, 16), np.float32, fill=5.0)
    src = TensorDescriptor(x, [10, 12], [16, 1], [16, 16], padding="nan")
    dst = TensorDescriptor(y, [16, 16], [16, 1], [16, 16])
    k_host_copy[(1, 1)](src, dst, B0=16, B1=16)
    want = np.full((16, 16), np.nan, np.float32)
    want[:10, :12] = x[:10, :12]
    np.testing.assert_array_equal(y, want)


def test_block_shape_is_part_of_the_specialisation():
    x = rand((32, 64), seed=18)
    y = aligned((32, 64), np.float32)
    src = TensorDescriptor.from_tensor(x, [16, 32])
    dst = TensorDescriptor.from_tensor(y, [16, 32])
    k_host_copy.cache.clear()  # the interpreter's variants; the GPU's are apart
    k_host_copy.__dict__.get("_gpu_kernels", {}).clear()
    k_host_copy[(2, 2)](src, dst, B0=16, B1=32)
    np.testing.assert_array_equal(y, x)
    # the same descriptors with a new block shape (as a pre_hook sets it): a new variant
    y[...] = 0
    src.block_shape = [32, 16]
    dst.block_shape = [32, 16]
    k_host_copy[(1, 4)](src, dst, B0=32, B1=16)
    np.testing.assert_array_equal(y, x)
    assert len(k_host_copy.compiled_variants()) == 2
    src.padding = "nan"
    k_host_copy[(1, 4)](src, dst, B0=32, B1=16)
    assert len(k_host_copy.compiled_variants()) == 3


@triton.jit
def k_tuned(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    p, q = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([p, q], src.load([p, q]) + 1)


def _set_blocks(nargs):
    for name in ("src", "dst"):
        nargs[name].block_shape = [nargs["BM"], nargs["BN"]]


def test_pre_hook_sets_block_shape():
    tuned = triton.autotune(
        configs=[triton.Config({"BM": 16, "BN": 32}, pre_hook=_set_blocks),
                 triton.Config({"BM": 32, "BN": 16}, pre_hook=_set_blocks)],
        key=[], warmup=1, rep=1)(triton.jit(k_tuned.fn))
    x = rand((40, 40), seed=19)
    y = aligned((40, 40), np.float32)
    # a dummy block shape, as the tutorial makes its descriptors: the hook sets the real one
    src = TensorDescriptor.from_tensor(x, [1, 1])
    dst = TensorDescriptor.from_tensor(y, [1, 1])
    grid = lambda meta: (triton.cdiv(40, meta["BM"]), triton.cdiv(40, meta["BN"]))  # noqa: E731
    tuned[grid](src, dst)
    np.testing.assert_array_equal(y, x + 1)
    blocks = sorted(v.specialization["src"][2] for v in tuned.compiled_variants())
    assert blocks == [(16, 32), (32, 16)]
    assert tuple(src.block_shape) == (tuned.best_config.kwargs["BM"],
                                      tuned.best_config.kwargs["BN"])


@triton.jit
def k_out_of_array(src, dst, B: tl.constexpr):
    dst.store([0], src.load([0]))


@pytest.mark.skipif(ON_GPU, reason="the interpreter's bounds checks")
def test_descriptor_larger_than_its_array_is_a_bounds_error():
    x = aligned((8,), np.float32)
    y = aligned((32,), np.float32)
    src = TensorDescriptor(x, [32], [1], [32])  # says 32 elements; the array has 8
    with pytest.raises(triton.KernelError, match="src"):
        k_out_of_array[(1,)](src, TensorDescriptor.from_tensor(y, [32]), B=32)


def test_host_checks():
    x = aligned((8, 16), np.float32)
    with pytest.raises(ValueError, match="16-byte aligned"):
        TensorDescriptor(x[:, 1:], [8, 15], [16, 1], [8, 8])
    with pytest.raises(ValueError, match="strides must be 16-byte aligned"):
        TensorDescriptor(x, [8, 6], [6, 1], [8, 8])
    with pytest.raises(ValueError, match="rank mismatch"):
        TensorDescriptor(x, [8, 16], [16, 1], [8])
    with pytest.raises(ValueError, match="contiguous"):
        TensorDescriptor(x, [8, 4], [16, 4], [8, 4])
    with pytest.raises(ValueError, match="power of 2"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 12])
    with pytest.raises(ValueError, match="padding"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 16], padding="one")
    with pytest.raises(ValueError, match="positive"):
        TensorDescriptor(x, [0, 16], [16, 1], [8, 16])
    with pytest.raises(ValueError, match="nan"):
        TensorDescriptor(aligned((16,), np.int32), [16], [1], [16], padding="nan")
    d = TensorDescriptor.from_tensor(x, [8, 16])
    assert list(d.shape) == [8, 16] and list(d.strides) == [16, 1] and d.padding == "zero"
    # a pre_hook's block shape is checked at the launch
    d.block_shape = [8, 3]
    with pytest.raises(ValueError, match="argument 'src'.*power of 2"):
        k_out_of_array[(1,)](d, d, B=8)


def test_host_checks_after_a_good_block_shape():
    # the constructor remembers block shapes that passed (its quick path); every other
    # check still runs on the next descriptor with that block shape
    x = aligned((8, 16), np.float32)
    TensorDescriptor(x, [8, 16], [16, 1], [1, 16])
    TensorDescriptor(x, [8, 16], [16, 1], [1, 16])
    with pytest.raises(ValueError, match="16-byte aligned"):
        TensorDescriptor(x[:, 1:], [8, 15], [16, 1], [1, 16])
    with pytest.raises(ValueError, match="strides must be 16-byte aligned"):
        TensorDescriptor(x, [8, 6], [6, 1], [1, 16])
    with pytest.raises(ValueError, match="contiguous"):
        TensorDescriptor(x, [8, 4], [16, 4], [1, 16])
    with pytest.raises(ValueError, match="positive"):
        TensorDescriptor(x, [8, -1], [16, 1], [1, 16])
    with pytest.raises(ValueError, match="nan"):
        TensorDescriptor(aligned((16,), np.int32), [1, 16], [16, 1], [1, 16], padding="nan")
    with pytest.raises(TypeError, match="must be an int, got bool"):
        TensorDescriptor(x, [8, 16], [16, 1], [True, 16])  # equal to (1, 16), not an int
    with pytest.raises(ValueError, match="rank mismatch"):
        TensorDescriptor(x, [8, 16], [16, 1], [1, 16, 1])
    d = TensorDescriptor(x, [8, 16], [16, 1], [np.int64(1), 16])  # numpy ints: full checks
    assert list(d.block_shape) == [1, 16]


# --------------------------------------------------------------------------------------
# ahead of time: Triton's signature spelling


def test_aot_signature_of_a_descriptor():
    k = triton.compile(k_host_copy,
                       signature="tensordesc<fp32[16, 32]>, tensordesc<fp32[16,32], nan>",
                       constexprs={"B0": 16, "B1": 32})
    assert [p[1] for p in k._native.metadata["params"]] == ["ptr", "i32", "i32", "i64"] * 2
    assert [p[0] for p in k._native.metadata["params"]][:4] == \
        ["src.base", "src.shape.0", "src.shape.1", "src.stride.0"]
    assert "ld.global" in k.asm["ptx"]
    with pytest.raises(ValueError, match="block dimension"):
        triton.compile(k_host_copy, signature="tensordesc<fp32[16, x]>, tensordesc<fp32[16]>",
                       constexprs={"B0": 16, "B1": 32})
    with pytest.raises(triton.CompilationError, match=r"'src'.*\[16, 12\].*powers of 2"):
        triton.compile(k_host_copy,
                       signature="tensordesc<fp32[16, 12]>, tensordesc<fp32[16, 32]>",
                       constexprs={"B0": 16, "B1": 32})
