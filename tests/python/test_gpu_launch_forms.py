"""The ways a launch can reach the driver: cuLaunchKernel with `kernelParams` (one pointer
per .param, the default) or `extra` (one CU_LAUNCH_PARAM_BUFFER_POINTER buffer laid out as the
driver reports the .params), cuLaunchKernelEx (`ex`), and the cuLaunchKernel that
cuGetProcAddress returns (`gpa`); _C.gpu_set_launch_form switches, for
benchmarks/gpu_launch_breakdown.py to compare. The GPU tests run a kernel with every scalar
kind through every form and compare the driver's layout with the PTX's .param list."""

import re

import pytest

import tilec as triton
import tilec.language as tl
from tilec import _C

from gpu_util import HAVE_GPU, torch

SIGNATURE = "*fp64:16,i1,i8,fp16,i64,fp32,u8,fp64,bf16,i32,u16,i16,u32,u64"
VALUES = [True, -5, 1.5, -(1 << 40), 2.25, 200, -3.125, 0.75, 123456, 65000, -300, 4000000000,
          (1 << 63) + 4096]
PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


@triton.jit
def scalars(out_ptr, flag, b, h, n, s, u, d, w, i, uh, sh, uw, ud):
    tl.store(out_ptr + 0, flag.to(tl.float64))
    tl.store(out_ptr + 1, b.to(tl.float64))
    tl.store(out_ptr + 2, h.to(tl.float64))
    tl.store(out_ptr + 3, n.to(tl.float64))
    tl.store(out_ptr + 4, s.to(tl.float64))
    tl.store(out_ptr + 5, u.to(tl.float64))
    tl.store(out_ptr + 6, d)
    tl.store(out_ptr + 7, w.to(tl.float64))
    tl.store(out_ptr + 8, i.to(tl.float64))
    tl.store(out_ptr + 9, uh.to(tl.float64))
    tl.store(out_ptr + 10, sh.to(tl.float64))
    tl.store(out_ptr + 11, uw.to(tl.float64))
    tl.store(out_ptr + 12, ud.to(tl.float64))


def ptx_layout(ptx, name):
    """(offsets, sizes, total) of the .entry's .params, each aligned to its size."""
    decls = re.findall(r"\.param \.[a-z]+?(\d+) " + name + r"_param_\d+", ptx)
    offsets, sizes, size = [], [], 0
    for bits in decls:
        b = PTX_BYTES[bits]
        size = (size + b - 1) // b * b
        offsets.append(size)
        sizes.append(b)
        size += b
    return offsets, sizes, size


def test_ptx_declares_every_parameter():
    ck = triton.compile(scalars, signature=SIGNATURE, target="cuda:90")
    offsets, sizes, size = ptx_layout(ck.asm["ptx"], "scalars")
    assert len(offsets) == 14 and size == offsets[-1] + sizes[-1]


def test_launch_form_switch():
    assert _C.gpu_launch_form() == "params"  # the default
    try:
        for form in ("extra", "ex", "gpa", "params"):
            _C.gpu_set_launch_form(form)
            assert _C.gpu_launch_form() == form
        with pytest.raises(ValueError, match="'params', 'extra', 'ex' or 'gpa'"):
            _C.gpu_set_launch_form("buffer")
    finally:
        _C.gpu_set_launch_form("params")
    assert _C.gpu_launch_form() == "params"


@pytest.mark.parametrize("form", ["params", "extra", "ex", "gpa"])
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_every_scalar_kind_arrives(form):
    dev = torch.cuda.current_device()
    major, minor = torch.cuda.get_device_capability(dev)
    ck = triton.compile(scalars, signature=SIGNATURE, target=f"cuda:{major}{minor}")
    out = torch.full((13,), float("nan"), dtype=torch.float64, device="cuda")
    names = ["out_ptr", "flag", "b", "h", "n", "s", "u", "d", "w", "i", "uh", "sh", "uw", "ud"]
    layout = ck._native.param_buffer_layout(dev)
    if form == "extra":
        if not layout:
            pytest.skip("the driver predates cuFuncGetParamInfo: launches keep kernelParams")
        offsets, sizes, _ = ptx_layout(ck.asm["ptx"], "scalars")
        assert layout == list(zip(offsets, sizes))
    try:
        _C.gpu_set_launch_form(form)
        ck._native.launch((1, 1, 1), None, names, [out] + VALUES, dev)
        torch.cuda.synchronize()
    finally:
        _C.gpu_set_launch_form("params")
    want = [1.0, -5.0, 1.5, float(-(1 << 40)), 2.25, 200.0, -3.125, 0.75, 123456.0, 65000.0,
            -300.0, 4000000000.0, float((1 << 63) + 4096)]
    assert out.cpu().tolist() == want


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_fast_path_launches_with_the_extra_form():
    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)

    n = 3000
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.zeros_like(x)
    add[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)  # compiles (kernelParams)
    out.zero_()
    try:
        _C.gpu_set_launch_form("extra")
        for _ in range(3):
            add[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
        torch.cuda.synchronize()
    finally:
        _C.gpu_set_launch_form("params")
    assert add._gpu_dispatch.fast_launches == 3
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_one_gpu_reads_is_cuda_not_get_device():
    """With one visible GPU the fast path learns a tensor's device from is_cuda; with more it
    asks get_device(). A CPU tensor keeps its error either way."""

    class Counting(torch.Tensor):
        calls = 0

        def get_device(self):
            Counting.calls += 1
            return super().get_device()

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        tl.store(out_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)

    n = 1000
    x, y = (torch.rand(n, device="cuda").as_subclass(Counting) for _ in range(2))
    out = torch.zeros(n, device="cuda").as_subclass(Counting)
    add[(4,)](x, y, out, n, BLOCK=256)
    Counting.calls = 0
    for _ in range(3):
        add[(4,)](x, y, out, n, BLOCK=256)
    torch.cuda.synchronize()
    assert add._gpu_dispatch.fast_launches == 3
    assert Counting.calls == (0 if _C.gpu_device_count() == 1 else 9)
    plain = [t.as_subclass(torch.Tensor) for t in (x, y, out)]
    torch.testing.assert_close(plain[2], plain[0] + plain[1])
    with pytest.raises(ValueError, match="argument 'y_ptr' is a CPU tensor"):
        add[(4,)](x, torch.rand(n), out, n, BLOCK=256)
