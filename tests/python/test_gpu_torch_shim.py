"""torch tensors and torch's current stream read through torch's exported C shim
(python/src/GpuTorchAbi.h) instead of its Python getters: the shim must read every tensor
the way the getters do, launches must use it once checked, and TILEC_TORCH_SHIM=0 must turn
it off. Needs a real torch (the device image has one; the CPU-only CI image does not)."""

import os
import subprocess
import sys
import textwrap

import pytest

import tilec as triton
import tilec.language as tl
from tilec import _C

from gpu_util import HAVE_GPU, torch

needs_torch = [pytest.mark.gpu, pytest.mark.skipif(torch is None, reason="needs torch")]
needs_gpu = [pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")]
HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}


def getter_facts(t):
    return (t.data_ptr(), t.is_cuda, t.get_device() if t.is_cuda else -1,
            DTYPES.get(str(t.dtype).removeprefix("torch."), "?"))


def sample_tensors(device):
    out = []
    for name in DTYPES:
        base = torch.zeros(64, dtype=getattr(torch, name), device=device)
        out += [base, base[3:], base.view(8, 8)[:, 1:].t()]
    out.append(torch.nn.Parameter(torch.ones(5, device=device)))
    out.append(torch.zeros(0, device=device))
    out.append(torch.zeros(3, dtype=torch.complex64, device=device))  # no tilec dtype: "?"
    return out


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.gpu
@pytest.mark.skipif(torch is None, reason="needs torch")
def test_shim_reads_tensors_as_the_getters_do(device):
    if device == "cuda" and not HAVE_GPU:
        pytest.skip("needs a CUDA GPU")
    for t in sample_tensors(device):
        assert _C._gpu_torch_abi_facts(t) == getter_facts(t), (t.dtype, t.shape, t.stride())


@pytest.mark.gpu
@pytest.mark.skipif(torch is None, reason="needs torch")
def test_subclasses_are_left_to_the_getters():
    class Sub(torch.Tensor):
        pass

    assert _C._gpu_torch_abi_facts(torch.zeros(2).as_subclass(Sub)) is None
    assert _C._gpu_torch_abi_facts(object()) is None


@triton.jit
def _scale(X, Y, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, (x.to(tl.float32) * s).to(Y.dtype.element_ty), mask=m)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_launches_read_tensors_and_the_stream_through_the_shim():
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        base = torch.arange(1000, device="cuda").to(dtype)
        for x in (base, base[1:], base[5:]):  # 16-byte aligned, then not: two specialisations
            n = x.numel()
            y = torch.zeros(n + 3, dtype=dtype, device="cuda")[3:]
            _scale[(triton.cdiv(n, 128),)](x, y, n, 2.0, BLOCK=128)
            torch.testing.assert_close(y, (x.float() * 2).to(dtype))
    w = torch.nn.Parameter(torch.randn(300, device="cuda"), requires_grad=False)
    out = torch.empty(300, device="cuda")
    _scale[(3,)](w, out, 300, -1.0, BLOCK=128)
    # a launch on any stream but the capturing one (torch's current) fails the capture
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        _scale[(3,)](w, out, 300, -1.0, BLOCK=128)
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, -w)
    assert _C._gpu_torch_abi_state() == "tensors on, stream on", _C._gpu_torch_abi_state()


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_tilec_torch_shim_0_uses_the_getters():
    code = textwrap.dedent("""
        import torch, tilec as triton, tilec.language as tl
        from tilec import _C
        import test_gpu_torch_shim as t
        x = torch.arange(100, device="cuda", dtype=torch.float32)
        y = torch.zeros(100, device="cuda")
        t._scale[(1,)](x, y, 100, 3.0, BLOCK=128)
        torch.testing.assert_close(y, x * 3)
        print(_C._gpu_torch_abi_state())
        """)
    env = dict(os.environ, TILEC_TORCH_SHIM="0", PYTHONPATH=HERE + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "tensors off, stream off (TILEC_TORCH_SHIM=0)", r.stdout
