"""Triton's `arch=` launch option and TRITON_OVERRIDE_ARCH (knobs.runtime.override_arch):
the kernel is compiled for that GPU ("sm80", "sm90", "sm_90a", 90), which warmup() returns
without loading it when it is not the device's (its cubin would not load there), and a
launch refuses; Triton's num_ctas > 1 check applies to that target (its ValueError). On
the stand-in GPU device of test_gpu_fastpath.py (compute capability 9.0), with tilec's
own PTX (no GPU needed; ptxas, when found, builds the cubin)."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import _gpu, knobs

from test_gpu_fastpath import fake_gpu, tensors  # noqa: F401  (the fixture, by name)


@tilec.jit
def scale(x_ptr, y_ptr, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) * 1.5 + 1.0, mask=i < n)


@pytest.fixture
def real_ptx(fake_gpu):  # noqa: F811
    """The stand-in device, with tilec's code generator instead of the fixture's stand-in."""
    launches, _ = fake_gpu
    prev = _gpu.set_ptx_generator(None)
    try:
        yield launches
    finally:
        _gpu.set_ptx_generator(prev)


@pytest.mark.parametrize("arch,target", [("sm80", "sm_80"), ("sm_80", "sm_80"),
                                         (80, "sm_80"), ("sm86", "sm_86")])
def test_warmup_compiles_for_another_gpu(real_ptx, arch, target):
    x, y, _ = tensors()
    k = scale.warmup(x, y, 100, B=128, grid=(1,), arch=arch)
    assert f".target {target}\n" in k.asm["ptx"]
    assert real_ptx == []  # compiled only


@pytest.mark.parametrize("arch", ["sm90", "sm90a", "sm_90a", 90])
def test_the_devices_own_arch_is_a_plain_launch(real_ptx, arch):
    x, y, _ = tensors()
    k = scale.warmup(x, y, 100, B=128, grid=(1,), arch=arch)
    assert ".target sm_90a\n" in k.asm["ptx"]


def test_override_arch_knob(real_ptx, monkeypatch):
    monkeypatch.setattr(knobs.runtime, "override_arch", "sm80")
    x, y, _ = tensors()
    assert ".target sm_80\n" in scale.warmup(x, y, 100, B=128, grid=(1,)).asm["ptx"]


def test_a_launch_for_another_gpu_is_refused(real_ptx):
    x, y, _ = tensors()
    with pytest.raises(ValueError, match=r"arch='sm80': a kernel compiled for sm_80 cannot "
                                         r"run on this GPU \(sm_90a\)"):
        scale[(1,)](x, y, 100, B=128, arch="sm80")
    assert real_ptx == []


def test_num_ctas_needs_hopper(real_ptx):
    x, y, _ = tensors()
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+ \(Hopper\)"):
        scale.warmup(x, y, 100, B=128, grid=(1,), num_ctas=2, arch="sm80")
    scale.warmup(x, y, 100, B=128, grid=(1,), num_ctas=2, arch="sm90")  # Hopper: fine


@pytest.mark.parametrize("arch", ["x86", "sm", "hopper", True])
def test_a_bad_arch_is_a_clear_error(real_ptx, arch):
    x, y, _ = tensors()
    with pytest.raises(ValueError, match="arch must look like 'sm90'"):
        scale.warmup(x, y, 100, B=128, grid=(1,), arch=arch)


def test_on_the_cpu_arch_is_checked_and_runs():
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    scale[(1,)](x, y, 100, B=128, arch="sm80")
    np.testing.assert_array_equal(y, x * 1.5 + 1.0)
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+"):
        scale[(1,)](x, y, 100, B=128, arch="sm80", num_ctas=2)
    with pytest.raises(ValueError, match="arch must look like 'sm90'"):
        scale[(1,)](x, y, 100, B=128, arch="gfx942")


def test_after_fast_launches_arch_still_applies(fake_gpu):  # noqa: F811
    launches, compiles = fake_gpu
    x, y, _ = tensors()
    for _ in range(3):  # the C++ fast path takes the later ones
        scale[(1,)](x, y, 100, B=128)
    assert len(launches) == 3 and len(compiles) <= 1  # (compiled by an earlier test)
    with pytest.raises(ValueError, match="cannot run on this GPU"):
        scale[(1,)](x, y, 100, B=128, arch="sm80")
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+"):
        scale[(1,)](x, y, 100, B=128, arch="sm80", num_ctas=2)
    assert len(launches) == 3
