"""CPU torch tensors as kernel arguments (skipped where torch is not installed): dtypes
including bf16, strided views, and the seeds' own torch host wrappers."""

import pytest

torch = pytest.importorskip("torch")

import tilec as triton  # noqa: E402
import tilec.language as tl  # noqa: E402
import seed_kernels as sk  # noqa: E402


@triton.jit
def scale(X, Y, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, (x.to(tl.float32) * s).to(Y.dtype.element_ty), mask=m)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16,
                                   torch.float64])
def test_dtypes(dtype):
    x = torch.arange(100, dtype=torch.float32).to(dtype)
    y = torch.zeros(100, dtype=dtype)
    scale[(4,)](x, y, 100, 0.5, BLOCK=32)
    torch.testing.assert_close(y, (x.float() * 0.5).to(dtype))


def test_strided_view():
    base = torch.arange(200, dtype=torch.float32)
    x = base[::2]  # non-contiguous
    y = torch.zeros(100)
    with pytest.raises(triton.KernelError, match="argument 'X'"):
        # read as contiguous, 200 floats span 800 bytes: past the 796 the view can reach
        scale[(1,)](x, torch.zeros(200), 200, 1.0, BLOCK=256)
    scale[(1,)](x, y, 50, 1.0, BLOCK=64)  # within the view's byte range
    torch.testing.assert_close(y[:50], base[:50])


def test_seed_wrappers_on_cpu_tensors():
    x = torch.rand(5000)
    y = torch.rand(5000)
    torch.testing.assert_close(sk.add(x, y), x + y)
    a = torch.randn(37, 300)
    torch.testing.assert_close(sk.softmax(a), torch.softmax(a, dim=1), rtol=1e-5, atol=1e-6)
    w, b = torch.randn(300), torch.randn(300)
    torch.testing.assert_close(sk.layernorm(a, w, b),
                               torch.nn.functional.layer_norm(a, (300,), w, b, 1e-5),
                               rtol=1e-4, atol=1e-4)


@triton.jit
def desc_scale(src, dst, s, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([pm, pn], (src.load([pm, pn]).to(tl.float32) * s).to(dst.dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_tensor_descriptors_over_cpu_tensors(dtype):
    from tilec.tools.tensor_descriptor import TensorDescriptor

    x = torch.arange(40 * 48, dtype=torch.float32).reshape(40, 48).to(dtype)
    y = torch.zeros(40, 48, dtype=dtype)
    src = TensorDescriptor.from_tensor(x, [16, 16])
    dst = TensorDescriptor.from_tensor(y, [16, 16], padding="nan")
    assert src.shape == x.shape and tuple(src.strides) == (48, 1)
    desc_scale[(3, 3)](src, dst, 2.0, BM=16, BN=16)
    torch.testing.assert_close(y, (x.float() * 2).to(dtype))
    with pytest.raises(ValueError, match="16-byte aligned"):
        TensorDescriptor(x[:, 1:], [40, 47], [48, 1], [16, 16])
