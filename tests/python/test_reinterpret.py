"""triton.reinterpret(tensor, dtype): a TensorWrapper, the same memory seen with another
element type. As a kernel argument it is a pointer to the wrapper's dtype over the base's
memory: on the CPU interpreter (numpy and CPU torch bases) and on a GPU (torch CUDA bases,
through the Python launch path: the C++ fast path falls back for wrappers)."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.runtime.jit import MockTensor, TensorWrapper, reinterpret

from gpu_util import HAVE_GPU, torch


@triton.jit
def widen(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.load(X + offs).to(tl.int64))


@triton.jit
def to_fp32(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.load(X + offs).to(tl.float32))


@triton.jit
def store_bits(Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, (offs * 100).to(Y.dtype.element_ty))


def test_unsigned_reinterpret_of_signed_arrays():
    for base_dtype, tl_dtype, bits in ((np.int8, tl.uint8, 8), (np.int16, tl.uint16, 16),
                                       (np.int32, tl.uint32, 32)):
        x = np.array([-1, -2, 3, -128], dtype=base_dtype)
        y = np.zeros(4, np.int64)
        widen[(1,)](reinterpret(x, tl_dtype), y, N=4)
        np.testing.assert_array_equal(y, x.astype(np.int64) % (1 << bits))
        widen[(1,)](x, y, N=4)  # the array itself stays signed
        np.testing.assert_array_equal(y, x.astype(np.int64))
    x = np.array([-1, 5], dtype=np.int64)
    y = np.zeros(2, np.float32)
    to_fp32[(1,)](reinterpret(x, tl.uint64), y, N=2)
    np.testing.assert_array_equal(y, np.array([2.0**64, 5.0], np.float32))


def test_fp8_bytes():
    bits = np.array([0x38, 0x40, 0xB8, 0x00], dtype=np.uint8)
    y = np.zeros(4, np.float32)
    to_fp32[(1,)](reinterpret(bits, tl.float8e4nv), y, N=4)
    np.testing.assert_array_equal(y, [1.0, 2.0, -1.0, 0.0])
    e5 = np.array([0x3C, 0x40, 0xBC, 0x00], dtype=np.uint8)
    to_fp32[(1,)](reinterpret(e5, tl.float8e5), y, N=4)
    np.testing.assert_array_equal(y, [1.0, 2.0, -1.0, 0.0])


def test_stores_through_a_wrapper():
    out = np.zeros(4, np.int8)
    store_bits[(1,)](reinterpret(out, tl.uint8), N=4)
    np.testing.assert_array_equal(out.view(np.uint8), [0, 100, 200, 44])  # 300 mod 256


def test_wrapper_methods_over_numpy():
    base = np.arange(12, dtype=np.int32).reshape(3, 4)
    w = reinterpret(base, tl.uint32)
    assert isinstance(w, TensorWrapper) and w.base is base and w.dtype == tl.uint32
    assert w.shape == (3, 4) and w.stride() == (4, 1) and w.stride(0) == 4
    assert w.numel() == 12 and w.element_size() == 4 and w.device == "cpu"
    assert w.data_ptr() == base.__array_interface__["data"][0]
    c = w.clone()
    assert c.base is not base and c.dtype == tl.uint32
    np.testing.assert_array_equal(c.base, base)
    c.base[:] = 7
    w.copy_(c)
    assert (base == 7).all() and w.cpu() is w and w.to("cpu") is w
    assert reinterpret(w, tl.int8).base is base  # rewraps the base, not the wrapper
    with pytest.raises(TypeError, match="cannot reinterpret"):
        reinterpret([1, 2], tl.uint8)


def test_typed_parameter_checks_the_wrapper_dtype():
    @triton.jit
    def typed(X: tl.pointer_type(tl.uint8), Y):
        tl.store(Y, tl.load(X).to(tl.int64))

    x = np.array([-3], np.int8)
    y = np.zeros(1, np.int64)
    typed[(1,)](reinterpret(x, tl.uint8), y)
    assert y[0] == 253
    with pytest.raises(TypeError, match="pointer to u8 but the array holds i8"):
        typed[(1,)](x, y)


def test_mock_tensor_warmup_compiles():
    k = to_fp32.warmup(MockTensor(tl.float16), MockTensor(tl.float32), N=8, grid=(1,))
    assert "fp16" in k.asm["ttir"]


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_torch_cpu_base():
    x = torch.tensor([-1, -2, 3, 4], dtype=torch.int16)
    w = reinterpret(x, tl.uint16)
    assert w.device == x.device and w.stride() == (1,) and w.element_size() == 2
    y = torch.zeros(4, dtype=torch.int64)
    widen[(1,)](w, y, N=4)
    assert y.tolist() == [65535, 65534, 3, 4]
    assert reinterpret(w, torch.int16) is x and isinstance(w.clone().base, torch.Tensor)


@pytest.mark.skipif(not HAVE_GPU, reason="needs a GPU")
def test_gpu_wrappers_launch_through_python_each_time():
    x = torch.tensor([-1, -2, 3, -128], dtype=torch.int8, device="cuda")
    y = torch.zeros(4, dtype=torch.int64, device="cuda")
    for _ in range(3):  # after the first launch the C++ fast path exists and must fall back
        y.zero_()
        widen[(1,)](reinterpret(x, tl.uint8), y, N=4)
        assert y.tolist() == [255, 254, 3, 128]
        widen[(1,)](x, y, N=4)  # the plain tensor keeps its own specialisation
        assert y.tolist() == [-1, -2, 3, -128]
    f8 = torch.tensor([0x38, 0x40, 0xB8, 0], dtype=torch.uint8, device="cuda")
    out = torch.zeros(4, dtype=torch.float32, device="cuda")
    to_fp32[(1,)](reinterpret(f8, tl.float8e4nv), out, N=4)
    assert out.tolist() == [1.0, 2.0, -1.0, 0.0]
    o8 = torch.zeros(4, dtype=torch.int8, device="cuda")
    store_bits[(1,)](reinterpret(o8, tl.uint8), N=4)
    assert o8.view(torch.uint8).tolist() == [0, 100, 200, 44]


def test_tensor_descriptor_over_a_reinterpreted_base():
    import tilec
    from tilec.tools.tensor_descriptor import TensorDescriptor

    @tilec.jit
    def k(D, Out):
        v = D.load([0, 0])
        o = tl.arange(0, 8)
        tl.store(Out + o[:, None] * 8 + o[None, :], v)

    raw = np.arange(64, dtype=np.int16).reshape(8, 8) - 32
    out = np.zeros((8, 8), np.uint16)
    d = TensorDescriptor.from_tensor(tilec.reinterpret(raw, tl.uint16), [8, 8])
    k[(1,)](d, out)
    np.testing.assert_array_equal(out, raw.view(np.uint16))
